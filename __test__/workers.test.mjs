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

test('8 workers use every API at once and get what the main thread gets', async () => {
  const { exercise } = await import('./all-apis.mjs')
  const addon = new URL('../index.js', import.meta.url).pathname
  const entry = new URL('./all-apis.mjs', import.meta.url)
  const runs = Array.from({ length: 8 }, (_, n) => {
    const worker = new Worker(entry, { workerData: { exercise: true, addon, n } })
    return new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
  })
  // The main thread works meanwhile too.
  const [mine, ...theirs] = await Promise.all([exercise(addon, 0), ...runs])
  const expected = (n) => (n % 10 === 0 ? mine : mine.replaceAll('"sys-0"', `"sys-${n}"`).replace(/(\{"type":"text","text":"[^"]*?)0{2000}/, `$1${String(n % 10).repeat(2000)}`))
  theirs.forEach((summary, n) => assert.equal(summary, expected(n), `worker ${n}`))
  assert.ok(JSON.parse(mine).typeError.startsWith('TypeError: appendEventToChunks'))
})
