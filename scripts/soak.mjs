// npm run soak: does memory stay flat over a long-running process?
//
// Ten million events through ChunkStream (fresh streams of 10,000 events each, pushed in
// 16 KB pieces as a socket delivers them, one bad frame per stream, every stream read
// with chunks()), then ten million through appendEventToChunks (fresh messages of 10,000
// events each). Each message is one task of the event loop, as one request or one agent
// turn is in a server: Node runs the finalizers that free a ChunkStream's native memory
// on the event loop, never inside a synchronous loop. After every half million the
// process's RSS is sampled (after a full GC and the finalizers it schedules).
//
// A leak grows at a steady rate; a heap settling rises less and less and stops. The
// ChunkStream phase settles over its first few million events (from about 118 to 143 MB,
// then flat): the native memory of finished streams waits for V8's next major
// collection (ChunkStream tells V8 its size, which bounds that to some tens of MB), and
// glibc keeps the memory it was once given for the next allocations. So the first half
// of each phase is its warm-up, and the samples of the second half are fitted with a
// line (least squares): the growth it projects over ten million events must stay below
// 5% of the warm-up's last sample, or the script exits with status 1.
//
// Then the teardown soak: for a few minutes, worker threads start loadHistory (every
// format, from a file path and from a Buffer, 8 MB each) and are terminated at random
// moments, most of them mid-load, three at a time. RSS is sampled (after a full GC, with
// no worker alive) fifteen times over the run; the first third of the time is the warm-up
// (new workers' heaps and the allocator's arenas settle). RSS after it swings by tens of
// MB as the allocator's per-thread arenas fill and empty, up and down; a leak in starting
// or ending a worker or a load grows with every worker. So the samples after the warm-up
// are fitted with a line (least squares) against the number of workers, and its slope
// must stay below 128 KiB per worker (1/64 of the history each one loads; the swings
// alone have given slopes of about 26 KiB).
//
// SOAK_EVENTS=<n> changes the events per phase (default 10,000,000);
// SOAK_TEARDOWN_SECONDS=<s> the length of the teardown soak (default 180).
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

import { writeBigHistories } from '../__test__/big-histories.mjs'
import { createRng } from '../__test__/random-streams.mjs'

const { ChunkStream, appendEventToChunks } = createRequire(import.meta.url)('../index.js')

const EVENTS = Number(process.env.SOAK_EVENTS ?? 10_000_000)
const PER_MESSAGE = 10_000
const SAMPLE_EVERY = 500_000
const WARM_UP = Math.floor(EVENTS / 2 / SAMPLE_EVERY) * SAMPLE_EVERY
const LIMIT = 0.05
const PROJECTED_OVER = 10_000_000
const PIECE = 16 * 1024

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc (npm run soak does)')
  process.exit(2)
}

// ─── Realistic messages ────────────────────────────────────────────────────────────

const WORDS = ['the ', 'file ', 'returns ', 'a ', 'value', '. ', '\n', 'é', '✓ ', '😀', 'test ', 'build ']

function delta(rng) {
  let text = ''
  const length = rng.between(5, 40)
  while (text.length < length) text += rng.pick(WORDS)
  return text.slice(0, length)
}

/**
 * `PER_MESSAGE` events of an agent's turn: about 70% text deltas, 15% reasoning, the rest
 * tool calls, shell output, results, signatures and lifecycle events.
 */
function message(seed) {
  const rng = createRng(seed)
  const events = []
  let step = 0
  while (events.length < PER_MESSAGE) {
    for (let i = rng.between(4, 14); i > 0; i--) events.push({ type: 'reasoning-delta', delta: delta(rng) })
    events.push({ type: 'reasoning-end', metadata: { anthropic: { signature: `sig-${seed}-${step}` } } })
    for (let i = rng.between(20, 64); i > 0; i--) events.push({ type: 'text-delta', delta: delta(rng) })
    const calls = Array.from({ length: rng.between(1, 3) }, (_, i) => ({ id: `call_${step}_${i}`, name: 'bash', arguments: { command: 'npm test', i } }))
    for (const toolCall of calls) events.push({ type: 'tool-call', toolCall })
    for (let i = rng.int(6); i > 0; i--) events.push({ type: 'shell-output', stream: 'stdout', data: `${delta(rng)}\n` })
    for (const call of calls) events.push({ type: 'tool-result', toolResult: { toolCallId: call.id, result: { ok: true }, isError: false } })
    events.push({ type: 'usage', tokens: step })
    step++
  }
  return events.slice(0, PER_MESSAGE)
}

