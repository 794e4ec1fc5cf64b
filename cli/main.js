'use strict'
// agent-chunks COMMAND …: arguments, the four commands, and how they end (0 done, 1 a
// check found a difference, 2 bad input or usage).

const path = require('node:path')
const { parseArgs } = require('node:util')

const native = require('../index.js')
const { describeCheck } = require('./check')
const { convert, targetNames } = require('./convert')
const { InputError, UsageError } = require('./errors')
const { withInput, writeOutput } = require('./files')
const { formatNames, isStore, lockstep, readConversation, readHistory, readStoreSession, readStream } = require('./formats')
const { HELP } = require('./help')
const { renderPage } = require('./page')
const { createProgress } = require('./progress')
const scan = require('./scan')
const scanReport = require('./scan-report')
const { renderText } = require('./terminal')
const { oneLine } = require('./text')

const COMMON = { help: { type: 'boolean', short: 'h' }, debug: { type: 'boolean' } }

const OPTIONS = {
  replay: {
    format: { type: 'string' },
    json: { type: 'boolean' },
    unified: { type: 'boolean' },
    timeline: { type: 'boolean' },
    now: { type: 'string' },
    full: { type: 'boolean' },
    strict: { type: 'boolean' },
    leaf: { type: 'string' },
    session: { type: 'string' },
    view: { type: 'string' },
    all: { type: 'boolean' },
    color: { type: 'boolean' },
    'no-color': { type: 'boolean' },
  },
  convert: { to: { type: 'string' }, output: { type: 'string', short: 'o' }, format: { type: 'string' }, now: { type: 'string' }, strict: { type: 'boolean' }, leaf: { type: 'string' }, session: { type: 'string' }, view: { type: 'string' }, all: { type: 'boolean' } },
  check: { 'stream-format': { type: 'string' }, 'history-format': { type: 'string' }, strict: { type: 'boolean' } },
  view: { output: { type: 'string', short: 'o' }, format: { type: 'string' }, title: { type: 'string' }, strict: { type: 'boolean' }, leaf: { type: 'string' }, session: { type: 'string' }, view: { type: 'string' }, all: { type: 'boolean' } },
  scan: { format: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, strict: { type: 'boolean' }, jobs: { type: 'string', short: 'j' }, view: { type: 'string' }, all: { type: 'boolean' } },
}

const POSITIONALS = { replay: ['FILE'], convert: ['FILE'], check: ['STREAM', 'HISTORY'], view: ['FILE'], scan: [] }
/** Commands whose last positional may be given any number of times (at least once). */
const VARIADIC = new Set(['scan'])
/** Commands whose positionals may all be left out (scan: the tools' own session folders). */
const OPTIONAL = new Set(['scan'])

/** The command's options and positionals; a UsageError for anything else. */
function parse(command, args) {
  let parsed
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...OPTIONS[command] }, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(usageMessage(error), command)
  }
  const { values, positionals } = parsed
  if (values.help) return { help: true }
  for (const name of ['format', 'stream-format', 'history-format']) formatOption(values, name, command)
  const wanted = POSITIONALS[command]
  if (positionals.length < wanted.length && !(OPTIONAL.has(command) && positionals.length === 0)) throw new UsageError(`${command} needs ${wanted.slice(positionals.length).join(' and ')}`, command)
  if (positionals.length > wanted.length && !VARIADIC.has(command)) throw new UsageError(`${command} takes ${wanted.join(' ')}; unexpected ${positionals.slice(wanted.length).join(' ')}`, command)
  return { values, positionals }
}

function usageMessage(error) {
  const option = /'(--?[\w-]+)/.exec(error.message)?.[1]
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return /argument missing/.test(error.message) ? `option ${option} needs a value` : `option ${option} takes no value`
  return error.message
}

function clock(values, command) {
  if (values.now === undefined) return undefined
  const now = Number(values.now)
  if (values.now.trim() === '' || !Number.isFinite(now)) throw new UsageError(`--now must be milliseconds since the epoch, got ${JSON.stringify(values.now)}`, command)
  return now
}

/** A format option's value, checked. */
function formatOption(values, name, command) {
  const format = values[name]
  if (format !== undefined && !formatNames.includes(format)) {
    throw new UsageError(`--${name} must be one of ${formatNames.join(', ')}, got ${JSON.stringify(format)}`, command)
  }
  return format
}

const pretty = (value) => `${JSON.stringify(value, null, 2)}\n`

