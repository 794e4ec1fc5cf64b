'use strict'
// agent-chunks COMMAND …: arguments, the four commands, and how they end (0 done, 1 a
// check found a difference, 2 bad input or usage).

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')

const { InputError, UsageError } = require('./errors')
const { FORMATS, formatNames, readConversation, readHistory, readStream } = require('./formats')
const { convert, targetNames } = require('./convert')
const { describeCheck } = require('./check')
const { renderPage } = require('./page')
const { renderText } = require('./terminal')
const { createProgress } = require('./progress')
const native = require('../index.js')

const formatList = Object.entries(FORMATS)
  .map(([name, what]) => `  ${name.padEnd(11)} ${what}`)
  .join('\n')

const HELP = {
  main: `Usage: agent-chunks COMMAND [options]

Reads AI-agent chat streams and histories into the chunk model, to show them and to
find out why a live stream and its reloaded history differ.

Commands:
  replay FILE             print the conversation in FILE
  convert FILE --to T     write it as events, pi, sn or unified
  check STREAM HISTORY    exit 0 when the folded stream equals the history, else
                          print the first difference and exit 1
  view FILE -o PAGE       write it as a self-contained HTML page

Run agent-chunks COMMAND --help for a command's options.

Formats (detected from the content; --format overrides):
${formatList}

Options:
  -h, --help   this help
  --version    the version
  --debug      show stack traces of errors

Inputs of 4 MiB or more show a progress bar on standard error when it is a terminal.
Exit status: 0 done, 1 check found a difference, 2 bad input or usage.
`,
  replay: `Usage: agent-chunks replay FILE [options]

Prints the conversation in FILE: who speaks, thinking (dimmed), tool calls with their
status, arguments and results, errors and notices. A stream is folded as a chat UI folds
it live, one assistant message per turn. Colour only on a terminal, and not with NO_COLOR.
FILE - reads standard input.

Options:
  --format F     the format of FILE (${formatNames.join(', ')})
  --json         print the ChatMessage[] as JSON
  --unified      print the webui rows (toUnifiedMessages) as JSON
  --timeline     print the timeline groups of each assistant message (buildTimeline)
  --now MS       the clock for --unified rows (milliseconds since the epoch)
  --full         show long arguments and results whole (default: 12 lines each)
  --color        colour even when not on a terminal
  --no-color     no colour
  --debug        show stack traces of errors
`,
  convert: `Usage: agent-chunks convert FILE --to TARGET [-o OUT] [options]

Writes the conversation in FILE in another format, to standard output or OUT:
  events    agent events NDJSON: a turn-start per assistant message, then the events
            that rebuild its chunks
  pi        a Pi session (pi.fromMessages)
  sn        Solar Network thoughts, a JSON array (sn.fromMessage per message)
  unified   the webui rows (toUnifiedMessages), JSON
What the target cannot hold (user messages in events, thinking in sn …) is reported on
standard error.

Options:
  --to TARGET    ${targetNames.join(', ')}
  -o, --output OUT  the file to write (default: standard output)
  --format F     the format of FILE (${formatNames.join(', ')})
  --now MS       the clock for unified rows (milliseconds since the epoch)
  --debug        show stack traces of errors
`,
  check: `Usage: agent-chunks check STREAM HISTORY [options]

Folds STREAM as a chat UI folds it live (each turn one assistant message) and loads
HISTORY, then compares the turns with the history's assistant messages, in order, chunk
by chunk (key order included). Exits 0 when they agree; otherwise prints the first
difference as a path into the history's messages, with both values and the stream lines
that built it, and exits 1.

STREAM: agent events (NDJSON or SSE), ACP updates, Pi gateway events (pi-stream) or
Solar Network stream events (sn-stream). HISTORY: agent events, ACP updates, a
ChatViewer transcript, a Pi session or Solar Network thoughts.

Options:
  --stream-format F    the format of STREAM
  --history-format F   the format of HISTORY
  --debug              show stack traces of errors
`,
  view: `Usage: agent-chunks view FILE -o PAGE [options]

Writes the conversation in FILE as one self-contained HTML page (inline CSS and script,
nothing loaded from anywhere): user messages, the assistant timeline with its connectors,
collapsible thinking, tool-call cards with status, arguments, results and diffs, errors
and notices. Without -o the page goes to standard output.

Options:
  -o, --output PAGE  the page to write
  --format F     the format of FILE (${formatNames.join(', ')})
  --title T      the page title (default: the file name)
  --debug        show stack traces of errors
`,
}

const COMMON = { help: { type: 'boolean', short: 'h' }, debug: { type: 'boolean' } }

const OPTIONS = {
  replay: {
    format: { type: 'string' },
    json: { type: 'boolean' },
    unified: { type: 'boolean' },
    timeline: { type: 'boolean' },
    now: { type: 'string' },
    full: { type: 'boolean' },
    color: { type: 'boolean' },
    'no-color': { type: 'boolean' },
  },
  convert: { to: { type: 'string' }, output: { type: 'string', short: 'o' }, format: { type: 'string' }, now: { type: 'string' } },
  check: { 'stream-format': { type: 'string' }, 'history-format': { type: 'string' } },
  view: { output: { type: 'string', short: 'o' }, format: { type: 'string' }, title: { type: 'string' } },
}

