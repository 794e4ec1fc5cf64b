// The lab's check: for every live stream of a capture, three readings of the same session
// must agree, each compared the way `agent-chunks check` compares:
//
//   live    the stream folded as it arrives (a Conversation fed in pieces) == the stream
//           folded whole (foldStream)
//   reload  the stream's turns == the session file the same run wrote, read by our history
//           reader (the command's check: its assistant messages, the transcript view, and
//           for codex-exec the rollout brought to what the stream carries by `lockstep`)
//   view    our reading of the session file == what the tool itself shows of it (its
//           resume / replay output, kept in the capture as resume.*.json), where it has one
//
// A comparison that differs is looked up in lab/reasons.mjs: a difference of the tool's
// own (it streamed what it never stored, it cut its stdout on exit, …) is named there with
// the test that recognises it; anything else is a difference of ours to fix.
import { createRequire } from 'node:module'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { checkAcpCapture, isAcpTool } from './acp-check.mjs'
import { checkOpencode } from './check-opencode.mjs'
import { codexItem, codexItems, itemsDiffer, messagesDiffer } from './compare.mjs'
import { settler } from './reasons.mjs'

const require = createRequire(import.meta.url)
const native = require('../index.js')
const { lockstep, readHistory, readStream } = require('../cli/formats.js')
const { describeCheck } = require('../cli/check.js')

/** The bytes a live fold is fed at a time: small enough to cut lines and characters. */
const PIECE = 997

/** What each tool family streams and stores, and how its session and its own view are found. */
const FAMILIES = {
  claude: {
    stream: 'claude-stream',
    history: 'claude',
    session: (bytes) => /"session_id":"([^"]+)"/.exec(bytes.toString('utf8'))?.[1],
    file: (sessions, id) => sessions.find((f) => f.endsWith(`/${id}.jsonl`) && !f.includes('/subagents/')),
    view: (dir, id) => sdkMessages(dir, id, 'claude-stream'),
  },
  qwen: {
    stream: 'claude-stream',
    history: 'qwen',
    session: (bytes) => /"session_id":"([^"]+)"/.exec(bytes.toString('utf8'))?.[1],
    file: (sessions, id) => sessions.find((f) => f.endsWith(`/chats/${id}.jsonl`)),
    view: () => undefined,
  },
  copilot: {
    stream: 'copilot',
    history: 'copilot',
    session: (bytes) => /"sessionId":"([^"]+)"/.exec(bytes.toString('utf8'))?.[1],
    file: (sessions, id) => sessions.find((f) => f.endsWith('/events.jsonl') && (id === undefined || f.includes(`/${id}/`))),
    view: (dir, id) => sdkMessages(dir, id, 'copilot'),
  },
  codex: {
    stream: 'codex-exec',
    history: 'codex',
    session: (bytes) => /"thread_id":"([^"]+)"/.exec(bytes.toString('utf8'))?.[1],
    // The run's own rollout: the one named by the thread id, else the one that is not a
    // sub-agent's (older streams carry no thread id).
    file: (sessions, id) =>
      sessions.filter((f) => /rollout-[^/]*\.jsonl?$/.test(f)).find((f) => (id ? f.includes(id) : !isSubagentRollout(f))),
    view: codexView,
    // The TypeScript CLI's `-q` prints the Responses items of each model call, repeated
    // cumulatively: not a stream format, so its rollout has no live side to be compared
    // with (and that version has no app server to show it).
    noStream: (version) => (version.startsWith('0.1.') ? 'the TypeScript CLI prints Responses items, not a stream format' : undefined),
  },
  // Codex driven as GUIs drive it: the client's log of both directions and the server's
  // output alone, each against the rollout, and against the thread as Codex re-reads it
  // (`thread/read`, `thread/resume`) in fresh processes.
  'codex-app-server': {
    stream: 'codex-app-server',
    streams: ['traffic.jsonl', 'stream.jsonl'],
    history: 'codex',
    session: (bytes) => /"method":"thread\/started","params":\{"thread":\{"id":"([^"]+)"/.exec(bytes.toString('utf8'))?.[1],
    file: (sessions, id) => sessions.filter((f) => /rollout-[^/]*\.jsonl$/.test(f)).find((f) => (id ? f.includes(id) : !isSubagentRollout(f))),
    view: codexView,
    rereads: [
      ['read', 'thread-read.jsonl'],
      ['resume', 'thread-resume.jsonl'],
    ],
  },
  pi: {
    stream: 'pi-events',
    history: 'pi',
    session: (bytes) => /^\{"type":"session"[^\n]*"id":"([^"]+)"/.exec(bytes.toString('utf8'))?.[1],
    file: (sessions, id) => sessions.find((f) => f.endsWith('.jsonl') && (id === undefined || f.includes(id))),
    view: piView,
  },
  // Two sessions of one store, four streams: lab/check-opencode.mjs.
  opencode: { own: checkOpencode },
}

