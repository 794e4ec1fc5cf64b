'use strict'
// Every history the command reads goes through `loadMessages`, which is the addon's
// `loadHistorySync` with its errors placed at their line.

const native = require('../index.js')
const { InputError } = require('./errors')
const { arrayElementOffsets, decode, lineAt, skipWhitespace } = require('./text')

const historyFormats = ['events', 'acp', 'chatviewer', 'pi', 'sn', 'ai-sdk']

// The bytes path reads a UI message stream as it reads agent events (it tells them apart
// by the first frame).
const LOADER_FORMAT = { 'ai-sdk': 'events' }

/** The messages of a history file's bytes, in one of `historyFormats`. */
function loadMessages(bytes, format) {
  if (!historyFormats.includes(format)) {
    throw new InputError(`${format} is not a history format (histories: ${historyFormats.join(', ')})`)
  }
  try {
    return native.loadHistorySync(bytes, LOADER_FORMAT[format] ?? format)
  } catch (error) {
    throw placed(error, bytes)
  }
}

/**
 * The loader's error as an InputError at its line, its message without the position
 * (which the command prints as file:line): an element of a JSON array is placed at the
 * line it starts on.
 */
function placed(error, bytes) {
  let line = typeof error.line === 'number' ? error.line : undefined
  let message = error.message.replace(/^loadHistorySync: \w+ history, /, '').replace(/^line \d+(, byte \d+)?: /, '')
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

module.exports = { loadMessages, historyFormats }
