// A load never outlives what it reads: workers terminated at random moments while
// loadHistory runs (from a file path, or from a Buffer that dies with the worker's heap),
// in several formats, with large inputs, a few hundred times. It runs in a child process
// so that a crash is a failed test, not a dead suite.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { writeBigHistories } from './big-histories.mjs'

const addon = fileURLToPath(new URL('../index.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-teardown-'))
// Large enough (16 MB) that a Buffer's memory goes back to the system when its heap dies.
const files = writeBigHistories(dir, 16 << 20)

// In the child: `WORKERS` workers, `AT_ONCE` at a time, each loading one history (and a
// second one from the other kind of source half the time), terminated at a random moment
// from its start to a little after a load would settle.
const child = `
const { Worker } = require('node:worker_threads')
const files = ${JSON.stringify(files)}
const WORKERS = Number(process.argv[1]), AT_ONCE = 3
const script = \`
const { parentPort, workerData } = require('node:worker_threads')
const { readFileSync } = require('node:fs')
const { loadHistory } = require(workerData.addon)
const { file, format, buffer, twice } = workerData
const source = (asBuffer) => (asBuffer ? readFileSync(file) : file)
parentPort.postMessage('loading')
loadHistory(source(buffer), format).then((m) => parentPort.postMessage(m.length), (e) => parentPort.postMessage(String(e)))
if (twice) loadHistory(source(!buffer), format).catch(() => {})
\`
let seed = 12345
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
const formats = Object.keys(files)
const outcomes = { settled: 0, terminated: 0 }
async function one(n) {
  const format = formats[n % formats.length]
  const worker = new Worker(script, { eval: true, workerData: { addon: ${JSON.stringify(addon)}, file: files[format], format, buffer: n % 2 === 0, twice: random() < 0.5 } })
  const settled = new Promise((resolve) => worker.on('message', (m) => m !== 'loading' && resolve(m)))
  await new Promise((resolve) => worker.once('message', resolve))
  // Mostly in the first tens of milliseconds (mid-read), sometimes late enough to settle;
  // every twentieth load is let finish, so that loads that settle are there however slow
  // the machine is.
  const delay = random() < 0.85 ? random() * 60 : random() * 1500
  const deadline = n % 20 === 0 ? [] : [new Promise((resolve) => setTimeout(resolve, delay, 'timer'))]
  const winner = await Promise.race([settled, ...deadline])
  outcomes[winner === 'timer' ? 'terminated' : 'settled']++
  if (typeof winner === 'string' && winner !== 'timer') throw new Error(format + ': ' + winner)
  await worker.terminate()
}
;(async () => {
  let next = 0
  await Promise.all(Array.from({ length: AT_ONCE }, async () => { while (next < WORKERS) await one(next++) }))
  console.log(JSON.stringify(outcomes))
})()
`

test('hundreds of workers terminated mid-load, from paths and Buffers, never crash the process', () => {
  const run = spawnSync(process.execPath, ['-e', child, '180'], { encoding: 'utf8' })
  assert.equal(run.signal, null, `the process was killed by ${run.signal}: ${run.stderr}`)
  assert.equal(run.status, 0, run.stderr)
  const outcomes = JSON.parse(run.stdout)
  assert.equal(outcomes.settled + outcomes.terminated, 180)
  // Both happened: loads cut short at every stage, and loads that finished.
  assert.ok(outcomes.terminated > 100, JSON.stringify(outcomes))
  assert.ok(outcomes.settled > 0, JSON.stringify(outcomes))
})