/** What a reader skipped, said on stderr (nothing when it skipped nothing). */
function noteSkipped(file, skipped, stderr) {
  if (!skipped?.count) return
  const lines = skipped.count === 1 ? '1 line' : `${skipped.count} lines`
  stderr.write(`${oneLine(`note: ${file}: ${lines} skipped (unknown to this version or unreadable; --strict refuses them): ${skipped.examples.join('; ')}${skipped.count > skipped.examples.length ? '; …' : ''}`)}\n`)
}

/** What a reader left out of the conversation, and why, said on stderr. */
function noteLeftOut(file, leftOut, stderr) {
  if (!leftOut?.count) return
  const entries = leftOut.count === 1 ? '1 entry' : `${leftOut.count} entries`
  const reasons = Object.entries(leftOut.reasons).map(([reason, n]) => `${n} ${reason}`).join(', ')
  stderr.write(`${oneLine(`note: ${file}: ${entries} left out (${reasons}; --all reads every entry): ${leftOut.examples.join('; ')}${leftOut.count > leftOut.examples.length ? '; …' : ''}`)}\n`)
}

const VIEWS = ['resumed', 'transcript', 'all']

/** The view option (`--all` is `--view all`), checked. */
function viewOption(values, command) {
  if (values.all && values.view !== undefined && values.view !== 'all') throw new UsageError(`--all and --view ${values.view} cannot be used together`, command)
  const view = values.all ? 'all' : values.view
  if (view !== undefined && !VIEWS.includes(view)) throw new UsageError(`--view must be one of ${VIEWS.join(', ')}, got ${JSON.stringify(view)}`, command)
  return view
}

/** Reads FILE's conversation with the command's options, noting what was skipped and left out. */
function conversation(file, values, io, command) {
  const options = { strict: values.strict, leaf: values.leaf, session: values.session, view: viewOption(values, command) }
  // A tool's store of many sessions (a database, a folder) is read from its path, a session at a time.
  if (isStore(file)) {
    try {
      return readStoreSession(file, values.format, options)
    } catch (error) {
      throw error instanceof InputError ? error.at(file) : error
    }
  }
  const read = withInput(file, io.stderr, (bytes, progress) => readConversation(bytes, values.format, { progress, ...options }))
  noteSkipped(file, read.skipped, io.stderr)
  noteLeftOut(file, read.leftOut, io.stderr)
  return read
}

function replayText(file, format, messages, values, io) {
  const colour = values['no-color'] ? false : values.color ? true : Boolean(io.stdout.isTTY) && !io.env.NO_COLOR
  const title = `${file} · ${format} · ${messages.length} message${messages.length === 1 ? '' : 's'}`
  io.stdout.write(`${renderText(messages, { colour, full: values.full, title })}\n`)
}

/** `--jobs N`, checked: a whole number of threads from 1 to 64. */
function jobsOption(values) {
  if (values.jobs === undefined) return undefined
  const jobs = Number(values.jobs)
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64 || values.jobs.trim() !== String(jobs)) {
    throw new UsageError(`--jobs must be a whole number from 1 to 64, got ${JSON.stringify(values.jobs)}`, 'scan')
  }
  return jobs
}

