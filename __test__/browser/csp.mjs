// A renderer's code in a page whose Content Security Policy is the usual hardened one,
// `script-src 'self' 'wasm-unsafe-eval'`: the WebAssembly module may compile, code from
// text may not run. The drop-in then writes through built-ins rather than compiled
// functions, and must still throw where a write is refused, leaving the data as it was.
import addon, { appendEventToChunks, applySystemEvent } from 'agent-chunks'

const outcome = (fn) => {
  try {
    fn()
    return 'returned'
  } catch (error) {
    return { name: error.name, message: error.message }
  }
}

function report() {
  let evalRefused
  try {
    (0, eval)('1')
    evalRefused = false
  } catch (error) {
    evalRefused = error.name
  }

  const chunks = []
  appendEventToChunks(chunks, { type: 'text-delta', delta: 'Hel' })
  appendEventToChunks(chunks, { type: 'text-delta', delta: 'lo' })
  appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: 't1', name: 'bash', arguments: { cmd: 'ls' } } })
  appendEventToChunks(chunks, { type: 'tool-result', toolResult: { toolCallId: 't1', result: 'ok', isError: false } })
  const messages = [{ id: 'u', role: 'user', chunks: [] }]
  const system = applySystemEvent(messages, { kind: 'notice', text: 'hi' }, () => 'sys-1')

  // Immer and Redux Toolkit freeze state deeply.
  const frozenArray = Object.freeze([])
  const frozenChunk = [Object.freeze({ type: 'text', text: 'a' })]
  const readOnlyText = [Object.defineProperty({ type: 'text' }, 'text', { value: 'a', writable: false, enumerable: true })]
  const refusing = new Proxy([{ type: 'text', text: 'a' }], { set: () => false })
  const lengthRefused = [{ type: 'text', text: 'a' }]
  const takesElementOnly = new Proxy(lengthRefused, { set: (t, key, value) => key !== 'length' && Reflect.set(t, key, value) })
  class Observed extends Array {
    push(...items) {
      this.pushes = (this.pushes ?? 0) + 1
      return super.push(...items)
    }
  }
  const observed = Observed.from([{ type: 'text', text: 'a' }])
  const entry = Object.seal({ id: 't1', name: 'bash', arguments: {}, result: 'before' })
  const frozenMessages = Object.freeze([{ id: 'u', role: 'user', chunks: [] }])
  return {
    evalRefused,
    mechanics: addon.__mechanicsForTest(),
    observedOutcome: outcome(() => appendEventToChunks(observed, { type: 'notice', message: 'n' })),
    chunks,
    messages,
    system,
    refused: {
      frozenArray: outcome(() => appendEventToChunks(frozenArray, { type: 'text-delta', delta: 'x' })),
      frozenChunk: outcome(() => appendEventToChunks(frozenChunk, { type: 'text-delta', delta: 'x' })),
      readOnlyText: outcome(() => appendEventToChunks(readOnlyText, { type: 'text-delta', delta: 'x' })),
      refusingProxy: outcome(() => appendEventToChunks(refusing, { type: 'notice', message: 'n' })),
      lengthRefused: outcome(() => appendEventToChunks(takesElementOnly, { type: 'notice', message: 'n' })),
      sealedEntry: outcome(() =>
        appendEventToChunks([{ type: 'tool-batch', calls: [entry] }], {
          type: 'tool-result',
          toolResult: { toolCallId: 't1', result: 'after', isError: true },
        }),
      ),
      frozenMessages: outcome(() => applySystemEvent(frozenMessages, { kind: 'notice', text: 't' }, () => 'id')),
    },
    after: {
      frozenArray,
      frozenChunk,
      readOnlyText,
      refusing: [...refusing],
      // The target (a real array) took the element and grew; the element is taken back.
      lengthRefused: { first: lengthRefused[0], second: 1 in lengthRefused },
      observed: { pushes: observed.pushes, length: observed.length },
      entry,
      frozenMessages,
    },
  }
}

try {
  globalThis.cspReport = report()
} catch (error) {
  globalThis.cspReport = { failed: String(error?.stack ?? error) }
}
