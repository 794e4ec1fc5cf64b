/**
 * A large OpenCode store (many sessions, a few thousand messages), every session read
 * whole: `loadHistorySync(db, format, { session })` of the row that reads stores, against
 * the fastest JavaScript way to read the same rows that installs here without a compiler —
 * sql.js (SQLite compiled to WebAssembly) querying each session's messages and parts,
 * `JSON.parse` of each row's `data` and the ids merged back, as `opencode export` shows
 * them (better-sqlite3's prebuilt binaries come from outside the npm registry; built from
 * source it needs a C compiler). sql.js reads the database file alone, not its WAL: the
 * store is made here with every row in the database file, so both read the same rows.
 *
 *   node bench/opencode-store.mjs [--quick]
 *
 * Samples are taken in turn in one process; the row prints their medians and the ratio.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = join(fileURLToPath(import.meta.url), '..', '..')
const SCHEMA = readFileSync(join(root, 'tests', 'opencode', 'schema-1.18.33.sql'), 'utf8')

/** An id OpenCode's way: a prefix and a hex time, ascending. */
const id = (prefix, n) => `${prefix}_${n.toString(16).padStart(12, '0')}${'a'.repeat(14)}`

/** The rows of one turn: a user prompt, then an assistant step with reasoning and a shell call, then the answer. */
function turn(db, session, t, n) {
  const user = id('msg', n * 3)
  const step = id('msg', n * 3 + 1)
  const answer = id('msg', n * 3 + 2)
  const message = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)')
  const part = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)')
  const model = { providerID: 'mock', modelID: 'lab-model' }
  const tokens = { total: 1280, input: 1200, output: 80, reasoning: 0, cache: { write: 0, read: 0 } }
  message.run([user, session, t, t, JSON.stringify({ role: 'user', time: { created: t }, agent: 'build', model, summary: { diffs: [] } })])
  part.run([id('prt', n * 10), user, session, t, t, JSON.stringify({ type: 'text', text: `Turn ${n}: list the files here and say what the build prints. ✓` })])
  for (const [m, at, finish] of [[step, t + 1, 'tool-calls'], [answer, t + 2, 'stop']]) {
    message.run([m, session, at, at, JSON.stringify({ parentID: user, role: 'assistant', mode: 'build', agent: 'build', path: { cwd: '/work', root: '/' }, cost: 0, tokens, modelID: 'lab-model', providerID: 'mock', time: { created: at, completed: at + 1 }, finish })])
  }
  const parts = [
    [step, { type: 'step-start' }],
    [step, { type: 'reasoning', text: 'I should run the build and read its output before answering. '.repeat(3), time: { start: t, end: t + 1 } }],
    [step, { type: 'tool', tool: 'bash', callID: `call_${n}`, state: { status: 'completed', input: { command: 'npm run build' }, output: 'compiled 42 files\n'.repeat(20), title: 'npm run build', metadata: { exit: 0, truncated: false }, time: { start: t, end: t + 1 } } }],
    [step, { type: 'step-finish', reason: 'tool-calls', tokens, cost: 0 }],
    [answer, { type: 'step-start' }],
    [answer, { type: 'text', text: 'The build compiled **42 files**; nothing failed. '.repeat(4), time: { start: t, end: t + 1 } }],
    [answer, { type: 'step-finish', reason: 'stop', tokens, cost: 0 }],
  ]
  parts.forEach(([m, data], i) => part.run([id('prt', n * 10 + 1 + i), m, session, t, t, JSON.stringify(data)]))
  message.free()
  part.free()
}