/** The commands; each returns its exit status (or a promise of it), or nothing for 0. */
const COMMANDS = {
  replay({ values, positionals: [file] }, io) {
    const modes = ['json', 'unified', 'timeline'].filter((mode) => values[mode])
    if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} cannot be used together`, 'replay')
    const now = clock(values, 'replay')
    const { format, messages } = conversation(file, values, io, 'replay')
    if (values.json) {
      io.stdout.write(pretty(messages))
    } else if (values.unified) {
      io.stdout.write(pretty(native.toUnifiedMessages(messages, now === undefined ? {} : { now })))
    } else if (values.timeline) {
      const timelines = messages
        .filter((message) => message.role === 'assistant')
        .map((message) => ({ messageId: message.id, groups: native.buildTimeline(message.chunks, { finished: true }) }))
      io.stdout.write(pretty(timelines))
    } else {
      replayText(file, format, messages, values, io)
    }
  },

  convert({ values, positionals: [file] }, io) {
    if (values.to === undefined) throw new UsageError('convert needs --to TARGET', 'convert')
    if (!targetNames.includes(values.to)) throw new UsageError(`--to must be one of ${targetNames.join(', ')}, got ${JSON.stringify(values.to)}`, 'convert')
    const now = clock(values, 'convert')
    const { messages } = conversation(file, values, io, 'convert')
    const { text, notes } = convert(messages, values.to, { now })
    writeOutput(values.output, text, io.stdout)
    for (const note of notes) io.stderr.write(`note: ${note}\n`)
  },

  check({ values, positionals: [streamFile, historyFile] }, io) {
    const strict = values.strict
    const stream = withInput(streamFile, io.stderr, (bytes, progress) => readStream(bytes, values['stream-format'], { progress, strict }))
    // A stream holds all it streamed, compaction and all: it is checked against the
    // history's whole current branch, not the part a resumed session starts from.
    const history = withInput(historyFile, io.stderr, (bytes, progress) => readHistory(bytes, values['history-format'], { progress, strict, view: 'transcript' }))
    noteSkipped(streamFile, stream.skipped, io.stderr)
    noteSkipped(historyFile, history.skipped, io.stderr)
    const aside = lockstep(stream, history)
    const compared = aside ? { ...history, messages: aside.history, setAside: aside.notes, read: history.messages.length } : history
    const { agree, report } = describeCheck({ file: streamFile, ...stream }, { file: historyFile, ...compared })
    io.stdout.write(report)
    return agree ? 0 : 1
  },

  async scan({ values, positionals }, io) {
    const jobs = jobsOption(values)
    // No folder given: the folders where the tools it reads keep their sessions.
    let paths = positionals
    if (!paths.length) {
      paths = scan.defaultFolders(io.env ?? process.env)
      io.stderr.write(paths.length ? `scanning ${paths.join(', ')}\n` : 'no session folder of a tool this version reads is on this machine\n')
    }
    const { files, failures } = scan.collect(paths)
    if (!values.json && failures.length) io.stdout.write(failures.map((failure) => `${scanReport.describeResult(failure)}\n`).join(''))
    const results = new Array(files.length)
    const progress = files.length > 1 ? createProgress({ size: files.length, stream: io.stderr, threshold: 1 }) : createProgress({ size: 0, stream: io.stderr })
    progress.stage('scanning', files.length)
    // Each file's line is printed in order, as soon as every file before it is done.
    let printed = 0
    let done = 0
    const flush = () => {
      let text = ''
      while (printed < results.length && results[printed] !== undefined) {
        const result = results[printed++]
        if (!values.json && result.ignored === undefined && !(values.quiet && !result.error)) text += `${scanReport.describeResult(result)}\n`
      }
      if (text) {
        progress.end()
        io.stdout.write(text)
      }
    }
    const options = { format: values.format, strict: values.strict, view: viewOption(values, 'scan') }
    await scan.scanAll(files, options, scan.threadsFor(files, jobs), (index, result) => {
      results[index] = result
      flush()
      progress.update(++done)
    })
    progress.end()
    const all = [...failures, ...results]
    const summary = scanReport.summarize(all)
    if (values.json) {
      io.stdout.write(pretty({ files: all, summary }))
    } else {
      io.stdout.write(scanReport.describeSummary(summary).map((line) => `${line}\n`).join(''))
    }
    return summary.failed ? 1 : 0
  },

  view({ values, positionals: [file] }, io) {
    const { format, messages } = conversation(file, values, io, 'view')
    const title = values.title ?? (file === '-' ? 'conversation' : path.basename(file))
    writeOutput(values.output, renderPage(messages, { title, format }), io.stdout)
  },
}

/**
 * Runs the command line `argv` (without node and the script) and returns the exit
 * status; errors are printed on `io.stderr` in one line.
 */
function main(argv, io = { stdout: process.stdout, stderr: process.stderr, env: process.env }) {
  const debug = argv.includes('--debug')
  const [command, ...args] = argv
  const fail = (error) => {
    if (error instanceof UsageError) {
      io.stderr.write(`agent-chunks: ${error.message} (see agent-chunks ${error.command ? `${error.command} ` : ''}--help)\n`)
    } else if (error instanceof InputError) {
      io.stderr.write(`${oneLine(error.describe())}\n`)
    } else {
      io.stderr.write(`agent-chunks: internal error: ${error.message}${debug ? '' : ' (--debug shows where)'}\n`)
    }
    if (debug) io.stderr.write(`${(error.cause ?? error).stack ?? error.stack}\n`)
    return 2
  }
  try {
    if (command === undefined) throw new UsageError('a command is needed: replay, convert, check, view or scan')
    if (command === '-h' || command === '--help' || command === 'help') {
      io.stdout.write(HELP.main)
      return 0
    }
    if (command === '--version') {
      io.stdout.write(`${require('../package.json').version}\n`)
      return 0
    }
    if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command ${JSON.stringify(command)} (commands: replay, convert, check, view, scan)`)
    const parsed = parse(command, args)
    if (parsed.help) {
      io.stdout.write(HELP[command])
      return 0
    }
    const status = COMMANDS[command](parsed, io)
    if (typeof status?.then === 'function') return status.then((value) => value ?? 0, fail)
    return status ?? 0
  } catch (error) {
    return fail(error)
  }
}

module.exports = { main }