export const familyOf = (tool) => (tool.startsWith('copilot') ? 'copilot' : tool === 'kilo' ? 'opencode' : tool)

const isSubagentRollout = (file) => /"subagent"|"thread_spawn"/.test(readFileSync(file, 'utf8').slice(0, 20000))

/** The session files a capture holds (under files/, or beside the streams in a fixture). */
export function sessionFiles(dir) {
  const out = []
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (/\.jsonl?$/.test(name) && /(rollout-|events\.jsonl$|\/chats\/|\/projects\/|\/sessions\/)/.test(p)) out.push(p)
    }
  }
  if (existsSync(join(dir, 'files'))) walk(join(dir, 'files'))
  else for (const name of readdirSync(dir)) if (/^rollout-.*\.jsonl?$/.test(name)) out.push(join(dir, name))
  return out.sort()
}

/** The tool's own view as stream lines of a format we read: Claude's and Copilot's SDKs. */
function sdkMessages(dir, id, format) {
  const file = join(dir, 'resume.sdk-messages.json')
  if (!existsSync(file)) return undefined
  const all = JSON.parse(readFileSync(file, 'utf8'))
  const entries = all[id] ?? (Object.keys(all).length === 1 ? Object.values(all)[0] : undefined)
  if (!Array.isArray(entries)) return undefined
  const folded = native.foldStream(entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { format })
  return { file: 'resume.sdk-messages.json', messages: folded.messages }
}

/** pi's `get_messages` answer, written as the session entries pi keeps them in. */
function piView(dir) {
  const file = join(dir, 'resume.rpc-get_messages.json')
  if (!existsSync(file)) return undefined
  const messages = JSON.parse(readFileSync(file, 'utf8')).answer?.data?.messages
  if (!Array.isArray(messages)) return undefined
  const lines = [{ type: 'session', version: 3, id: 'view', timestamp: '1970-01-01T00:00:00.000Z', cwd: '/' }]
  messages.forEach((message, i) => lines.push({ type: 'message', id: `v${i}`, parentId: i ? `v${i - 1}` : null, timestamp: '1970-01-01T00:00:00.000Z', message }))
  const read = native.readHistory(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { format: 'pi' })
  return { file: 'resume.rpc-get_messages.json', messages: read.messages }
}

/** Codex's app-server `thread/read` answer: turns of items, in Codex's own terms. */
function codexView(dir) {
  const file = join(dir, 'resume.app-server.json')
  if (!existsSync(file)) return undefined
  const thread = JSON.parse(readFileSync(file, 'utf8')).response?.result?.thread
  if (!thread?.turns) return undefined
  // A failed turn's error is the turn's, not an item's.
  const failure = (turn) => (turn.status === 'failed' && turn.error ? [{ type: 'error' }] : [])
  return { file: 'resume.app-server.json', items: thread.turns.flatMap((turn) => [...turn.items.map(codexItem), ...failure(turn)]) }
}

/**
 * The live fold: a Conversation fed the stream in pieces, then ended. A stream whose last
 * line was cut short is refused at its end (a live reader must know); what was folded
 * before stands, and `cut` says why it ended.
 */
function foldLive(bytes, format) {
  const live = new native.Conversation({ format })
  for (let at = 0; at < bytes.length; at += PIECE) live.push(bytes.subarray(at, at + PIECE))
  let cut
  try {
    live.end()
  } catch (error) {
    cut = error.message
  }
  return { messages: JSON.parse(JSON.stringify(live.messages)), cut }
}

