// Run by conversation-sync.test.mjs in a child process: workers stream a call's input
// (AG-UI TOOL_CALL_ARGS) into a Conversation, with and without the compiled mechanics,
// in both modes, and are terminated at random times mid-push; prints `ok <rounds>` when
// the process lived through them all and the main thread's conversation still works.
import { Worker } from 'node:worker_threads'

import addon, { Conversation } from '../index.js'

const rounds = Number(process.argv[2] ?? 24)
const script = `
const { workerData } = require('node:worker_threads')
const addon = require(workerData.addon)
addon.__mechanicsForTest(workerData.compiled)
const sse = (event) => 'data: ' + JSON.stringify(event) + '\\n\\n'
const live = new addon.Conversation({ format: 'ag-ui', mode: workerData.mode })
live.push(sse({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }) + sse({ type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'bash' }))
for (let i = 0; ; i++) {
  live.push(sse({ type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: 'x'.repeat(i % 7) + '\\uD83D' }))
  if (i % 5 === 0) live.toAGUIEvents({ threadId: 't', runId: 'r' })
  if (i % 3 === 0) live.messages[0].chunks[0].calls[0].arguments
}
`
let seed = 20261207
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
const addonPath = new URL('../index.js', import.meta.url).pathname

for (let round = 0; round < rounds; round++) {
  const worker = new Worker(script, { eval: true, workerData: { addon: addonPath, compiled: round % 2 === 0, mode: round % 4 < 2 ? 'mutable' : 'immutable' } })
  await new Promise((resolve) => worker.once('online', resolve))
  await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 40)))
  await worker.terminate()
}
const live = new Conversation({ format: 'ag-ui' })
live.push('data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"bash"}\n\n')
live.push('data: {"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}\n\n')
if (live.messages[0].chunks[0].calls[0].arguments !== '{}' || typeof addon.__mechanicsForTest() !== 'boolean') process.exit(2)
console.log(`ok ${rounds}`)
