// A ChunkStream holds its chunks in native memory behind a small JavaScript object. V8
// must be told how much, or it sees no reason to collect finished streams: in a server
// that folds one large stream after another, hundreds of them (megabytes each) waited
// for a garbage collection and the process grew by gigabytes. Run in a child process,
// with no manual GC: 300 finished streams of about 5 MB each, one per task of the event
// loop; what is still held at the peak must stay well below what they add up to.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const addon = fileURLToPath(new URL('../index.js', import.meta.url))
const child = `
const { ChunkStream } = require(${JSON.stringify(addon)})
const line = JSON.stringify({ type: 'text-delta', delta: 'x'.repeat(1000) }) + '\\n'
const piece = Buffer.from(line.repeat(64))
const start = process.memoryUsage().rss
let peak = 0
;(async () => {
  for (let n = 0; n < 300; n++) {
    const stream = new ChunkStream()
    for (let i = 0; i < 80; i++) stream.push(piece)
    stream.end()
    await new Promise((resolve) => setImmediate(resolve))
    peak = Math.max(peak, process.memoryUsage().rss - start)
  }
  process.stdout.write(String(peak))
})()
`

test('finished ChunkStreams are collected as their native memory grows, not left to pile up', () => {
  const result = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8' })
  assert.equal(result.status, 0, result.stderr)
  const total = 300 * 80 * 64 * 1000
  const peak = Number(result.stdout)
  assert.ok(peak < total / 4, `peak growth ${(peak / 1048576).toFixed(0)} MB of ${(total / 1048576).toFixed(0)} MB folded`)
})
