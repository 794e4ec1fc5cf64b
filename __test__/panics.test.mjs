// A panic inside the addon never unwinds into Node: it reaches JavaScript as an Error and
// the process goes on working. `__panicForTest` (test-only, see src/napi/testing.rs)
// panics at each kind of boundary; it runs in a child process so that the panic messages
// Rust prints go to that process's stderr, where the test reads them. Each panic is given
// the caller's data (a secret made at run time): neither the Error nor stderr may show it.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const addon = fileURLToPath(new URL('../index.js', import.meta.url))

const script = `
const addon = require(${JSON.stringify(addon)})
const { Worker } = require('node:worker_threads')
const outcome = (f) => { try { f(); return 'returned' } catch (e) { return [e.constructor.name, e.message, String(e.stack)] } }
const secret = ['caller', 'secret', process.pid].join('-')
const stream = new addon.ChunkStream()
stream.push('{"type":"text-delta","delta":"before "}\\n')
const panics = ['entry', 'payload', 'napi', 'data', 'slice'].map((via) => outcome(() => addon.__panicForTest(via, secret)))
// Everything still works, the stream made before the panics too.
stream.push('{"type":"text-delta","delta":"after"}\\n')
const chunks = []
addon.appendEventToChunks(chunks, { type: 'notice', message: 'n' })
const worker = new Worker(
  'const a = require(require("node:worker_threads").workerData); let e; try { a.__panicForTest("entry", "w") } catch (x) { e = x.message }' +
  ' require("node:worker_threads").parentPort.postMessage([e, a.reduceEvents(\\'{"type":"notice","message":"w"}\\')])',
  { eval: true, workerData: ${JSON.stringify(addon)} },
)
worker.once('message', (inWorker) => {
  console.log(JSON.stringify({
    secret,
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
  const { secret } = result
  assert.match(secret, /^caller-secret-\d+$/)
  // Every mode threw, and neither its Error (message, stack) nor stderr shows the secret.
  for (const [i, panic] of result.panics.entries()) {
    assert.equal(panic[0], 'Error', `mode ${i}`)
    assert.ok(!panic[1].includes('secret') && !panic[2].includes('secret'), `mode ${i}: ${panic[2]}`)
  }
  assert.ok(!child.stderr.includes(secret), child.stderr)
  assert.deepEqual(result.panics.slice(0, 2).map((p) => p[1]), [
    '__panicForTest: internal error: a test panic in the entry wrapper',
    '__panicForTest: internal error: a panic without a message',
  ])
  // A formatted message may quote the caller's data: the Error names only the place, in
  // the entry wrapper ("data") as in the wrapper every #[napi] function runs in ("napi"),
  // and for the standard library's own panic for a string sliced off a character boundary
  // ("slice"), which quotes the string.
  const hidden = /^__panicForTest: internal error: a panic at (.+):\d+ \(its message is not shown: it may quote input\)$/
  for (const i of [2, 3, 4]) {
    assert.equal(result.panics[i][1].match(hidden)?.[1], 'src/napi/testing.rs', result.panics[i][1])
  }
  // Stderr: the place only, for each of those and for the payload that is not a message.
  assert.equal(child.stderr.match(/agent-chunks: internal error \(a panic\) at src\/napi\/testing\.rs:\d+: its message is not shown/g)?.length, 4, child.stderr)
  assert.deepEqual(result.stream, [{ type: 'text', text: 'before after' }])
  assert.deepEqual(result.chunks, [{ type: 'system', kind: 'notice', text: 'n' }])
  assert.equal(result.pi, 1)
  assert.deepEqual(result.inWorker, [
    '__panicForTest: internal error: a test panic in the entry wrapper',
    [{ type: 'system', kind: 'notice', text: 'w' }],
  ])
  // The panics did happen: Rust reported each one.
  assert.equal(child.stderr.match(/agent-chunks: internal error \(a panic\)/g)?.length, 6, child.stderr)
  assert.ok(child.stderr.includes('a test panic in the entry wrapper'), child.stderr)
})

test('__panicForTest is not part of the typed API', async () => {
  const { readFile } = await import('node:fs/promises')
  const typings = await readFile(new URL('../index.d.ts', import.meta.url), 'utf8')
  assert.ok(!typings.includes('__panicForTest'))
})
