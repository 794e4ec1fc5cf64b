// Stores of many sessions read from their path (a tool's database, a folder): what the
// binding and the command do whatever rows of the table read stores — a database given as
// bytes refused with a clear error, a session option checked, a session named for a file
// refused, `storeSessions` on what is no store, and every format saying whether it reads one.
import test from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { formats, loadHistory, loadHistorySync, readHistory, storeSessions } from '../index.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-stores-'))
/** The first page of an empty SQLite database: its header, then nothing. */
const database = Buffer.alloc(4096)
database.write('SQLite format 3\0', 'latin1')
const dbFile = join(dir, 'other.db')
writeFileSync(dbFile, database)
const eventsFile = join(dir, 'events.ndjson')
writeFileSync(eventsFile, '{"type":"text-delta","delta":"hi"}\n')
const cli = fileURLToPath(new URL('../bin/agent-chunks.js', import.meta.url))
const storeFormats = formats().filter((f) => f.store).map((f) => f.name)

test('every format says whether it reads a store, and only history formats do', () => {
  for (const format of formats()) {
    assert.equal(typeof format.store, 'boolean', format.name)
    if (format.store) assert.ok(format.history, format.name)
  }
})

test('a database given as bytes is refused: a database is read from its path', async () => {
  const message = /a SQLite database; a database is read from its path \(a string\), not from its bytes/
  assert.throws(() => loadHistorySync(database, 'events'), message)
  await assert.rejects(loadHistory(database, 'events'), message)
  assert.throws(() => readHistory(database, { format: 'events' }), message)
})

test('a database given by its path to a format whose store it is not is refused, naming the formats that read stores', () => {
  assert.throws(() => loadHistorySync(dbFile, 'events'), (error) => {
    assert.match(error.message, /^loadHistorySync: events history, a SQLite database, which is not a events store \(stores are read for: /)
    return true
  })
})

test('options.session must be a string', () => {
  assert.throws(() => loadHistorySync(eventsFile, 'events', { session: 1 }), { name: 'TypeError', message: 'loadHistorySync: options.session must be a string, got number' })
  assert.throws(() => readHistory('{}', { session: {} }), { name: 'TypeError', message: 'readHistory: options.session must be a string, got object' })
})

test('a session named for a history that is one file is refused, not passed over', () => {
  assert.throws(() => loadHistorySync(eventsFile, 'events', { session: 'ses_1' }), /a session \("ses_1"\) chooses one of a store's sessions .* this events history is one file/)
  assert.throws(() => readHistory('{"type":"text-delta","delta":"hi"}\n', { format: 'events', session: 'ses_1' }), /this events history is one file/)
  // Without it, the same file reads.
  assert.equal(loadHistorySync(eventsFile, 'events').length, 1)
})

test('storeSessions: a TypeError for a path that is not a string, an Error for what is no store', () => {
  assert.throws(() => storeSessions(1), { name: 'TypeError', message: 'storeSessions: path must be a string, got number' })
  assert.throws(() => storeSessions(eventsFile), (error) => {
    assert.ok(!(error instanceof TypeError))
    assert.match(error.message, /^storeSessions: .*events\.ndjson is a file that holds no store of sessions this version reads/)
    return true
  })
  if (storeFormats.length === 0) {
    assert.throws(() => storeSessions(dir), /is a folder that holds no store of sessions this version reads \(stores are read for: none in this build\)/)
  }
})

test('the command: --session for a file that is one history is refused; a database no row reads is said', () => {
  const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' })
  const session = run('replay', eventsFile, '--session', 'ses_1')
  assert.equal(session.status, 2, session.stderr)
  assert.match(session.stderr, /this events history is one file/)
  if (storeFormats.length === 0) {
    const db = run('replay', dbFile)
    assert.equal(db.status, 2, db.stderr)
    assert.match(db.stderr, /other\.db is a file that holds no store of sessions this version reads/)
  }
  const help = run('replay', '--help')
  assert.match(help.stdout, /--session ID {3}a store of many sessions/)
})
