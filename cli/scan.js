'use strict'
// agent-chunks scan PATH…: finding the conversation files under the given paths and reading
// each as `replay` reads it (`readConversation`: detection, then `readHistory` or
// `foldStream`). What the reader reports besides the messages (`skipped` and any counter a
// reader adds) is passed on whole. Files are read on worker threads, several at once, when
// there are enough of them to pay for the threads.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Worker } = require('node:worker_threads')

const { detectFormat, formats, loadHistorySync, storeSessions } = require('../index.js')
const { InputError } = require('./errors')
const { readProblem } = require('./files')
const { readConversation } = require('./formats')

/** Files a directory walk takes: these always, `.json` only when its format is told. */
const WALKED = new Set(['.jsonl', '.ndjson', '.sse'])
const WALKED_IF_TOLD = new Set(['.json'])

/**
 * A directory entry's path as bytes: a name that is not UTF-8 (Linux allows any bytes
 * but `/` and NUL) has no string that opens it, as the string Node decodes it to holds
 * U+FFFD where its bytes were.
 */
const SEPARATOR = Buffer.from(path.sep)
const joinBytes = (dir, name) => Buffer.concat(dir.at(-1) === SEPARATOR[0] ? [dir, name] : [dir, SEPARATOR, name])

/** A path's bytes shown as text (bytes that are not UTF-8 as U+FFFD). */
const shown = (bytes) => bytes.toString()

/** Files a walk takes as stores of many sessions when their content says so (a database). */
const WALKED_STORES = new Set(['.db'])

/**
 * The sessions of the store at `where` as entries to scan, one per session (a sub-agent's
 * named as such, after the session that started it); `undefined` when `where` is no store.
 */
function storeEntries(where, shownPath) {
  let listed
  try {
    listed = storeSessions(where.toString())
  } catch (error) {
    if (error instanceof TypeError) throw error
    return { problem: error.message.replace(/^storeSessions: /, '') }
  }
  const byParent = new Map()
  for (const session of listed.sessions) {
    const key = session.parentId ?? ''
    if (!byParent.has(key)) byParent.set(key, [])
    byParent.get(key).push(session)
  }
  const ids = new Set(listed.sessions.map((s) => s.id))
  const entries = []
  const add = (session, parent) => {
    entries.push({ file: `${shownPath}#${session.id}${parent ? ` (sub-agent of ${parent})` : ''}`, path: where.toString(), session: session.id, format: listed.format })
    for (const child of byParent.get(session.id) ?? []) add(child, session.id)
  }
  // Roots (and sessions whose parent is not in the store) in the store's order, each followed by its sub-agents.
  for (const session of listed.sessions) if (session.parentId === undefined || !ids.has(session.parentId)) add(session, session.parentId)
  return { entries }
}

/**
 * The files under `paths`, in order: each path given (a file whatever its name, or a
 * directory walked, symbolic links followed, each directory once), and the paths that
 * could not be walked, as failed results. A file is `{ file, path, walked }`: `file` the
 * path shown, `path` the one to open (its bytes, for a name found by a walk).
 */
