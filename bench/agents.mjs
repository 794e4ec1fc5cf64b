/**
 * The agents' own recordings, read whole: Claude Code's stream-json (with and without
 * partial messages) and Copilot CLI's session events (the live stream and events.jsonl),
 * each a large file made by repeating the examples with fresh ids, read by `loadHistorySync`
 * against the least any JavaScript reader of them does: split the lines and `JSON.parse`
 * each (no reader on the registry reads these files in less; the ones that exist fold the
 * parsed lines after that).
 */
import { readFileSync } from 'node:fs'

const example = (name) => readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8')

/** `text` repeated until it is about `bytes` long, the ids in `ids` made new in each copy. */
function repeated(text, ids, bytes) {
  const copies = Math.max(1, Math.round(bytes / text.length))
  const parts = []
  for (let i = 0; i < copies; i++) {
    let copy = text
    for (const id of ids) copy = copy.split(`"${id}"`).join(`"${id}-${i}"`)
    parts.push(copy)
  }
  return Buffer.from(parts.join(''))
}

/** Split into lines and JSON.parse each: the floor of a JS reader. */
function parseLines(buffer) {
  const values = []
  for (const line of buffer.toString('utf8').split('\n')) if (line) values.push(JSON.parse(line))
  return values
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

function time(run) {
  const start = process.hrtime.bigint()
  run()
  return Number(process.hrtime.bigint() - start) / 1e6
}

export async function runAgentCases({ native, settings, printTable, ratio, quick }) {
  const size = quick ? 2 * 2 ** 20 : 20 * 2 ** 20
  const claude = ['msg_01Examp1e', 'msg_02Examp1e', 'toolu_01Grep']
  const copilot = ['m-1', 'm-2', 'm-2a', 'toolu_01', 'toolu_02']
  const cases = [
    ['claude-stream, partial messages', repeated(example('claude-code-stream.partial.ndjson'), claude, size), 'claude-stream'],
    ['claude-stream', repeated(example('claude-code-stream.ndjson'), claude, size), 'claude-stream'],
    ['copilot, live stream', repeated(example('copilot-session.stream.ndjson'), copilot, size), 'copilot'],
    ['copilot, events.jsonl', repeated(example('copilot-session.events.jsonl'), copilot, size), 'copilot'],
  ]
  const rows = []
  for (const [name, bytes, format] of cases) {
    const ours = () => native.loadHistorySync(bytes, format)
    const floor = () => parseLines(bytes)
    for (let i = 0; i < settings.warmups; i++) {
      ours()
      floor()
    }
    const oursMs = []
    const floorMs = []
    for (let i = 0; i < settings.runs; i++) {
      floorMs.push(time(floor))
      oursMs.push(time(ours))
    }
    const ratios = floorMs.map((f, i) => f / oursMs[i])
    const mbps = (ms) => (bytes.length / 2 ** 20 / (ms / 1000)).toFixed(0)
    rows.push([name, `${(bytes.length / 2 ** 20).toFixed(1)} MB`, median(oursMs).toFixed(1), mbps(median(oursMs)), median(floorMs).toFixed(1), mbps(median(floorMs)), ratio(median(ratios))])
  }
  printTable(
    'Agents\' recordings → ChatMessage[] (loadHistorySync) against split + JSON.parse per line',
    ['file', 'size', 'ms', 'MB/s', 'JSON.parse ms', 'MB/s', 'speed-up'],
    rows,
  )
  console.log('speed-up: JSON.parse time ÷ loadHistorySync time, the median of runs taken in turn (above 1× means reading the')
  console.log('messages whole costs less than parsing the lines in JavaScript would, before any folding).')
}
