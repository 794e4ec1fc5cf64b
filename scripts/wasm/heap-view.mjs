// One DataView over the module's memory, shared by every emnapi call (see build.mjs).
// `memory.buffer` is a getter the JIT does not inline, so it is read only when the memory
// has grown: growing detaches the old buffer, whose byteLength then reads 0. The bundle
// holds one module instance, so one memory.
let buffer
let view

export function heapView(memory) {
  if (buffer === undefined || buffer.byteLength === 0) {
    buffer = memory.buffer
    view = new DataView(buffer)
  }
  return view
}
