// Every API of the addon, once each, on fixed inputs: the main thread and each worker run
// this and must get the same summary. As a worker entry point it posts its summary.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { isMainThread, parentPort, workerData } from 'node:worker_threads'

const example = (name) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url))
const read = (name) => readFileSync(example(name))
const lines = (name) => read(name).toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))

export async function exercise(addon, n) {
  const a = createRequire(import.meta.url)(addon)
  const out = {}
  // The drop-in.
  const chunks = []
  for (const event of lines('demo-stream.ndjson')) a.appendEventToChunks(chunks, event)
  for (let i = 0; i < 2000; i++) a.appendEventToChunks(chunks, { type: 'text-delta', delta: String(n % 10) })
  out.dropIn = chunks
  const messages = []
  a.applySystemEvent(messages, { kind: 'notice', text: 'hi' }, () => `sys-${n}`)
  out.system = messages
  try {
    a.appendEventToChunks(chunks, { type: 'text-delta', delta: 1 })
  } catch (e) {
    out.typeError = `${e.constructor.name}: ${e.message}`
  }
  // The bytes path.
  const stream = new a.ChunkStream()
  const bytes = read('demo-stream.ndjson')
  for (let i = 0; i < bytes.length; i += 37) stream.push(bytes.subarray(i, i + 37))
  stream.end()
  out.stream = [stream.chunks(), stream.eventCount, stream.toJsonString() === JSON.stringify(stream)]
  out.reduced = [a.reduceEvents(read('sn-thinking.sse')), a.reduceEventsToJson(bytes).length]
  // History, both ways, every format.
  const formats = [['demo-stream.ndjson', 'events'], ['pi-session.jsonl', 'pi'], ['sn-history.json', 'sn'], ['acp-session.ndjson', 'acp'], ['chatviewer.json', 'chatviewer'], ['claude-code-session.jsonl', 'claude'], ['qwen-code-chat.jsonl', 'qwen']]
  out.history = await Promise.all(formats.map(([name, format]) => a.loadHistory(example(name), format)))
  out.historySync = formats.map(([name, format]) => a.loadHistorySync(read(name), format))
  // Formats and views.
  const piMessages = a.pi.toMessages(read('pi-session.jsonl'))
  out.pi = [piMessages, a.pi.fromMessages(piMessages), lines('pi-session.stream.ndjson').flatMap((e) => a.pi.toAgentEvents(e))]
  const snMessages = a.sn.toMessages(read('sn-history.json'))
  out.sn = [snMessages, snMessages.map((m) => a.sn.fromMessage(m))]
  const acpUpdates = lines('acp-session.ndjson')
  out.acp = [acpUpdates.flatMap((u) => a.acp.toAgentEvents(u)), a.acp.toWebviewMessages(acpUpdates), a.acp.toMessages(acpUpdates)]
  out.transcripts = [a.claude.toMessages(read('claude-code-session.jsonl')), a.qwen.toMessages(lines('qwen-code-chat.jsonl'))]
  out.adapters = [
    a.adaptACPMessages(a.acp.toWebviewMessages(acpUpdates), { now: 1 }).map(({ toolCall, ...row }) => row),
    a.adaptJSONLMessages(JSON.parse(read('chatviewer.json'))).length,
    a.toUnifiedMessages(piMessages, { now: 1 }),
    a.buildTimeline(piMessages[1].chunks, { finished: true }),
  ]
  return JSON.stringify(out)
}

if (!isMainThread && workerData?.exercise) {
  parentPort.postMessage(await exercise(workerData.addon, workerData.n))
}