/** A store of `sessions` sessions of `turns` turns each, written to a new folder: its path. */
async function makeStore(SQL, sessions, turns) {
  const db = new SQL.Database()
  db.exec(SCHEMA)
  db.exec("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 1, 1, '[]')")
  db.exec('BEGIN')
  let n = 0
  for (let s = 0; s < sessions; s++) {
    const session = id('ses', s)
    const t = 1_700_000_000_000 + s * 1000
    db.run(
      "INSERT INTO session (id, project_id, slug, directory, path, title, version, summary_additions, summary_deletions, summary_files, permission, agent, model, time_created, time_updated) VALUES (?, 'global', 'calm-sea', '/work', 'work', ?, '1.18.33', 0, 0, 0, '[]', 'build', ?, ?, ?)",
      [session, `Session ${s}`, JSON.stringify({ id: 'lab-model', providerID: 'mock', variant: 'default' }), t, t + 500],
    )
    for (let i = 0; i < turns; i++) turn(db, session, t + i * 10, n++)
  }
  db.exec('COMMIT')
  const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-bench-store-'))
  const file = join(dir, 'opencode.db')
  writeFileSync(file, db.export())
  db.close()
  return { dir, file, messages: n * 3 }
}

/** Every session as `opencode export` shows it, read in JavaScript through sql.js. */
function readAllJs(SQL, file) {
  const db = new SQL.Database(readFileSync(file))
  const sessions = db.exec('SELECT id FROM session ORDER BY time_created, id')[0].values.map(([s]) => s)
  const messages = db.prepare('SELECT id, session_id, data FROM message WHERE session_id = ? ORDER BY time_created, id')
  const parts = db.prepare('SELECT id, message_id, session_id, data FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?) ORDER BY message_id, id')
  let count = 0
  for (const session of sessions) {
    const byMessage = new Map()
    parts.bind([session])
    while (parts.step()) {
      const [pid, mid, sid, data] = parts.get()
      const part = { ...JSON.parse(data), id: pid, sessionID: sid, messageID: mid }
      if (!byMessage.has(mid)) byMessage.set(mid, [])
      byMessage.get(mid).push(part)
    }
    parts.reset()
    messages.bind([session])
    const list = []
    while (messages.step()) {
      const [mid, sid, data] = messages.get()
      list.push({ info: { ...JSON.parse(data), id: mid, sessionID: sid }, parts: byMessage.get(mid) ?? [] })
    }
    messages.reset()
    count += list.length
  }
  messages.free()
  parts.free()
  db.close()
  return count
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Runs the row; prints it. */
export async function runStoreCases({ quick = false } = {}) {
  const native = require('../index.js')
  const initSqlJs = require('sql.js')
  const SQL = await initSqlJs()
  const sessions = quick ? 50 : 400
  const turns = quick ? 2 : 5
  const store = await makeStore(SQL, sessions, turns)
  try {
    const row = native.formats().find((f) => f.store && f.history)
    const runs = quick ? 3 : 9
    const js = []
    const ours = []
    let listed = []
    if (row) listed = native.storeSessions(store.file).sessions.map((s) => s.id)
    for (let i = 0; i < runs + 1; i++) {
      globalThis.gc?.()
      let t = process.hrtime.bigint()
      readAllJs(SQL, store.file)
      const jsMs = Number(process.hrtime.bigint() - t) / 1e6
      if (row) {
        globalThis.gc?.()
        t = process.hrtime.bigint()
        for (const session of listed) native.loadHistorySync(store.file, row.name, { session })
        ours.push(Number(process.hrtime.bigint() - t) / 1e6)
      }
      if (i > 0) js.push(jsMs) // the first run warms up
    }
    if (row) ours.shift()
    const what = `OpenCode store, ${sessions} sessions, ${store.messages} messages, every session read`
    if (row) {
      console.log(`${what}: loadHistorySync ${median(ours).toFixed(1)} ms, sql.js + JSON.parse ${median(js).toFixed(1)} ms (${(median(js) / median(ours)).toFixed(2)}x)`)
    } else {
      console.log(`${what}: sql.js + JSON.parse ${median(js).toFixed(1)} ms; loadHistorySync: no row of this build reads a store`)
    }
  } finally {
    rmSync(store.dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStoreCases({ quick: process.argv.includes('--quick') })
