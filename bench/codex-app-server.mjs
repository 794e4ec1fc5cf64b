/**
 * The Codex app-server row of `npm run bench`: a long thread as a GUI that drives
 * `codex app-server` receives it (hundreds of turns, every message, reasoning summary and
 * command output streamed in deltas), folded event by event by a `Conversation` against
 * a plain-JS fold of the same notifications written the way a GUI keeps them
 * (baseline/codex-app-server.js: a map of items by id, deltas appended). Both take each
 * line as the server wrote it (the JS side parses it); a second pair takes the parsed
 * messages, as a backend that already has them. The cost per event is measured early and
 * late in the thread: it must not grow with the thread.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAppServerFold } = require('../baseline/codex-app-server.js')

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

/** Splits `text` into `n` deltas. */
function deltas(text, n) {
  const size = Math.ceil(text.length / n)
  const out = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

/** The lines of one turn, as `codex app-server` writes them. */
export function turnLines(t, thread) {
  const turnId = `turn-${t}`
  const lines = []
  const note = (method, params) => lines.push(JSON.stringify({ method, params: { threadId: thread, turnId, ...params } }))
  lines.push(JSON.stringify({ method: 'turn/started', params: { threadId: thread, turn: { id: turnId, items: [], status: 'inProgress', error: null } } }))
  const user = { type: 'userMessage', id: `user-${t}`, content: [{ type: 'text', text: `Step ${t}: list the files and say what changed.`, text_elements: [] }] }
  note('item/started', { item: user })
  note('item/completed', { item: user })
  const summary = `I should look at the folder again (turn ${t}) and compare it with what I saw before. `.repeat(3)
  note('item/started', { item: { type: 'reasoning', id: `rs-${t}`, summary: [], content: [] } })
  note('item/reasoning/summaryPartAdded', { itemId: `rs-${t}`, summaryIndex: 0 })
  for (const delta of deltas(summary, 20)) note('item/reasoning/summaryTextDelta', { itemId: `rs-${t}`, delta, summaryIndex: 0 })
  note('item/completed', { item: { type: 'reasoning', id: `rs-${t}`, summary: [summary], content: [] } })
  const say = `I will list the files with ls and look at each one that changed since turn ${t - 1}. `.repeat(4)
  note('item/started', { item: { type: 'agentMessage', id: `msg-${t}-1`, text: '', phase: null } })
  for (const delta of deltas(say, 30)) note('item/agentMessage/delta', { itemId: `msg-${t}-1`, delta })
  note('item/completed', { item: { type: 'agentMessage', id: `msg-${t}-1`, text: say, phase: null } })
  const command = { type: 'commandExecution', id: `call-${t}`, command: "/bin/bash -lc 'ls -la'", cwd: '/work', status: 'inProgress', aggregatedOutput: null, exitCode: null }
  note('item/started', { item: command })
  const output = Array.from({ length: 20 }, (_, i) => `-rw-r--r-- 1 lab lab ${100 * i + t} file-${i}.txt\n`).join('')
  for (const delta of deltas(output, 10)) note('item/commandExecution/outputDelta', { itemId: `call-${t}`, delta })
  note('item/completed', { item: { ...command, status: 'completed', aggregatedOutput: output, exitCode: 0, durationMs: 12 } })
  const answer = `Twenty files; file-${t % 20}.txt grew. Nothing else changed since the last turn. `.repeat(4)
  note('item/started', { item: { type: 'agentMessage', id: `msg-${t}-2`, text: '', phase: 'final_answer' } })
  for (const delta of deltas(answer, 30)) note('item/agentMessage/delta', { itemId: `msg-${t}-2`, delta })
  note('item/completed', { item: { type: 'agentMessage', id: `msg-${t}-2`, text: answer, phase: 'final_answer' } })
  note('thread/tokenUsage/updated', { tokenUsage: { total: { inputTokens: 1000 * t, outputTokens: 80 * t } } })
  lines.push(JSON.stringify({ method: 'turn/completed', params: { threadId: thread, turn: { id: turnId, items: [{ type: 'agentMessage', id: `msg-${t}-2`, text: answer, phase: 'final_answer' }], itemsView: 'summary', status: 'completed', error: null } } }))
  return lines
}

/**
 * Folds every turn, timing each; gives the whole time and the per-event times of the first
 * and last `edge` turns.
 */
function pass(turns, fold, edge) {
  const perTurn = []
  let total = 0
  for (const lines of turns) {
    const start = process.hrtime.bigint()
    for (const line of lines) fold(line)
    const ns = Number(process.hrtime.bigint() - start)
    total += ns
    perTurn.push(ns / lines.length)
  }
  return { total, all: median(perTurn), early: median(perTurn.slice(0, edge)), late: median(perTurn.slice(-edge)) }
}

export async function runCodexAppServerCases({ native, settings, printTable, ratio, quick }) {
  const count = quick ? 150 : 500
  const edge = 20
  const thread = 'thread-bench'
  const turns = Array.from({ length: count }, (_, t) => turnLines(t + 1, thread))
  const events = turns.reduce((n, lines) => n + lines.length, 0)
  const parsedTurns = turns.map((lines) => lines.map((line) => JSON.parse(line)))
  const sides = {
    'Conversation.push(line)': (lines) => {
      const live = new native.Conversation({ format: 'codex-app-server' })
      return pass(lines, (line) => live.push(`${line}\n`), edge)
    },
    'JS: JSON.parse + map of items': (lines) => {
      const gui = createAppServerFold()
      return pass(lines, (line) => gui.push(JSON.parse(line)), edge)
    },
    'Conversation.push(message)': () => {
      const live = new native.Conversation({ format: 'codex-app-server' })
      return pass(parsedTurns, (message) => live.push(message), edge)
    },
    'JS: map of items (parsed)': () => {
      const gui = createAppServerFold()
      return pass(parsedTurns, (message) => gui.push(message), edge)
    },
  }
  // The fold must give the thread: every turn's messages.
  const check = new native.Conversation({ format: 'codex-app-server' })
  for (const lines of turns) for (const line of lines) check.push(`${line}\n`)
  check.end()
  if (check.messages.length !== 2 * count || check.skipped?.count) {
    console.log(`\nWARNING: the generated traffic folded into ${check.messages.length} messages; the timings compare nothing.`)
    process.exitCode = 1
  }
  for (let i = 0; i < settings.warmups; i++) for (const run of Object.values(sides)) run(turns)
  const results = Object.fromEntries(Object.keys(sides).map((name) => [name, []]))
  for (let run = 0; run < settings.runs; run++) {
    for (const [name, side] of Object.entries(sides)) {
      globalThis.gc?.()
      results[name].push(side(turns))
    }
  }
  const ns = (value) => (value / 1000).toFixed(2)
  const ours = { 'JS: JSON.parse + map of items': 'Conversation.push(line)', 'JS: map of items (parsed)': 'Conversation.push(message)' }
  const rows = Object.entries(results).map(([name, runs]) => {
    const total = median(runs.map((r) => r.total))
    const early = median(runs.map((r) => r.early))
    const late = median(runs.map((r) => r.late))
    const against = ours[name] ? ratio(median(runs.map((r, i) => results[ours[name]][i].total / r.total))) : ''
    const all = median(runs.map((r) => r.all))
    return [name, (total / 1e6).toFixed(1), ns(all), ns(early), ns(late), ratio(late / early), against]
  })
  printTable(
    `Codex app-server: ${count} turns, ${events.toLocaleString('en-US')} notifications (deltas of every message, reasoning summary and output), folded one by one`,
    ['fold', 'ms', 'µs/event', `first ${edge} turns`, `last ${edge} turns`, 'late ÷ early', 'native ÷ JS'],
    rows,
  )
  console.log('The JS folds keep the items as sent (a map by id, deltas appended) and build no chunk model; the Conversation builds')
  console.log('the messages (and what changed for a UI) after every event. late ÷ early ≈ 1× means the cost per event does not grow')
  console.log('with the thread. µs/event: the median turn\'s cost per event (of all turns, the first, the last), less exposed than the')
  console.log('whole time (ms) to a process preempted on a loaded machine. Medians of runs taken in turn; native ÷ JS is the median of')
  console.log('the ratios of the whole times of runs taken side by side.')
}
