// A panic inside the addon never unwinds into Node: it reaches JavaScript as an Error and
// the process goes on working. `__panicForTest` (test-only, see src/napi/testing.rs)
// panics at each kind of boundary; it runs in a child process so that the panic messages
// Rust prints go to that process's stderr, where the test reads them.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const addon = fileURLToPath(new URL('../index.js', import.meta.url))

const script = `
const addon = require(${JSON.stringify(addon)})
const { Worker } = require('node:worker_threads')
const outcome = (f) => { try { f(); return 'returned' } catch (e) { return [e.constructor.name, e.message] } }
const stream = new addon.ChunkStream()
stream.push('{"type":"text-delta","delta":"before "}\\n')
const panics = ['entry', 'payload', 'napi', 'data'].map((via) => outcome(() => addon.__panicForTest(via)))
// Everything still works, the stream made before the panics too.
stream.push('{"type":"text-delta","delta":"after"}\\n')
const chunks = []
addon.appendEventToChunks(chunks, { type: 'notice', message: 'n' })
const worker = new Worker(
  'const a = require(require("node:worker_threads").workerData); let e; try { a.__panicForTest("entry") } catch (x) { e = x.message }' +
  ' require("node:worker_threads").parentPort.postMessage([e, a.reduceEvents(\\'{"type":"notice","message":"w"}\\')])',
  { eval: true, workerData: ${JSON.stringify(addon)} },
)
worker.once('message', (inWorker) => {
  console.log(JSON.stringify({
    panics,
    stream: stream.chunks(),
    chunks,
    pi: addon.pi.toMessages('{"role":"user","content":"hi"}').length,
    inWorker,
  }))
})
`

test('a panic at every boundary is an Error, and the process, its workers and its streams keep working', () => {
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, RUST_BACKTRACE: '0' } })
  assert.equal(child.signal, null, `no abort: ${child.stderr}`)
  assert.equal(child.status, 0, child.stderr)
  const result = JSON.parse(child.stdout)
  assert.equal(result.panics[3][0], 'Error')
  assert.deepEqual(result.panics.slice(0, 3), [
    ['Error', '__panicForTest: internal error: a test panic in the entry wrapper'],
    ['Error', '__panicForTest: internal error: a panic without a message'],
    ['Error', 'a test panic in a #[napi(catch_unwind)] function'],
  ])
  // A formatted message may quote the caller's data: neither the Error nor stderr shows it.
  assert.match(result.panics[3][1], /^__panicForTest: internal error: a panic at src\/napi\/testing\.rs:\d+ \(its message is not shown: it may quote input\)$/)
  assert.ok(!child.stderr.includes('caller-secret'), child.stderr)
  assert.match(child.stderr, /agent-chunks: internal error \(a panic\) at src\/napi\/testing\.rs:\d+: its message is not shown/)
  assert.deepEqual(result.stream, [{ type: 'text', text: 'before after' }])
  assert.deepEqual(result.chunks, [{ type: 'system', kind: 'notice', text: 'n' }])
  assert.equal(result.pi, 1)
  assert.deepEqual(result.inWorker, [
    '__panicForTest: internal error: a test panic in the entry wrapper',
    [{ type: 'system', kind: 'notice', text: 'w' }],
  ])
  // The panics did happen: Rust reported each one.
  for (const message of ['a test panic in the entry wrapper', 'a test panic in a #[napi(catch_unwind)] function']) {
    assert.ok(child.stderr.includes(message), `stderr reports: ${message}`)
  }
})

test('__panicForTest is not part of the typed API', async () => {
  const { readFile } = await import('node:fs/promises')
  const typings = await readFile(new URL('../index.d.ts', import.meta.url), 'utf8')
  assert.ok(!typings.includes('__panicForTest'))
})
