'use strict'
// The formats the command reads come from the library's table (`native.formats()`), and
// a file becomes messages through it: its format detected by `detectFormat`, a history
// read by `readHistory`, a stream folded by `foldStream`. No format rule lives here.

const native = require('../index.js')
const { InputError } = require('./errors')
const { arrayElementOffsets, decode, lineAt, skipWhitespace } = require('./text')

const TABLE = native.formats()

/** Each format's name and what it is, in the table's order. */
const FORMATS = Object.fromEntries(TABLE.map((format) => [format.name, format.summary]))
const formatNames = TABLE.map((format) => format.name)
const historyFormats = TABLE.filter((format) => format.history).map((format) => format.name)
const streamFormats = TABLE.filter((format) => format.stream).map((format) => format.name)
/** The folders where the tools keep their sessions, as help names them. */
const folderNames = [...new Set(TABLE.flatMap((format) => format.homes.flatMap((h) => h.sessions.map((s) => `~/${h.folder}/${s}${h.variable ? ` ($${h.variable}/${s})` : ''}`))))]

/** The format of a file's bytes: `given`, or detected from its first lines. */
function formatOf(bytes, given) {
  if (given !== undefined) return given
  const detected = native.detectFormat(bytes)
  if (detected.format === undefined) throw new InputError(detected.problem, { line: detected.line })
  return detected.format
}

/** The library's error as an InputError at its line, its message without the position. */
function placed(error, bytes) {
  if (!(error instanceof Error) || error instanceof TypeError) throw error
  let line = typeof error.line === 'number' ? error.line : undefined
  let message = error.message
    .replace(/^(readHistory|foldStream|loadHistorySync): [\w-]+ (history|stream), /, '')
    .replace(/^line \d+(, byte \d+)?: /, '')
  if (/^\[\d+\]: /.test(message)) message = `element ${message.slice(1).replace(']', '')}`
  const element = /^(?:element |\w+\[)(\d+)/.exec(message)
  if (element && line === undefined) line = lineOfElement(decode(bytes), Number(element[1]))
  return new InputError(message, { line, cause: error })
}

/** The line element `index` of the top-level array in `text` starts on. */
function lineOfElement(text, index) {
  const start = skipWhitespace(text, 0)
  if (text[start] !== '[') return undefined
  const offset = arrayElementOffsets(text, start, index + 1)[index]
  return offset === undefined ? undefined : lineAt(text, offset)
}

/** A history file loaded: `{ format, messages, skipped, leftOut }`. */
function readHistory(bytes, given, { progress, strict, leaf, view } = {}) {
  const format = formatOf(bytes, given)
  if (!historyFormats.includes(format)) {
    throw new InputError(`a ${format} file is a stream, not a history (histories: ${historyFormats.join(', ')})`)
  }
  progress?.stage('loading')
  try {
    return native.readHistory(bytes, { format, strict, leaf, view })
  } catch (error) {
    throw placed(error, bytes)
  }
}

/** A stream file folded: `{ format, messages, origins, skipped }`. */
function readStream(bytes, given, { progress, strict, leaf } = {}) {
  const format = formatOf(bytes, given)
  if (!streamFormats.includes(format)) {
    throw new InputError(`a ${format} file is a history, not a stream (streams: ${streamFormats.join(', ')})`)
  }
  progress?.stage('folding', bytes.length)
  let folded
  try {
    // A leaf is passed on to be refused: a stream has no branches to choose.
    folded = native.foldStream(bytes, { format, strict, leaf })
  } catch (error) {
    throw placed(error, bytes)
  }
  progress?.update(bytes.length)
  return folded
}

/** A file's conversation, history or stream: `{ format, messages, skipped, origins? }`. */
function readConversation(bytes, given, options = {}) {
  const format = formatOf(bytes, given)
  return historyFormats.includes(format) ? readHistory(bytes, format, options) : readStream(bytes, format, options)
}

/** The messages of a history file's bytes in `format` (for reading back what was written). */
function loadMessages(bytes, format) {
  return readHistory(bytes, format).messages
}

/**
 * The history read beside a stream brought to what the stream's format can carry, where its
 * tool writes the two differently: `{ history, notes }` (what was set aside, a line per
 * reason), or `null` when the stream's format compares as it is.
 */
function lockstep(stream, history) {
  return native.lockstep(stream.format, stream.messages, history.messages)
}

module.exports = { folderNames, lockstep, FORMATS, formatNames, historyFormats, streamFormats, loadMessages, readConversation, readStream, readHistory }
