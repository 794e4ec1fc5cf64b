// The lab's check for OpenCode and Kilo CLI captures (lab/tools/opencode.mjs). A capture
// holds two sessions of one store: the one `run --format json` made and the one made
// through `serve`'s HTTP API while its event streams were subscribed. For each stream:
//
//   live    the stream pushed into a Conversation in pieces == folded whole
//   reload  the stream's turns == the session reloaded from the store the run left
//           (`opencode.db` + its WAL, or the legacy storage/ tree), that session chosen,
//           compared as `agent-chunks check STREAM STORE` does (the command's lockstep
//           sets aside what the stream cannot carry); reading it must leave the files as
//           they were, byte for byte
//   wal     (run's stream) the same against the store as `run` left it, before anything
//           opened it again: its database file nearly empty, the session in its WAL
//   shown   the stream's turns == what OpenCode itself returns for the session (GET
//           /session/:id/message, resume.messages.<id>.json, read by our reader), compared
//           as reload is
//   view    the store's session == that answer
//   export  the store's session == `opencode export <id>` (resume.export.<id>.json)
//
// and every other session the store holds (a sub-agent's, `parent_id`) by view and export.
//
// Rows: `opencode-run`, `opencode-events`, `opencode-global` (streams; Kilo's /api/event
// goes to whichever row detection names) and `opencode` (the store, the export and the
// GET answer). Where a row is not in this build, the comparison is `none`, saying so.
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { messagesDiffer } from './compare.mjs'

const require = createRequire(import.meta.url)
const native = require('../index.js')
const { lockstep, readHistory, readStream, historyFormats, streamFormats } = require('../cli/formats.js')
const { describeCheck } = require('../cli/check.js')

/** The streams a capture may hold, the row that reads each, and whose session it is. */
export const OPENCODE_STREAMS = [
  { file: 'stream.jsonl', format: 'opencode-run', of: 'run' },
  { file: 'stream.event.sse', format: 'opencode-events', of: 'serve' },
  { file: 'stream.global.sse', format: 'opencode-global', of: 'serve' },
  // Kilo's /api/event ({id, type, durable, location, data}): the row detection names.
  { file: 'stream.api.sse', format: undefined, of: 'serve' },
]

const STORE = 'opencode'

/** The session the run's stream is of: the first sessionID of `run --format json`. */
const runSession = (text) => /"sessionID":"(ses_[^"]+)"/.exec(text)?.[1]

/**
 * The session made through the API: the one session.created names in /event, else (0.5,
 * whose stream starts with session.updated) the first session it names that is not the run's.
 */
function serveSession(dir, run) {
  for (const name of ['stream.event.sse', 'stream.global.sse', 'stream.api.sse']) {
    const p = join(dir, name)
    if (!existsSync(p)) continue
    const text = readFileSync(p, 'utf8')
    // properties.sessionID, or (before 1.2) only properties.info.id
    const m = /"type":"session\.created"[^\n]*?"(?:sessionID|id)":"(ses_[^"]+)"/.exec(text)
    if (m) return m[1]
    const named = [...text.matchAll(/"(?:sessionID|id)":"(ses_[^"]+)"/g)].map((x) => x[1]).find((id) => id !== run)
    if (named) return named
  }
  return undefined
}

/**
 * Where the store of a capture is: the database under files/<folder> (data: as the runs
 * left it; after-run: as `run` left it, before `serve` opened it), else the legacy JSON
 * tree's storage folder.
 */
export function storeOf(dir, folder = 'data') {
  for (const base of [join(dir, 'files', folder)]) {
    if (!existsSync(base)) continue
    const db = readdirSync(base).find((n) => /^(opencode|kilo)(-[\w.-]+)?\.db$/.test(n))
    if (db) return { kind: 'db', path: join(base, db), files: ['', '-wal', '-shm'].map((x) => join(base, db + x)).filter(existsSync) }
    if (existsSync(join(base, 'storage'))) return { kind: 'legacy', path: join(base, 'storage'), files: walk(join(base, 'storage')) }
    // OpenCode 0.5: project/<the folder's slug>/storage/session/{info,message,part}/…
    const project = existsSync(join(base, 'project')) ? readdirSync(join(base, 'project')).find((n) => existsSync(join(base, 'project', n, 'storage'))) : undefined
    if (project) return { kind: 'legacy', path: join(base, 'project', project, 'storage'), files: walk(join(base, 'project', project, 'storage')) }
  }
  return undefined
}

