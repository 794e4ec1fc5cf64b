// The lab's check of an ACP capture: the client's traffic log of the live run
// (`live.ndjson`) and of `session/load` in a fresh process (`load.ndjson`), against each
// other and against the session as the agent's own files keep it:
//
//   live     the live log pushed into a Conversation in small pieces == foldStream of it whole
//   objects  the same log's messages pushed as the objects the SDK parsed (a backend on the
//            SDK has objects, not bytes) == foldStream of the bytes
//   load     the live fold == the session/load replay folded (as `agent-chunks check
//            live.ndjson load.ndjson`: the assistant messages, chunk by chunk)
//   files    the live fold == the agent's own file of the session, read by our reader of it
//            (Claude Code's transcript, Codex's rollout, Qwen Code's chat recording)
//
// A difference the agent itself makes is named by a reason of lab/reasons.mjs.
import { createRequire } from 'node:module'
import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { messagesDiffer } from './compare.mjs'
import { settler } from './reasons.mjs'

const require = createRequire(import.meta.url)
const native = require('../index.js')
const { readHistory, readStream } = require('../cli/formats.js')
const { describeCheck } = require('../cli/check.js')

const PIECE = 997

/** The agent's own file of a session, and the format we read it in. */
const FILES = {
  'qwen-acp': { history: 'qwen', file: (sessions, id) => sessions.find((f) => f.endsWith(`/chats/${id}.jsonl`)) },
  'claude-acp': { history: 'claude', file: (sessions, id) => sessions.find((f) => f.endsWith(`/${id}.jsonl`) && !f.includes('/subagents/')) },
  'codex-acp': { history: 'codex', file: (sessions, id) => sessions.find((f) => /rollout-[^/]*\.jsonl$/.test(f) && f.includes(id)) },
}

export const isAcpTool = (tool) => tool.endsWith('-acp')

const plain = (value) => JSON.parse(JSON.stringify(value))

/** The messages of a traffic log, folded as it arrives in pieces of bytes. */
function foldPieces(bytes) {
  const live = new native.Conversation({ format: 'acp' })
  for (let at = 0; at < bytes.length; at += PIECE) live.push(bytes.subarray(at, at + PIECE))
  let cut
  try {
    live.end()
  } catch (error) {
    cut = error.message
  }
  return { messages: plain(live.messages), cut }
}

/** The messages of a traffic log, folded from its parsed messages one at a time. */
export function foldObjects(bytes) {
  const live = new native.Conversation({ format: 'acp' })
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.trim() === '') continue
    const record = JSON.parse(line)
    live.push(record.message ?? record)
  }
  live.end()
  return plain(live.messages)
}

/** Compares two folds as `agent-chunks check` does; `undefined` when they agree. */
function compare(left, right) {
  const { agree, report } = describeCheck(left, right)
  if (agree) return undefined
  const lines = report.split('\n')
  const at = lines.findIndex((l) => l.startsWith('first difference'))
  return lines.slice(at, at + 4).map((l) => l.trim()).filter((l) => !l.startsWith('this ')).join(' | ')
}

/** The error the agent answered session/load with, as it says it, or undefined. */
function loadRefused(log) {
  const messages = log.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).message ?? {})
  const request = messages.find((m) => m.method === 'session/load')
  const answer = messages.find((m) => m !== request && m.id === request?.id && m.method === undefined && m.error)
  return answer && [answer.error.message, answer.error.data?.details ?? answer.error.data?.message].filter(Boolean).join(': ')
}

const assistants = (messages) => plain(messages.filter((m) => m.role === 'assistant'))

/**
 * Checks an ACP capture into `result.streams` (one entry, for live.ndjson). `sessions`
 * are the session files of the capture.
 */
export function checkAcpCapture(dir, run, result, sessions) {
  const out = { stream: 'live.ndjson', checks: {} }
  result.streams.push(out)
  const ctx = { tool: run.tool, family: 'acp', version: run.version, scenario: run.scenario, run, stream: 'live.ndjson' }
  const settle = settler(out, ctx)
  const livePath = join(dir, 'live.ndjson')
  if (!existsSync(livePath)) {
    out.checks.live = { result: 'none', why: 'no traffic log' }
    return
  }
  const bytes = readFileSync(livePath)
  const stream = readStream(bytes, 'acp', {})
  const whole = plain(stream.messages)

  const live = foldPieces(bytes)
  ctx.cut = live.cut
  const liveDiff = JSON.stringify(live.messages) === JSON.stringify(whole) ? undefined : (messagesDiffer(live.messages, whole) ?? 'the same roles and chunks, other ids or keys')
  if (liveDiff) settle('live', { result: 'differ', difference: liveDiff, data: {} })
  else if (live.cut) settle('live', { result: 'differ', difference: `the live fold refused the end: ${live.cut}`, data: {} })
  else settle('live', { result: 'pass', messages: whole.length })

  const objects = foldObjects(bytes)
  const objectsDiff = JSON.stringify(objects) === JSON.stringify(whole) ? undefined : (messagesDiffer(objects, whole) ?? 'the same roles and chunks, other ids or keys')
  settle('objects', objectsDiff ? { result: 'differ', difference: objectsDiff, data: {} } : { result: 'pass', messages: whole.length })

  const loadPath = join(dir, 'load.ndjson')
  const loadLog = existsSync(loadPath) ? readFileSync(loadPath, 'utf8') : undefined
  if (loadLog === undefined) out.checks.load = { result: 'none', why: 'no session/load log' }
  else if (!loadLog.includes('"method":"session/load"')) out.checks.load = { result: 'none', why: 'the agent offers no session/load (loadSession is not among its capabilities)' }
  else if (loadRefused(loadLog)) out.checks.load = { result: 'none', why: `the agent refused session/load: ${loadRefused(loadLog)}` }
  else {
    const loaded = readHistory(readFileSync(loadPath), 'acp', {})
    const d = compare({ file: 'live.ndjson', ...stream }, { file: 'load.ndjson', ...loaded })
    if (d) settle('load', { result: 'differ', difference: d, data: { streamed: assistants(stream.messages), stored: assistants(loaded.messages) } })
    else settle('load', { result: 'pass', turns: stream.messages.filter((m) => m.role === 'assistant').length })
  }

  const files = FILES[run.tool]
  if (!files) {
    out.checks.files = { result: 'none', why: `no reader of ${run.tool}'s own store here` }
    return
  }
  const id = existsSync(join(dir, 'session-id.txt')) ? readFileSync(join(dir, 'session-id.txt'), 'utf8').trim() : undefined
  const file = id && files.file(sessions, id)
  out.session = file ? relative(dir, file) : undefined
  if (!file) {
    settle('files', { result: 'differ', difference: 'the run wrote no session file', data: { noSession: true } })
    return
  }
  const history = readHistory(readFileSync(file), files.history, { view: 'transcript' })
  const d = compare({ file: 'live.ndjson', ...stream }, { file: out.session, ...history })
  if (d) settle('files', { result: 'differ', difference: d, data: { streamed: assistants(stream.messages), stored: assistants(history.messages) } })
  else settle('files', { result: 'pass', turns: stream.messages.filter((m) => m.role === 'assistant').length })
}