/**
 * Checks one capture folder. `run` is its run.json. Every comparison comes out `pass`,
 * `differ` (with the first difference and, when the tool explains it, a reason from
 * lab/reasons.mjs) or `none` (nothing to compare, and why).
 */
export function checkCapture(dir, run) {
  const family = FAMILIES[familyOf(run.tool)]
  const result = { tool: run.tool, version: run.version, scenario: run.scenario, status: run.status, streams: [] }
  if (isAcpTool(run.tool) && (run.status === 'captured' || run.status === 'incomplete')) {
    // The client's traffic logs, live and loaded (lab/acp-check.mjs).
    checkAcpCapture(dir, run, result, sessionFiles(dir))
    return finish(result)
  }
  if (!family) return finish(result, `no reader for ${run.tool}`)
  if (run.status !== 'captured' && run.status !== 'incomplete') return finish(result, `not captured (${run.status})`)
  if (family.own) {
    const ctx = { tool: run.tool, family: familyOf(run.tool), version: run.version, scenario: run.scenario, run }
    const settleWith = (out, extra) => settler(out, { ...ctx, ...extra })
    result.streams = family.own(dir, run, { foldLive, settleWith })
    return finish(result, result.streams.length ? undefined : 'no live stream')
  }
  const sessions = sessionFiles(dir)
  for (const name of family.streams ?? ['stream.jsonl', 'stream.partial.jsonl']) {
    const path = join(dir, name)
    if (!existsSync(path)) continue
    result.streams.push(checkStream({ dir, run, family, sessions, name, bytes: readFileSync(path) }))
  }
  return finish(result, result.streams.length ? undefined : 'no live stream')
}