const VARIANTS = 8
const messages = Array.from({ length: VARIANTS }, (_, i) => message(0x50a4 + i))
const streams = messages.map((events, i) => {
  const lines = events.map((event) => JSON.stringify(event))
  // One bad frame per stream: the error path must not leak either.
  lines.splice(PER_MESSAGE / 2, 0, '{"type":"text-delta","delta":5}')
  const sse = i % 2 === 1
  return Buffer.from(lines.map((line) => (sse ? `data: ${line}\n\n` : `${line}\n`)).join(''))
})

// ─── Phases ────────────────────────────────────────────────────────────────────────

const nextTask = () => new Promise((resolve) => setImmediate(resolve))

/**
 * RSS after a full GC. Node runs the finalizers that free native memory (a ChunkStream's
 * chunks) on the event loop after the collection that found the objects dead, so the
 * loop turns before the sample: measured right after `gc()`, that memory was still held.
 */
async function rss() {
  globalThis.gc()
  await nextTask()
  await nextTask()
  globalThis.gc()
  return process.memoryUsage().rss
}

async function phase(name, runMessage) {
  const samples = []
  const started = process.hrtime.bigint()
  for (let done = 0, n = 0; done < EVENTS; n++) {
    runMessage(n)
    await nextTask()
    done += PER_MESSAGE
    if (done % SAMPLE_EVERY === 0) samples.push({ events: done, rss: await rss() })
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const base = samples.find((s) => s.events === WARM_UP) ?? samples[0]
  const later = samples.filter((s) => s.events > base.events)
  const peak = Math.max(base.rss, ...later.map((s) => s.rss))
  const slope = later.length >= 3 ? leastSquaresSlope(later.map((s) => [s.events, s.rss])) : NaN
  return { name, samples, seconds, base, peak, later, slope, growth: (slope * PROJECTED_OVER) / base.rss }
}

/** The slope of the line that fits `points` ([x, y] pairs) best, by least squares. */
function leastSquaresSlope(points) {
  const n = points.length
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n
  let sxy = 0
  let sxx = 0
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my)
    sxx += (x - mx) ** 2
  }
  return sxy / sxx
}

let badFrames = 0
const results = [
  await phase('ChunkStream', (n) => {
    const bytes = streams[n % VARIANTS]
    const stream = new ChunkStream()
    for (let at = 0; at < bytes.length; at += PIECE) {
      try {
        stream.push(bytes.subarray(at, at + PIECE))
      } catch {
        badFrames++
      }
    }
    stream.end()
    if (stream.chunks().length === 0) throw new Error('no chunks')
  }),
  await phase('appendEventToChunks', (n) => {
    const chunks = []
    for (const event of messages[n % VARIANTS]) appendEventToChunks(chunks, event)
    if (chunks.length === 0) throw new Error('no chunks')
  }),
]

// ─── Report ────────────────────────────────────────────────────────────────────────

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1)
console.log(`RSS after a full GC, MB (${(EVENTS / 1e6).toLocaleString('en')} million events per phase, messages of ${PER_MESSAGE.toLocaleString('en')} events)\n`)
console.log(`| events | ${results.map((r) => r.name).join(' | ')} |`)
console.log(`| --- |${results.map(() => ' --- |').join('')}`)
for (let i = 0; i < results[0].samples.length; i++) {
  const events = results[0].samples[i].events
  console.log(`| ${(events / 1e6).toLocaleString('en')} M${events === WARM_UP ? ' (warm-up)' : ''} | ${results.map((r) => mb(r.samples[i].rss)).join(' | ')} |`)
}
console.log('')
let failed = false
for (const r of results) {
  const rate = Math.round(EVENTS / r.seconds).toLocaleString('en')
  if (r.later.length < 3) {
    failed = true
    console.log(`${r.name}: FAILED: ${r.later.length} samples after the warm-up, a trend needs 3 (SOAK_EVENTS of at least ${(6 * SAMPLE_EVERY).toLocaleString('en')})`)
    continue
  }
  const ok = r.growth < LIMIT
  failed ||= !ok
  const perMillion = (r.slope * 1e6) / 1024
  console.log(`${r.name}: ${mb(r.base.rss)} MB after warm-up, peak ${mb(r.peak)} MB; trend after it ${perMillion >= 0 ? '+' : ''}${perMillion.toFixed(1)} KB per million events: ${(r.growth * 100).toFixed(2)}% in ${(PROJECTED_OVER / 1e6).toLocaleString('en')} million (limit ${LIMIT * 100}%) — ${ok ? 'ok' : 'FAILED'}; ${r.seconds.toFixed(1)} s, ${rate} events/s`)
}
console.log(`(${badFrames.toLocaleString('en')} bad frames reported and skipped)`)

