'use strict'
// The formats the command reads come from the library's table (`native.formats()`), and
// a file becomes messages through it: its format detected by `detectFormat`, a history
// read by `readHistory`, a stream folded by `foldStream`. No format rule lives here.

const fs = require('node:fs')

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
function readHistory(bytes, given, { progress, strict, leaf, view, session } = {}) {
  const format = formatOf(bytes, given)
  if (!historyFormats.includes(format)) {
    throw new InputError(`a ${format} file is a stream, not a history (histories: ${historyFormats.join(', ')})`)
  }
  progress?.stage('loading')
  try {
    return native.readHistory(bytes, { format, strict, leaf, view, session })
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

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1')

/**
 * Whether `file` is a store of many sessions read from its path (a tool's database, a
 * folder of its session files) rather than a file read as one conversation.
 */
function isStore(file) {
  if (file === '-') return false
  let stat
  try {
    stat = fs.statSync(file)
  } catch {
    return false
  }
  if (stat.isDirectory()) {
    // A folder is a store only when a row's store says so; any other is refused as a folder.
    try {
      native.storeSessions(file)
      return true
    } catch {
      return false
    }
  }
  if (!stat.isFile()) return false
  const head = Buffer.alloc(SQLITE_HEADER.length)
  const fd = fs.openSync(file, 'r')
  try {
    return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A session of the store at `file` (`session`: its id, default the latest) read as a
 * history: `{ format, messages, session }`.
 */
function readStoreSession(file, given, { session, strict, leaf, view } = {}) {
  let listed
  try {
    listed = native.storeSessions(file)
  } catch (error) {
    if (error instanceof TypeError) throw error
    throw new InputError(error.message.replace(/^storeSessions: /, ''), { cause: error })
  }
  const format = given ?? listed.format
  if (session !== undefined && !listed.sessions.some((s) => s.id === session)) {
    const ids = listed.sessions.map((s) => s.id)
    throw new InputError(`no session ${JSON.stringify(session)} in this store (${ids.length ? ids.join(', ') : 'it holds none'})`)
  }
  try {
    return { format, messages: native.loadHistorySync(file, format, { session, strict, leaf, view }), session }
  } catch (error) {
    if (!(error instanceof Error) || error instanceof TypeError) throw error
    throw new InputError(error.message.replace(/^loadHistorySync: [\w-]+ history, /, ''), { cause: error })
  }
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

module.exports = { isStore, readStoreSession, folderNames, lockstep, FORMATS, formatNames, historyFormats, streamFormats, loadMessages, readConversation, readStream, readHistory }
