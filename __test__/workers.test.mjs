// The addon is context-aware: it loads and works in several worker threads at once
// (Electron renderers and workers need this), each with its own state.
import test from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'

const script = `
const { parentPort, workerData } = require('node:worker_threads')
const { appendEventToChunks, applySystemEvent } = require(workerData.addon)
const chunks = []
for (let i = 0; i < 5000; i++) {
  appendEventToChunks(chunks, { type: i % 10 === 9 ? 'reasoning-delta' : 'text-delta', delta: String(workerData.n) })
}
appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: 'c', name: 'n', arguments: workerData.n } })
appendEventToChunks(chunks, { type: 'tool-result', toolResult: { toolCallId: 'c', result: 'ok', isError: false } })
let typeError = false
try { appendEventToChunks(chunks, { type: 'text-delta', delta: 1 }) } catch (e) { typeError = e instanceof TypeError }
const messages = []
applySystemEvent(messages, { kind: 'notice', text: 'w' }, () => 'id-' + workerData.n)
parentPort.postMessage({ json: JSON.stringify(chunks), messages, typeError })
`

function run(n) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { eval: true, workerData: { n, addon: new URL('../index.js', import.meta.url).pathname } })
    worker.once('message', resolve)
    worker.once('error', reject)
  })
}

test('the drop-in works in 6 worker threads at once, each on its own', async () => {
  const results = await Promise.all([0, 1, 2, 3, 4, 5].map(run))
  results.forEach((result, n) => {
    const chunks = JSON.parse(result.json)
    assert.equal(chunks.length, 1000 + 1, `worker ${n}: 500 text/thinking pairs and a batch`)
    assert.equal(chunks[0].text, String(n).repeat(9))
    assert.deepEqual(chunks.at(-1).calls[0], { id: 'c', name: 'n', arguments: n, result: 'ok', isError: false })
    assert.equal(result.typeError, true)
    assert.equal(result.messages[0].id, `id-${n}`)
  })
})

test('workers can be created and ended repeatedly while the main thread keeps working', async () => {
  const { appendEventToChunks } = await import('../index.js')
  for (let round = 0; round < 5; round++) {
    const worker = new Worker(script, { eval: true, workerData: { n: round, addon: new URL('../index.js', import.meta.url).pathname } })
    await new Promise((resolve) => worker.once('online', resolve))
    await worker.terminate()
  }
  const chunks = []
  appendEventToChunks(chunks, { type: 'text-delta', delta: 'still here' })
  assert.deepEqual(chunks, [{ type: 'text', text: 'still here' }])
})