// ─── Teardown ──────────────────────────────────────────────────────────────────────

const TEARDOWN_SECONDS = Number(process.env.SOAK_TEARDOWN_SECONDS ?? 180)
const TEARDOWN_SAMPLES = 15
const TEARDOWN_LIMIT = 128 * 1024
const addon = fileURLToPath(new URL('../index.js', import.meta.url))
const loader = `
const { parentPort, workerData } = require('node:worker_threads')
const { readFileSync } = require('node:fs')
const { loadHistory } = require(workerData.addon)
const { file, format, buffer } = workerData
parentPort.postMessage('loading')
loadHistory(buffer ? readFileSync(file) : file, format).then((m) => parentPort.postMessage(m.length), (e) => parentPort.postMessage(String(e)))
`

async function teardownSoak() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-soak-'))
  const files = writeBigHistories(dir, 8 << 20)
  const formats = Object.keys(files)
  const rng = createRng(0x7ea2)
  const samples = []
  const counts = { workers: 0, settled: 0, terminated: 0 }
  const end = Date.now() + TEARDOWN_SECONDS * 1000
  const warmUpEnd = Date.now() + (TEARDOWN_SECONDS * 1000) / 3
  async function one(n) {
    const format = formats[n % formats.length]
    const worker = new Worker(loader, { eval: true, workerData: { addon, file: files[format], format, buffer: n % 2 === 0 } })
    const settled = new Promise((resolve) => worker.on('message', (m) => m !== 'loading' && resolve(m)))
    await new Promise((resolve) => worker.once('message', resolve))
    const delay = rng.int(10) < 8 ? rng.int(80) : rng.int(1500)
    const winner = await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, delay, 'timer'))])
    if (typeof winner === 'string' && winner !== 'timer') throw new Error(`${format}: ${winner}`)
    counts[winner === 'timer' ? 'terminated' : 'settled']++
    await worker.terminate()
    counts.workers++
  }
  // Three at a time; sampled between rounds, when no worker is alive, at even times.
  const every = (TEARDOWN_SECONDS * 1000) / TEARDOWN_SAMPLES
  for (let next = 0, sampleAt = Date.now() + every; Date.now() < end; ) {
    await Promise.all([one(next++), one(next++), one(next++)])
    if (Date.now() >= sampleAt || Date.now() >= end) {
      samples.push({ workers: counts.workers, rss: await rss(), warmUp: Date.now() < warmUpEnd })
      sampleAt += every
    }
  }
  rmSync(dir, { recursive: true, force: true })
  const base = samples.findLast((s) => s.warmUp) ?? samples[0]
  const later = samples.filter((s) => s !== base && !s.warmUp)
  const peak = Math.max(...later.map((s) => s.rss))
  const enough = later.length >= 3
  const slope = enough ? leastSquaresSlope(later.map((s) => [s.workers, s.rss])) : NaN
  return { samples, counts, base, peak, later, enough, slope }
}

const teardown = await teardownSoak()
console.log(`\nTeardown: ${teardown.counts.workers} workers in ${TEARDOWN_SECONDS} s (${teardown.counts.terminated} terminated mid-load, ${teardown.counts.settled} settled first); RSS after a full GC, MB\n`)
console.log('| workers | RSS |')
console.log('| --- | --- |')
for (const s of teardown.samples) console.log(`| ${s.workers}${s === teardown.base ? ' (warm-up)' : ''} | ${mb(s.rss)} |`)
const teardownOk = teardown.enough && teardown.slope < TEARDOWN_LIMIT
failed ||= !teardownOk
if (!teardown.enough) {
  console.log(`\nteardown: FAILED: ${teardown.samples.length} samples, too few after the warm-up for a trend (SOAK_TEARDOWN_SECONDS=${TEARDOWN_SECONDS}: were the loads longer than the run?)`)
} else {
  const kib = (bytes) => `${bytes >= 0 ? '+' : ''}${(bytes / 1024).toFixed(1)} KiB`
  const rssLater = teardown.later.map((s) => s.rss)
  console.log(`\nteardown: after warm-up, RSS between ${mb(Math.min(...rssLater))} and ${mb(teardown.peak)} MB; trend ${kib(teardown.slope)} per worker (limit ${kib(TEARDOWN_LIMIT)}) — ${teardownOk ? 'ok' : 'FAILED'}`)
}
process.exit(failed ? 1 : 0)