const POSITIONALS = { replay: ['FILE'], convert: ['FILE'], check: ['STREAM', 'HISTORY'], view: ['FILE'] }

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
  if (positionals.length < wanted.length) throw new UsageError(`${command} needs ${wanted.slice(positionals.length).join(' and ')}`, command)
  if (positionals.length > wanted.length) throw new UsageError(`${command} takes ${wanted.join(' ')}; unexpected ${positionals.slice(wanted.length).join(' ')}`, command)
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

/** A file's bytes (standard input for `-`), with a progress bar for a big one. */
function readInput(file, stderr) {
  if (file === '-') return { bytes: fs.readFileSync(0), progress: createProgress({ size: 0, stream: stderr }) }
  let fd
  try {
    fd = fs.openSync(file, 'r')
    const stat = fs.fstatSync(fd)
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' })
    const { size } = stat
    const progress = createProgress({ size, stream: stderr })
    progress.stage('reading', size)
    const bytes = Buffer.allocUnsafe(size)
    let done = 0
    while (done < size) {
      const read = fs.readSync(fd, bytes, done, Math.min(1 << 20, size - done), null)
      if (read === 0) break
      done += read
      progress.update(done)
    }
    return { bytes: bytes.subarray(0, done), progress }
  } catch (error) {
    throw new InputError(readProblem(error), { file, cause: error })
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

function readProblem(error) {
  if (error.code === 'ENOENT') return 'no such file'
  if (error.code === 'EISDIR') return 'is a directory'
  if (error.code === 'EACCES') return 'permission denied'
  return `cannot read: ${error.message}`
}

/** Runs `step(progress)` on a read input; its InputErrors are placed in `file`. */
function withInput(file, stderr, step) {
  const { bytes, progress } = readInput(file, stderr)
  try {
    return step(bytes, progress)
  } catch (error) {
    throw error instanceof InputError ? error.at(file === '-' ? '(stdin)' : file) : error
  } finally {
    progress.end()
  }
}

function writeOutput(output, text, stdout) {
  if (output === undefined || output === '-') {
    stdout.write(text)
    return
  }
  try {
    fs.writeFileSync(output, text)
  } catch (error) {
    throw new InputError(`cannot write: ${error.code === 'ENOENT' ? 'no such directory' : error.message}`, { file: output, cause: error })
  }
}

const pretty = (value) => `${JSON.stringify(value, null, 2)}\n`

function replayText(file, format, messages, values, io) {
  const colour = values['no-color'] ? false : values.color ? true : Boolean(io.stdout.isTTY) && !io.env.NO_COLOR
  const title = `${file} · ${format} · ${messages.length} message${messages.length === 1 ? '' : 's'}`
  io.stdout.write(`${renderText(messages, { colour, full: values.full, title })}\n`)
}

/** The commands; each returns its exit status, or nothing for 0. */
const COMMANDS = {
  replay({ values, positionals: [file] }, io) {
    const modes = ['json', 'unified', 'timeline'].filter((mode) => values[mode])
    if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} cannot be used together`, 'replay')
    const now = clock(values, 'replay')
    const { format, messages } = withInput(file, io.stderr, (bytes, progress) => readConversation(bytes, values.format, { progress }))
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
    const { messages } = withInput(file, io.stderr, (bytes, progress) => readConversation(bytes, values.format, { progress }))
    const { text, notes } = convert(messages, values.to, { now })
    writeOutput(values.output, text, io.stdout)
    for (const note of notes) io.stderr.write(`note: ${note}\n`)
  },

  check({ values, positionals: [streamFile, historyFile] }, io) {
    const stream = withInput(streamFile, io.stderr, (bytes, progress) => readStream(bytes, values['stream-format'], { progress }))
    const history = withInput(historyFile, io.stderr, (bytes, progress) => readHistory(bytes, values['history-format'], { progress }))
    const { agree, report } = describeCheck({ file: streamFile, ...stream }, { file: historyFile, ...history })
    io.stdout.write(report)
    return agree ? 0 : 1
  },

  view({ values, positionals: [file] }, io) {
    const { format, messages } = withInput(file, io.stderr, (bytes, progress) => readConversation(bytes, values.format, { progress }))
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
  try {
    if (command === undefined) throw new UsageError('a command is needed: replay, convert, check or view')
    if (command === '-h' || command === '--help' || command === 'help') {
      io.stdout.write(HELP.main)
      return 0
    }
    if (command === '--version') {
      io.stdout.write(`${require('../package.json').version}\n`)
      return 0
    }
    if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command ${JSON.stringify(command)} (commands: replay, convert, check, view)`)
    const parsed = parse(command, args)
    if (parsed.help) {
      io.stdout.write(HELP[command])
      return 0
    }
    return COMMANDS[command](parsed, io) ?? 0
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`agent-chunks: ${error.message} (see agent-chunks ${error.command ? `${error.command} ` : ''}--help)\n`)
    } else if (error instanceof InputError) {
      io.stderr.write(`${error.describe()}\n`)
    } else {
      io.stderr.write(`agent-chunks: internal error: ${error.message}${debug ? '' : ' (--debug shows where)'}\n`)
    }
    if (debug) io.stderr.write(`${(error.cause ?? error).stack ?? error.stack}\n`)
    return 2
  }
}

module.exports = { main }
