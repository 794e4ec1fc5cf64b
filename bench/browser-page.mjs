// The page side of the browser rows (bundled by bench/browser.mjs as a renderer is):
// the WebAssembly build against the plain-JS baseline in the same page, with the same
// sampling as the Node bench (warm-up, samples of at least `minSampleMs` each after a
// full GC, sides taken in turn, medians).
import addon from 'agent-chunks'
import baseline from '../baseline/chunks.js'

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

function sampling(fn, { warmups, minSampleMs }) {
  let start = performance.now()
  fn()
  const first = performance.now() - start
  const repeat = Math.max(1, Math.ceil(minSampleMs / Math.max(first, 0.01)))
  for (let i = 1; i < warmups; i++) fn()
  return () => {
    globalThis.gc()
    start = performance.now()
    for (let i = 0; i < repeat; i++) fn()
    return ((performance.now() - start) * 1e6) / repeat
  }
}

function measurePair(wasmFn, jsFn, settings) {
  const sample = { wasm: sampling(wasmFn, settings), js: sampling(jsFn, settings) }
  const times = { wasm: [], js: [], ratios: [] }
  for (let run = 0; run < settings.runs; run++) {
    const [first, second] = run % 2 ? ['wasm', 'js'] : ['js', 'wasm']
    const a = sample[first]()
    const b = sample[second]()
    const wasm = first === 'wasm' ? a : b
    const js = first === 'wasm' ? b : a
    times.wasm.push(wasm)
    times.js.push(js)
    times.ratios.push(wasm / js)
  }
  return { wasm: median(times.wasm), js: median(times.js), ratio: median(times.ratios) }
}

function fold(append, events) {
  const chunks = []
  for (const event of events) append(chunks, event)
  return chunks
}

function foldTurns(append, turns) {
  for (const events of turns) fold(append, events)
}

/** What a renderer does with recorded bytes without the addon. */
function jsNdjson(bytes) {
  const chunks = []
  for (const line of new TextDecoder().decode(bytes).split('\n')) {
    if (line) baseline.appendEventToChunks(chunks, JSON.parse(line))
  }
  return chunks
}

globalThis.benchInBrowser = ({ turnsJson, ndjson, settings }) => {
  const turns = JSON.parse(turnsJson)
  const turnEvents = turns.reduce((sum, events) => sum + events.length, 0)
  const bytes = new TextEncoder().encode(ndjson)
  const byteEvents = ndjson.split('\n').filter(Boolean).length
  const expected = JSON.stringify(jsNdjson(bytes))
  const checks = {
    'drop-in': JSON.stringify(fold(addon.appendEventToChunks, turns[0])) === JSON.stringify(fold(baseline.appendEventToChunks, turns[0])),
    reduceEvents: JSON.stringify(addon.reduceEvents(bytes)) === expected,
    reduceEventsToJson: JSON.stringify(JSON.parse(addon.reduceEventsToJson(bytes))) === expected,
  }
  const same = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name).join(', ') || true
  const rows = [
    { name: `drop-in, realistic turns (${turns.length} turns)`, events: turnEvents, ...measurePair(() => foldTurns(addon.appendEventToChunks, turns), () => foldTurns(baseline.appendEventToChunks, turns), settings) },
    { name: `NDJSON bytes → chunk objects (${byteEvents} events)`, events: byteEvents, ...measurePair(() => addon.reduceEvents(bytes), () => jsNdjson(bytes), settings) },
    { name: 'NDJSON bytes → chunks JSON', events: byteEvents, ...measurePair(() => addon.reduceEventsToJson(bytes), () => JSON.stringify(jsNdjson(bytes)), settings) },
  ]
  return { same, userAgent: navigator.userAgent, rows }
}