function walk(d, out = []) {
  for (const name of readdirSync(d)) {
    const p = join(d, name)
    if (statSync(p).isDirectory()) walk(p, out)
    else out.push(p)
  }
  return out.sort()
}

const digest = (files) => {
  const h = createHash('sha256')
  for (const f of files) h.update(f).update(readFileSync(f))
  return h.digest('hex')
}

/** The session reloaded from the store, and whether reading it left the files as they were. */
function reloadStore(store, session, view) {
  const before = digest(store.files)
  const messages = native.loadHistorySync(store.path, STORE, { session, ...(view ? { view } : {}) })
  const after = digest(store.files)
  return { messages: JSON.parse(JSON.stringify(messages)), unchanged: before === after }
}

/**
 * Checks an OpenCode / Kilo capture. `tools` are the check's own helpers (the live fold, a
 * difference settled with its reason); the result's streams are as lab/check.mjs's.
 */
export function checkOpencode(dir, run, { foldLive, settleWith }) {
  const streams = []
  const store = storeOf(dir)
  const runStream = join(dir, 'stream.jsonl')
  const run0 = existsSync(runStream) ? runSession(readFileSync(runStream, 'utf8')) : undefined
  const ids = { run: run0, serve: serveSession(dir, run0) }
  for (const spec of OPENCODE_STREAMS) {
    const path = join(dir, spec.file)
    if (!existsSync(path)) continue
    const bytes = readFileSync(path)
    const out = { stream: spec.file, checks: {} }
    streams.push(out)
    const settle = settleWith(out, { stream: spec.file })
    let format = spec.format
    if (format === undefined) {
      const detected = native.detectFormat(bytes)
      format = detected.format
      if (!format) {
        out.checks.live = { result: 'none', why: `no row reads it: ${detected.problem}` }
        continue
      }
    }
    if (!streamFormats.includes(format)) {
      out.checks.live = { result: 'none', why: `no ${format} row in this build` }
      continue
    }
    out.format = format
    let stream
    try {
      stream = readStream(bytes, format, {})
    } catch (error) {
      settle('live', { result: 'differ', difference: `foldStream refused it: ${error.message}`, data: {} })
      continue
    }
    const live = foldLive(bytes, format)
    const whole = JSON.parse(JSON.stringify(stream.messages))
    const liveDiff = JSON.stringify(live.messages) === JSON.stringify(whole) ? undefined : (messagesDiffer(live.messages, whole) ?? 'the same roles and chunks, other ids or keys')
    if (liveDiff) settle('live', { result: 'differ', difference: liveDiff, data: { cut: live.cut } })
    else if (live.cut) settle('live', { result: 'differ', difference: `the live fold refused the end: ${live.cut}`, data: { cut: live.cut } })
    else settle('live', { result: 'pass', messages: whole.length })

    const session = ids[spec.of]
    out.session = session
    if (!session) {
      settle('reload', { result: 'differ', difference: `no ${spec.of} session named in the capture`, data: {} })
      continue
    }
    if (!historyFormats.includes(STORE)) {
      out.checks.reload = { result: 'none', why: `no ${STORE} history row in this build` }
      continue
    }
    const theirs = theirsOf(dir, session)
    // shown: the stream against OpenCode's own answer for the session.
    if (theirs.view?.messages) settle('shown', against(stream, spec.file, { format: STORE, messages: theirs.view.messages }, theirs.view.name))
    else out.checks.shown = { result: 'none', why: theirs.view?.error ?? `no resume.messages.${session}.json` }

    // reload: the stream against the store's session, which reading must not change.
    if (!store) {
      settle('reload', { result: 'differ', difference: 'the run left no store (no database, no storage/ tree)', data: { noSession: true } })
      continue
    }
    let stored
    try {
      stored = reloadStore(store, session, 'transcript')
    } catch (error) {
      settle('reload', { result: 'differ', difference: `loadHistory(${relative(dir, store.path)}, 'opencode', { session }) refused it: ${error.message}`, data: {} })
      continue
    }
    if (!stored.unchanged) {
      settle('reload', { result: 'differ', difference: `reading ${relative(dir, store.path)} changed its files`, data: {} })
      continue
    }
    settle('reload', against(stream, spec.file, { format: STORE, messages: stored.messages }, `${relative(dir, store.path)} (session ${session})`))
    // The run's stream also against the store as `run` left it: a database that is nearly all
    // WAL (its main file 4 KB), read without checkpointing it.
    const early = spec.of === 'run' ? storeOf(dir, 'after-run') : undefined
    if (early) {
      try {
        const first = reloadStore(early, session, 'transcript')
        if (!first.unchanged) settle('wal', { result: 'differ', difference: `reading ${relative(dir, early.path)} changed its files`, data: {} })
        else settle('wal', against(stream, spec.file, { format: STORE, messages: first.messages }, `${relative(dir, early.path)} (session ${session})`))
      } catch (error) {
        settle('wal', { result: 'differ', difference: `loadHistory(${relative(dir, early.path)}, 'opencode', { session }) refused it: ${error.message}`, data: {} })
      }
    }

    compareViews(store, session, theirs, out, settle)
  }
  // The store's other sessions (a sub-agent's: parent_id) against what OpenCode returned for them.
  if (store && historyFormats.includes(STORE)) {
    const compared = new Set(streams.map((s) => s.session))
    for (const session of readdirSync(dir).map((n) => /^resume\.messages\.(.+)\.json$/.exec(n)?.[1]).filter(Boolean)) {
      if (compared.has(session)) continue
      const out = { stream: `session ${session}`, session, checks: {} }
      streams.push(out)
      compareViews(store, session, theirsOf(dir, session), out, settleWith(out, { stream: out.stream }))
    }
  }
  return streams
}

