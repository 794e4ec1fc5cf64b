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

const { detectFormat } = require('../index.js')
const { InputError } = require('./errors')
const { readProblem } = require('./files')
const { readConversation } = require('./formats')

/** Files a directory walk takes: these always, `.json` only when its format is told. */
const WALKED = new Set(['.jsonl', '.ndjson', '.sse'])
const WALKED_IF_TOLD = new Set(['.json'])

/**
 * The files under `paths`, in order: each path given (a file whatever its name, or a
 * directory walked, symbolic links followed, each directory once), and the paths that
 * could not be walked, as failed results.
 */
function collect(paths) {
  const files = []
  const failures = []
  const seen = new Set()
  const walk = (dir) => {
    let real
    let entries
    try {
      real = fs.realpathSync(dir)
      if (seen.has(real)) return
      seen.add(real)
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch (error) {
      failures.push({ file: dir, error: { reason: readProblem(error) } })
      return
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      const extension = path.extname(entry.name).toLowerCase()
      let kind = entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : undefined
      if (entry.isSymbolicLink()) {
        try {
          const stat = fs.statSync(full)
          kind = stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : undefined
        } catch (error) {
          // A dangling link is a failure only where a conversation file was expected.
          if (WALKED.has(extension)) failures.push({ file: full, error: { reason: readProblem(error) } })
          continue
        }
      }
      if (kind === 'directory') walk(full)
      else if (kind === 'file' && (WALKED.has(extension) || WALKED_IF_TOLD.has(extension))) {
        files.push({ file: full, walked: !WALKED.has(extension) })
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
    if (stat.isDirectory()) walk(given)
    // A device or a pipe may never end; scan reads files.
    else if (!stat.isFile()) failures.push({ file: given, error: { reason: 'not a regular file' } })
    else files.push({ file: given, walked: false })
  }
  return { files, failures }
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
function scanFile({ file, walked }, { format, strict }) {
  let bytes
  try {
    bytes = fs.readFileSync(file)
  } catch (error) {
    return { file, error: { reason: readProblem(error) } }
  }
  try {
    let given = format
    if (walked) {
      // A .json file a walk found is a conversation only when its content says so.
      const detected = detectFormat(bytes)
      if (detected.format === undefined) return { file, ignored: detected.problem }
      given ??= detected.format
    }
    const read = readConversation(bytes, given, { strict })
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
  for (const { file } of files) {
    try {
      bytes += fs.statSync(file).size
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

module.exports = { collect, scanFile, scanAll, threadsFor }