function collect(paths) {
  const files = []
  const failures = []
  const seen = new Set()
  const walk = (dir) => {
    let real
    let entries
    try {
      // The real path's bytes, as a name that is not UTF-8 has no exact string.
      real = fs.realpathSync.native(dir, { encoding: 'buffer' }).toString('latin1')
      if (seen.has(real)) return
      seen.add(real)
      // A folder that is a tool's store of sessions (its database and files) is read as one.
      const store = storeEntries(dir, shown(dir))
      if (store.entries) {
        files.push(...store.entries)
        return
      }
      entries = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })
    } catch (error) {
      failures.push({ file: shown(dir), error: { reason: readProblem(error) } })
      return
    }
    entries.sort((a, b) => Buffer.compare(a.name, b.name))
    for (const entry of entries) {
      const full = joinBytes(dir, entry.name)
      const extension = path.extname(entry.name.toString('latin1')).toLowerCase()
      const conversation = WALKED.has(extension)
      let kind = entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? undefined : 'other'
      if (entry.isSymbolicLink()) {
        try {
          const stat = fs.statSync(full)
          kind = stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'other'
        } catch (error) {
          // A dangling link is a failure only where a conversation file was expected.
          if (conversation) failures.push({ file: shown(full), error: { reason: readProblem(error) } })
          continue
        }
      }
      if (kind === 'directory') walk(full)
      else if (kind === 'file' && WALKED_STORES.has(extension)) {
        // A database of no tool this version reads is passed by, as a .json file of no format is.
        const store = storeEntries(full, shown(full))
        if (store.entries) files.push(...store.entries)
      } else if (kind === 'file' && (conversation || WALKED_IF_TOLD.has(extension))) {
        files.push({ file: shown(full), path: full, walked: !conversation })
      } else if (kind === 'other' && conversation) {
        // A pipe, socket or device named as a conversation is said, not passed by: it
        // may never end, so it is not read.
        failures.push({ file: shown(full), error: { reason: NOT_A_FILE } })
      }
    }
  }
  for (const given of paths) {
    let stat
    try {
      stat = fs.statSync(given)
    } catch (error) {
      failures.push({ file: given, error: { reason: readProblem(error) } })
      continue
    }
    // Shown as path.join shows it: `dir//x/../` is `dir/`.
    if (stat.isDirectory()) walk(Buffer.from(path.normalize(given)))
    // A device or a pipe may never end; scan reads files.
    else if (!stat.isFile()) failures.push({ file: given, error: { reason: NOT_A_FILE } })
    else if (isDatabase(given)) {
      const store = storeEntries(given, given)
      if (store.entries) files.push(...store.entries)
      else failures.push({ file: given, error: { reason: store.problem } })
    } else files.push({ file: given, path: given, walked: false })
  }
  return { files, failures }
}

const NOT_A_FILE = 'not a regular file'

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1')