/** What OpenCode itself returned for a session (GET /session/:id/message, export), read by our reader. */
function theirsOf(dir, session) {
  const theirs = {}
  for (const [check, name] of [
    ['view', `resume.messages.${session}.json`],
    ['export', `resume.export.${session}.json`],
  ]) {
    const file = join(dir, name)
    if (!existsSync(file) || statSync(file).size === 0) continue
    try {
      theirs[check] = { name, messages: JSON.parse(JSON.stringify(readHistory(readFileSync(file), STORE, {}).messages)) }
    } catch (error) {
      theirs[check] = { name, error: `${name}: ${error.message}` }
    }
  }
  return theirs
}

/** view, export: the store's session against what OpenCode returned for it. */
function compareViews(store, session, theirs, out, settle) {
  let reload
  try {
    reload = reloadStore(store, session).messages
  } catch (error) {
    settle('view', { result: 'differ', difference: `the store's session in the default view: ${error.message}`, data: {} })
    return
  }
  for (const check of ['view', 'export']) {
    const t = theirs[check]
    if (!t) out.checks[check] = { result: 'none', why: `OpenCode gave no ${check === 'view' ? 'GET /session/:id/message answer' : 'export'}` }
    else if (t.error) settle(check, { result: 'differ', difference: t.error, data: {} })
    else {
      const d = messagesDiffer(reload, t.messages)
      settle(check, d ? { result: 'differ', difference: d, data: { ours: reload, theirs: t.messages } } : { result: 'pass', messages: reload.length })
    }
  }
}

/**
 * A stream's fold against a session read whole, as `agent-chunks check STREAM HISTORY`
 * compares them (the assistant's turns, after the command's lockstep sets aside what the
 * stream's format cannot carry), and its user messages, where it carries any, as the
 * session has them.
 */
function against(stream, file, history, historyName) {
  const aside = lockstep(stream, history)
  const compared = aside ? { ...history, messages: aside.history, setAside: aside.notes, read: history.messages.length } : history
  const { agree, report } = describeCheck({ file, ...stream }, { file: historyName, skipped: { count: 0 }, ...compared })
  const users = (messages) => JSON.parse(JSON.stringify(messages.filter((m) => m.role === 'user')))
  const userDiff = users(stream.messages).length ? messagesDiffer(users(stream.messages), users(compared.messages)) : undefined
  if (agree && userDiff) return { result: 'differ', difference: `the user's messages: ${userDiff}`, data: { streamed: users(stream.messages), stored: users(compared.messages), users: true } }
  if (agree) return { result: 'pass', turns: stream.messages.filter((m) => m.role === 'assistant').length, ...(aside ? { setAside: aside.notes } : {}) }
  const lines = report.split('\n')
  const at = lines.findIndex((l) => l.startsWith('first difference'))
  const difference = lines.slice(at, at + 4).map((l) => l.trim()).filter((l) => !l.startsWith('this ')).join(' | ')
  const pick = (messages) => JSON.parse(JSON.stringify(messages.filter((m) => m.role === 'assistant')))
  return { result: 'differ', difference, data: { streamed: pick(stream.messages), stored: pick(compared.messages), userMessages: users(stream.messages).length, usersAgree: !userDiff } }
}

