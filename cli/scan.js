'use strict'
// agent-chunks scan PATH…: what the library makes of every conversation file under the
// given paths. Each file is read as `replay` reads it (`readConversation`: detection, then
// `readHistory` or `foldStream`); what the reader reports besides the messages (`skipped`
// and any counter a reader adds) is passed on whole, so a new counter shows without a
// change here. Files are read on worker threads, several at once, when there are enough
// of them to pay for the threads.

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
    if (walked && given === undefined) {
      const detected = detectFormat(bytes)
      if (detected.format === undefined) return { file, ignored: detected.problem }
      given = detected.format
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

/** Read a file on the calling thread when the work is too small to pay for threads. */
const THREAD_BYTES = 8 * 1024 * 1024
const THREAD_FILES = 32

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
  if (files.length < THREAD_FILES && bytes < THREAD_BYTES) return 1
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

/** `camelCase` as words: `leftOut` → `left out`. */
const words = (key) => key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()

/**
 * Every counter of a reader's report as text: `skipped 3 (unknown entry type 2, …)`.
 * A number, an array's length, or an object's `count` with its maps of kind → number.
 */
function describeReport(report) {
  const parts = []
  for (const [key, value] of Object.entries(report ?? {})) {
    if (typeof value === 'number') {
      if (value) parts.push(`${words(key)} ${value}`)
    } else if (Array.isArray(value)) {
      if (value.length) parts.push(`${words(key)} ${value.length}`)
    } else if (value && typeof value === 'object') {
      const count = typeof value.count === 'number' ? value.count : undefined
      const kinds = []
      for (const [name, inner] of Object.entries(value)) {
        if (name === 'count') continue
        if (typeof inner === 'number') kinds.push(`${words(name)} ${inner}`)
        else if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
          for (const [kind, n] of Object.entries(inner)) if (typeof n === 'number') kinds.push(`${kind} ${n}`)
        }
      }
      const example = kinds.length === 0 && Array.isArray(value.examples) && value.examples.length ? `e.g. ${value.examples[0]}` : undefined
      if (count) parts.push(`${words(key)} ${count}${kinds.length ? ` (${kinds.join(', ')})` : example ? ` (${example})` : ''}`)
      else if (count === undefined && kinds.length) parts.push(`${words(key)} (${kinds.join(', ')})`)
    }
  }
  return parts.join(', ')
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** A file's line of the text output. */
function describeResult(result) {
  if (result.error) return `${result.file}${result.error.line === undefined ? '' : `:${result.error.line}`}: failed: ${result.error.reason}`
  const notes = describeReport(result.report)
  const calls = result.toolCalls ? `, ${plural(result.toolCalls, 'tool call')} (${result.toolResults} with a result)` : ''
  return `${result.file}: ${result.format}, ${plural(result.messages, 'message')}${calls}${notes ? `; ${notes}` : ''}`
}

/** Adds a report's counters into `into` (numbers summed, maps merged, arrays counted). */
function addReport(into, report) {
  for (const [key, value] of Object.entries(report ?? {})) {
    if (typeof value === 'number') into[key] = (into[key] ?? 0) + value
    else if (Array.isArray(value)) into[key] = (into[key] ?? 0) + value.length
    else if (value && typeof value === 'object') {
      const total = (into[key] ??= {})
      for (const [name, inner] of Object.entries(value)) {
        if (typeof inner === 'number') total[name] = (total[name] ?? 0) + inner
        else if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
          const map = (total[name] ??= {})
          for (const [kind, n] of Object.entries(inner)) if (typeof n === 'number') map[kind] = (map[kind] ?? 0) + n
        }
      }
    }
  }
}

/** The totals of the results. */
function summarize(results) {
  const summary = { files: 0, read: 0, failed: 0, ignored: 0, messages: 0, toolCalls: 0, toolResults: 0, formats: {}, report: {}, filesWith: {} }
  for (const result of results) {
    if (result.ignored !== undefined) {
      summary.ignored++
      continue
    }
    summary.files++
    if (result.error) {
      summary.failed++
      continue
    }
    summary.read++
    summary.messages += result.messages
    summary.toolCalls += result.toolCalls
    summary.toolResults += result.toolResults
    summary.formats[result.format] = (summary.formats[result.format] ?? 0) + 1
    addReport(summary.report, result.report)
    for (const key of Object.keys(result.report ?? {})) if (describeReport({ [key]: result.report[key] })) summary.filesWith[key] = (summary.filesWith[key] ?? 0) + 1
  }
  return summary
}

/** The summary's lines of the text output. */
function describeSummary(summary) {
  const lines = []
  lines.push(
    `${plural(summary.files, 'file')}: ${summary.read} read, ${summary.failed} failed` +
      (summary.ignored ? ` (and ${plural(summary.ignored, '.json file')} that ${summary.ignored === 1 ? 'is' : 'are'} not a conversation)` : ''),
  )
  if (summary.read) {
    const formats = Object.entries(summary.formats).map(([name, n]) => `${name} ${n}`).join(', ')
    lines.push(`${plural(summary.messages, 'message')}, ${plural(summary.toolCalls, 'tool call')} (${summary.toolResults} with a result); formats: ${formats}`)
  }
  for (const [key, value] of Object.entries(summary.report)) {
    const text = describeReport({ [key]: value })
    if (text) lines.push(`${text}, in ${plural(summary.filesWith[key] ?? 0, 'file')}`)
  }
  return lines
}

module.exports = { collect, scanFile, scanAll, threadsFor, summarize, describeResult, describeSummary, describeReport }