/** Whether the file at `file` begins as a SQLite database does. */
function isDatabase(file) {
  const head = Buffer.alloc(SQLITE_HEADER.length)
  try {
    const fd = fs.openSync(file, 'r')
    try {
      return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
}

/**
 * The folders where the tools whose files the library reads keep their sessions, as the
 * table of formats names them (`sessions` under `$variable`, else under `~/folder`), each
 * once, those that exist on this machine.
 */
function defaultFolders(env = process.env, home = os.homedir()) {
  const folders = []
  for (const format of formats()) {
    for (const tool of format.homes) {
      const base = tool.variable && env[tool.variable] ? env[tool.variable] : path.join(home, tool.folder)
      for (const sessions of tool.sessions) {
        const where = path.join(base, sessions)
        if (folders.includes(where)) continue
        try {
          if (fs.statSync(where).isDirectory()) folders.push(where)
        } catch {
          // A tool that is not here has no folder to scan.
        }
      }
    }
  }
  return folders
}

/**
 * The bytes of a regular file, or `undefined` for anything else. It is opened without
 * waiting and checked again once open: what the walk saw as a file may have been
 * replaced since by a pipe, whose read would wait for a writer forever. A file that
 * grows while it is read is read to the size it had when it was opened, one that
 * shrinks to its new end.
 */
function readRegular(file) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined
    return fs.readFileSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Counts of a message list: messages (by role), tool calls and the calls with a result. */
function counts(messages) {
  const roles = {}
  let toolCalls = 0
  let toolResults = 0
  for (const message of messages) {
    roles[message.role] = (roles[message.role] ?? 0) + 1
    for (const chunk of message.chunks) {
      if (chunk.type !== 'tool-batch') continue
      for (const call of chunk.calls) {
        toolCalls++
        if (call.result !== undefined) toolResults++
      }
    }
  }
  return { messages: messages.length, roles, toolCalls, toolResults }
}

/**
 * One file scanned: `{ file, format, messages, roles, toolCalls, toolResults, report }`,
 * `{ file, error: { line?, reason } }`, or, for a `.json` file a walk found whose format
 * cannot be told, `{ file, ignored }`. Never throws.
 */
function scanFile({ file, path: where = file, walked, session, format: stored }, { format, strict, view }) {
  if (session !== undefined) {
    // A session of a store, read from the store's path.
    try {
      const given = format ?? stored
      const messages = loadHistorySync(where, given, { session, strict, view })
      return { file, format: given, ...counts(messages), report: {} }
    } catch (error) {
      if (error instanceof TypeError) throw error
      return { file, error: { reason: String(error?.message ?? error).replace(/^loadHistorySync: [\w-]+ history, /, '') } }
    }
  }
  let bytes
  try {
    bytes = readRegular(where)
  } catch (error) {
    return { file, error: { reason: readProblem(error) } }
  }
  if (bytes === undefined) return { file, error: { reason: NOT_A_FILE } }
  try {
    let given = format
    if (walked) {
      // A .json file a walk found is a conversation only when its content says so.
      const detected = detectFormat(bytes)
      if (detected.format === undefined) return { file, ignored: detected.problem }
      given ??= detected.format
    }
    const read = readConversation(bytes, given, { strict, view })
    const report = {}
    for (const [key, value] of Object.entries(read)) if (!['format', 'messages', 'origins'].includes(key)) report[key] = value
    return { file, format: read.format, ...counts(read.messages), report }
  } catch (error) {
    if (error instanceof InputError) return { file, error: error.line === undefined ? { reason: error.message } : { line: error.line, reason: error.message } }
    return { file, error: { reason: `internal error: ${error?.message ?? error}` } }
  }
}

/**
 * Below this many bytes in all, the files are read on the calling thread: starting a
 * worker (and loading the addon into it) costs more than it saves. Measured with the
 * whole command, `-j 2` against `-j 1` on a busy 2-processor machine: 32 MB of files
 * were no faster on threads, 350 MB took 0.71× the time.
 */
const THREAD_BYTES = 64 * 1024 * 1024

/** How many threads to read `files` on: 1 (this thread) for little work. */
function threadsFor(files, jobs) {
  if (jobs !== undefined) return Math.max(1, Math.min(jobs, files.length))
  let bytes = 0
  for (const { file, path: where = file } of files) {
    try {
      bytes += fs.statSync(where).size
    } catch {
      // Its failure is reported when it is read.
    }
  }
  if (bytes < THREAD_BYTES) return 1
  return Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 8, files.length))
}

/**
 * Scans `files`, calling `done(index, result)` as each is read (in any order), on
 * `threads` threads; resolves when all are done. A thread that dies fails the file it was
 * reading and is replaced.
 */
function scanAll(files, options, threads, done) {
  if (threads <= 1) {
    files.forEach((file, index) => done(index, scanFile(file, options)))
    return Promise.resolve()
  }
  return new Promise((resolve) => {
    let next = 0
    let finished = 0
    const start = () => {
      const worker = new Worker(path.join(__dirname, 'scan-worker.js'), { workerData: options })
      let current
      const give = () => {
        if (next >= files.length) {
          current = undefined
          worker.terminate()
          return
        }
        current = next++
        worker.postMessage({ index: current, file: files[current] })
      }
      const settle = (index, result) => {
        done(index, result)
        if (++finished === files.length) resolve()
      }
      worker.on('message', ({ index, result }) => {
        settle(index, result)
        give()
      })
      let problem
      worker.on('error', (error) => {
        problem = error.message
      })
      worker.on('exit', (code) => {
        if (current === undefined) return
        const index = current
        current = undefined
        settle(index, { file: files[index].file, error: { reason: `the reader stopped: ${problem ?? `exit code ${code}`}` } })
        if (next < files.length) start()
      })
      give()
    }
    for (let i = 0; i < threads && next < files.length; i++) start()
  })
}

module.exports = { defaultFolders, collect, scanFile, scanAll, threadsFor }
