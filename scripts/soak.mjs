// npm run soak: does memory stay flat over a long-running process?
//
// Ten million events through ChunkStream (fresh streams of 10,000 events each, pushed in
// 16 KB pieces as a socket delivers them, one bad frame per stream, every stream read
// with chunks()), then ten million through appendEventToChunks (fresh messages of 10,000
// events each). Each message is one task of the event loop, as one request or one agent
// turn is in a server: Node runs the finalizers that free a ChunkStream's native memory
// on the event loop, never inside a synchronous loop. After every million the process's
// RSS is sampled (after a full GC). The first million of each phase is the warm-up;
// after it, RSS must stay within 5% of the warm-up sample, or the script exits with
// status 1.
//
// SOAK_EVENTS=<n> changes the events per phase (default 10,000,000).
import { createRequire } from 'node:module'

import { createRng } from '../__test__/random-streams.mjs'

const { ChunkStream, appendEventToChunks } = createRequire(import.meta.url)('../index.js')

const EVENTS = Number(process.env.SOAK_EVENTS ?? 10_000_000)
const PER_MESSAGE = 10_000
const SAMPLE_EVERY = 1_000_000
const WARM_UP = SAMPLE_EVERY
const LIMIT = 0.05
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

function rss() {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage().rss
}

const nextTask = () => new Promise((resolve) => setImmediate(resolve))

async function phase(name, runMessage) {
  const samples = []
  const started = process.hrtime.bigint()
  for (let done = 0, n = 0; done < EVENTS; n++) {
    runMessage(n)
    await nextTask()
    done += PER_MESSAGE
    if (done % SAMPLE_EVERY === 0) samples.push({ events: done, rss: rss() })
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const base = samples.find((s) => s.events === WARM_UP) ?? samples[0]
  const later = samples.filter((s) => s.events > base.events)
  const peak = Math.max(base.rss, ...later.map((s) => s.rss))
  return { name, samples, seconds, base, peak, growth: peak / base.rss - 1 }
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
  const ok = r.growth < LIMIT
  failed ||= !ok
  const rate = Math.round(EVENTS / r.seconds).toLocaleString('en')
  console.log(`${r.name}: ${mb(r.base.rss)} MB after warm-up, peak ${mb(r.peak)} MB: growth ${(r.growth * 100).toFixed(2)}% (limit ${LIMIT * 100}%) — ${ok ? 'ok' : 'FAILED'}; ${r.seconds.toFixed(1)} s, ${rate} events/s`)
}
console.log(`(${badFrames.toLocaleString('en')} bad frames reported and skipped)`)
process.exit(failed ? 1 : 0)
