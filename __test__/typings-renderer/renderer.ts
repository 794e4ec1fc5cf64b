// Compiled by `tsc --noEmit` in `npm test`: the typings as an Electron renderer or a web
// page sees them, with no Node types at all (no `Buffer`, no `process`), the package
// resolved by name as a bundler resolves it.
import {
  __napiBindingTarget,
  appendEventToChunks,
  ChunkStream,
  loadHistory,
  reduceEvents,
  type AgentEvent,
  type ChatMessage,
  type Chunk,
  type HistoryMessage,
} from 'agent-chunks'

const message: ChatMessage = { id: 'm1', role: 'assistant', chunks: [] }
const events: AgentEvent[] = [{ type: 'text-delta', delta: 'Hello' }]
for (const event of events) appendEventToChunks(message.chunks, event)

// Bytes from a fetch or a WebSocket are Uint8Arrays.
const bytes: Uint8Array = new TextEncoder().encode('{"type":"text-delta","delta":"a"}\n')
const stream = new ChunkStream({ framing: 'ndjson' })
stream.push(bytes)
stream.push('{"type":"text-delta","delta":"b"}\n')
stream.end()
const chunks: Chunk[] = stream.chunks()
const folded: Chunk[] = reduceEvents(bytes)

async function fromServer(response: Response): Promise<HistoryMessage[]> {
  return loadHistory(new Uint8Array(await response.arrayBuffer()), 'events')
}

// @ts-expect-error: a number is not a source
reduceEvents(42)

// Which build loaded: in a renderer, the WebAssembly one (browser.mjs exports it too).
const loaded: 'native' | 'wasm32-wasi' | 'wasm32-wasip1' = __napiBindingTarget

export { chunks, folded, fromServer, loaded }

