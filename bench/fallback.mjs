// Fallback rows of `npm run bench`: the WebAssembly build as Node loads it where no native
// addon does (`agent-chunks.wasi.cjs`, what the generated index.js requires), against
// the native addon: per event, and the cold `require` of each in a new process.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Milliseconds from the start of `require` to its return, in a new process. */
function coldRequire(binding) {
  const program = `const t = process.hrtime.bigint(); const b = require(${JSON.stringify(join(root, 'index.js'))});
process.stdout.write(JSON.stringify([Number(process.hrtime.bigint() - t) / 1e6, b.__napiBindingTarget]))`
  const result = spawnSync(process.execPath, ['-e', program], {
    encoding: 'utf8',
    env: { ...process.env, AGENT_CHUNKS_BINDING: binding },
  })
  if (result.status !== 0) throw new Error(`require with AGENT_CHUNKS_BINDING=${binding}: ${result.stderr}`)
  const [ms, target] = JSON.parse(result.stdout)
  if (target !== (binding === 'wasm' ? 'wasm32-wasi' : 'native')) throw new Error(`AGENT_CHUNKS_BINDING=${binding} loaded ${target}`)
  return ms
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

export async function runFallbackCases({ native, turns, ndjson, settings, measurePair, printTable, ratio }) {
  const loader = join(root, 'agent-chunks.wasi.cjs')
  if (!existsSync(loader)) {
    console.log('\nagent-chunks.wasi.cjs is missing: `npm run build:wasm` for the fallback rows.')
    process.exitCode = 1
    return
  }
  const previous = process.env.AGENT_CHUNKS_BINDING
  process.env.AGENT_CHUNKS_BINDING = 'wasm' // chosen: no warning
  const wasm = createRequire(import.meta.url)(loader)
  if (previous === undefined) delete process.env.AGENT_CHUNKS_BINDING
  else process.env.AGENT_CHUNKS_BINDING = previous

  const turnEvents = turns.reduce((sum, events) => sum + events.length, 0)
  const foldTurns = (append) => {
    for (const events of turns) {
      const chunks = []
      for (const event of events) append(chunks, event)
    }
  }
  const bytes = Buffer.from(ndjson)
  const ndjsonEvents = ndjson.split('\n').filter(Boolean).length
  const fold = (binding) => {
    const stream = new binding.ChunkStream()
    for (let at = 0; at < bytes.length; at += 16384) stream.push(bytes.subarray(at, at + 16384))
    stream.end()
    return stream.chunks()
  }
  if (JSON.stringify(fold(wasm)) !== JSON.stringify(fold(native))) {
    console.log('\nWARNING: the fallback and the native addon disagree on the stream; the timings compare different work.')
    process.exitCode = 1
  }
  const dropIn = measurePair(() => foldTurns(wasm.appendEventToChunks), () => foldTurns(native.appendEventToChunks))
  const stream = measurePair(() => fold(wasm), () => fold(native))
  const ns = (value) => value.toFixed(1)
  printTable(
    'WebAssembly fallback in Node (agent-chunks.wasi.cjs), ns per event',
    ['case', 'events/run', 'wasm ns', 'native ns', 'wasm/native'],
    [
      [`drop-in, realistic turns (${turns.length} turns)`, turnEvents, ns(dropIn.native / turnEvents), ns(dropIn.js / turnEvents), ratio(dropIn.ratio)],
      ['ChunkStream, NDJSON in 16 KB pieces', ndjsonEvents, ns(stream.native / ndjsonEvents), ns(stream.js / ndjsonEvents), ratio(stream.ratio)],
    ],
  )

  // Cold loads, each in a new process, taken in turn.
  const times = { native: [], wasm: [] }
  for (let run = 0; run < settings.runs; run++) {
    for (const binding of run % 2 ? ['native', 'wasm'] : ['wasm', 'native']) times[binding].push(coldRequire(binding))
  }
  printTable(
    `Cold require('agent-chunks') in a new process, ms (median of ${settings.runs})`,
    ['binding', 'ms'],
    [
      ['native', median(times.native).toFixed(1)],
      ['WebAssembly fallback', median(times.wasm).toFixed(1)],
    ],
  )
}
