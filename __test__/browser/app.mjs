// A renderer's code, bundled the way a renderer is: `import … from 'agent-chunks'` and no
// bundler options for it (by esbuild, Vite, electron-vite and webpack). Runs when the page
// loads and leaves what it saw on `appReport`.
import addon, {
  __napiBindingTarget,
  appendEventToChunks,
  applySystemEvent,
  ChunkStream,
  loadHistory,
  loadHistorySync,
  reduceEvents,
} from 'agent-chunks'

async function report() {
  const chunks = []
  const first = { type: 'text-delta', delta: 'Hel' }
  appendEventToChunks(chunks, first)
  const kept = chunks[0]
  appendEventToChunks(chunks, { type: 'text-delta', delta: 'lo \uD83D' })
  appendEventToChunks(chunks, { type: 'text-delta', delta: '\uDE00' })
  const args = { cmd: 'ls' }
  appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: 't1', name: 'bash', arguments: args } })

  let typeError = null
  try {
    appendEventToChunks(chunks, { type: 'text-delta', delta: 5 })
  } catch (error) {
    typeError = { name: error.name, message: error.message }
  }

  const messages = [{ id: 'u', role: 'user', chunks: [] }]
  const system = applySystemEvent(messages, { kind: 'notice', text: 'hi' }, () => 'sys-1')

  const bytes = new TextEncoder().encode('{"type":"text-delta","delta":"a"}\n{"type":"text-delta","delta":"b"}\n')
  const stream = new ChunkStream()
  stream.push(bytes.subarray(0, 10))
  stream.push(bytes.subarray(10))
  stream.end()

  const history = new TextEncoder().encode('{"type":"turn-start"}\n{"type":"text-delta","delta":"x"}\n')
  const loaded = await loadHistory(history, 'events')
  let pathError = null
  try {
    loadHistorySync('/etc/hostname', 'events')
  } catch (error) {
    pathError = { name: error.name, message: error.message }
  }
  let panic = null
  try {
    addon.__panicForTest('entry')
  } catch (error) {
    panic = { name: error.name, message: error.message }
  }
  const afterPanic = []
  appendEventToChunks(afterPanic, { type: 'text-delta', delta: 'still here' })
  return {
    target: __napiBindingTarget,
    mechanics: addon.__mechanicsForTest(),
    panic,
    afterPanic,
    chunks,
    sameFirstChunk: chunks[0] === kept,
    argumentsByReference: chunks[1]?.calls?.[0]?.arguments === args,
    typeError,
    messages,
    system,
    streamed: stream.chunks(),
    reduced: reduceEvents(bytes),
    loaded,
    pathError,
  }
}

globalThis.appReport = report().catch((error) => ({ failed: String(error?.stack ?? error) }))