function checkStream({ dir, run, family, sessions, name, bytes }) {
  const out = { stream: name, checks: {} }
  const ctx = { tool: run.tool, family: familyOf(run.tool), version: run.version, scenario: run.scenario, run, stream: name }
  const settle = settler(out, ctx)
  if (family.noStream?.(run.version)) {
    out.checks.live = { result: 'none', why: family.noStream(run.version) }
    return out
  }

  const stream = readStream(bytes, family.stream, {})
  const live = foldLive(bytes, family.stream)
  const whole = JSON.parse(JSON.stringify(stream.messages))
  ctx.cut = live.cut
  const same = JSON.stringify(live.messages) === JSON.stringify(whole)
  const liveDiff = same ? undefined : (messagesDiffer(live.messages, whole) ?? 'the same roles and chunks, other ids or keys')
  if (liveDiff) settle('live', { result: 'differ', difference: liveDiff, data: {} })
  else if (live.cut) settle('live', { result: 'differ', difference: `the live fold refused the end: ${live.cut}`, data: {} })
  else settle('live', { result: 'pass', messages: whole.length })

  const id = family.session(bytes)
  const file = family.file(sessions, id)
  out.session = file ? relative(dir, file) : undefined
  if (!file) {
    settle('reload', { result: 'differ', difference: 'the run wrote no session file for this stream', data: { noSession: true } })
    out.checks.view = { result: 'none', why: 'no session file' }
    return out
  }
  const sessionBytes = readFileSync(file)
  const history = readHistory(sessionBytes, family.history, { view: 'transcript' })
  const aside = lockstep(stream, history)
  const compared = aside ? { ...history, messages: aside.history, setAside: aside.notes, read: history.messages.length } : history
  const { agree, report } = describeCheck({ file: name, ...stream }, { file: out.session, ...compared })
  if (agree) {
    settle('reload', { result: 'pass', turns: stream.messages.filter((m) => m.role === 'assistant').length, ...(aside ? { setAside: aside.notes } : {}) })
  } else {
    const lines = report.split('\n')
    const at = lines.findIndex((l) => l.startsWith('first difference'))
    const difference = lines.slice(at, at + 4).map((l) => l.trim()).filter((l) => !l.startsWith('this ')).join(' | ')
    const pick = (messages) => JSON.parse(JSON.stringify(messages.filter((m) => m.role === 'assistant')))
    settle('reload', { result: 'differ', difference, data: { streamed: pick(stream.messages), stored: pick(compared.messages) } })
  }

  // The thread as the tool re-reads it, against the live fold, as `agent-chunks check` compares them.
  for (const [check, reread] of family.rereads ?? []) {
    const path = join(dir, reread)
    if (!existsSync(path)) {
      out.checks[check] = { result: 'none', why: `no ${reread}` }
      continue
    }
    // A version whose answer holds no turns (thread/read is newer than the v2 server, and
    // thread/resume answered without turns at first) has nothing to compare.
    const answer = JSON.parse(readFileSync(path, 'utf8'))
    if (!Array.isArray(answer.result?.thread?.turns)) {
      out.checks[check] = { result: 'none', why: `${reread} holds no turns${answer.error ? ` (${answer.error.message})` : ''}` }
      continue
    }
    const again = readHistory(readFileSync(path), family.stream, { view: 'transcript' })
    const asideAgain = lockstep(stream, again)
    const comparedAgain = asideAgain ? { ...again, messages: asideAgain.history, setAside: asideAgain.notes, read: again.messages.length } : again
    const { agree: same, report: said } = describeCheck({ file: name, ...stream }, { file: reread, ...comparedAgain })
    if (same) settle(check, { result: 'pass', turns: again.messages.filter((m) => m.role === 'assistant').length, ...(asideAgain?.notes.length ? { setAside: asideAgain.notes } : {}) })
    else {
      const lines = said.split('\n')
      const at = lines.findIndex((l) => l.startsWith('first difference'))
      const pick = (messages) => JSON.parse(JSON.stringify(messages))
      settle(check, { result: 'differ', difference: lines.slice(at, at + 4).map((l) => l.trim()).join(' | '), data: { streamed: pick(stream.messages), stored: pick(comparedAgain.messages) } })
    }
  }

  const view = family.view(dir, id)
  if (!view) {
    const why = readdirSync(dir).some((n) => n.startsWith('resume.')) ? 'the tool gave no view of it' : 'no view of the tool captured'
    out.checks.view = { result: 'none', why }
    return out
  }
  const reload = JSON.parse(JSON.stringify(readHistory(sessionBytes, family.history, {}).messages))
  if (view.items) {
    const ours = codexItems(reload)
    const d = itemsDiffer(ours, view.items)
    settle('view', d ? { result: 'differ', difference: d, data: { ours, theirs: view.items } } : { result: 'pass', items: ours.length })
  } else {
    const theirs = JSON.parse(JSON.stringify(view.messages))
    const d = messagesDiffer(reload, theirs)
    settle('view', d ? { result: 'differ', difference: d, data: { ours: reload, theirs } } : { result: 'pass', messages: reload.length })
  }
  return out
}

/** A capture's verdict: pass, explained (every difference has a reason), differ, or none. */
function finish(result, none) {
  if (none) {
    result.verdict = 'none'
    result.why = none
    return result
  }
  const checks = result.streams.flatMap((s) => Object.values(s.checks))
  if (checks.every((c) => c.result === 'none')) {
    result.verdict = 'none'
    result.why = checks.map((c) => c.why).join('; ')
    return result
  }
  if (checks.some((c) => c.result === 'differ' && !c.reason)) result.verdict = 'differ'
  else if (checks.some((c) => c.result === 'differ')) result.verdict = 'explained'
  else result.verdict = 'pass'
  return result
}

/** A capture's result in a few lines of text. */
export function describeResult(r) {
  const head = `${r.tool} ${r.version} ${r.scenario}: ${r.verdict}${r.why ? ` (${r.why})` : ''}`
  const lines = [head]
  for (const s of r.streams) {
    for (const [check, c] of Object.entries(s.checks)) {
      if (c.result === 'pass') continue
      const what = c.result === 'none' ? `none — ${c.why}` : `${c.reason ? `differ, ${c.reason}` : 'DIFFER'} — ${c.difference}`
      lines.push(`  ${s.stream} ${check}: ${what}`)
    }
  }
  return lines.join('\n')
}
