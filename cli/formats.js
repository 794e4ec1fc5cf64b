'use strict'
// The formats the command reads, what each is, and how a file in it becomes messages:
// a history is loaded, a stream is folded (one assistant message per turn).

const { detectFormat } = require('./detect')
const { InputError } = require('./errors')
const { historyFormats, loadMessages } = require('./history')
const { foldStream, streamFormats } = require('./streams')
const { decode } = require('./text')

const FORMATS = {
  events: 'agent events, NDJSON or an SSE capture (one assistant message per turn)',
  acp: 'ACP session/update notifications, NDJSON',
  chatviewer: 'a ChatViewer transcript, JSONL or a JSON array of ChatMessageData',
  pi: 'a Pi / OpenClaw session, JSONL',
  'pi-stream': 'Pi / OpenClaw gateway events, NDJSON',
  sn: 'Solar Network thoughts, a JSON array or one per line',
  'sn-stream': 'Solar Network stream events, an SSE capture or NDJSON',
  'ai-sdk': 'an AI SDK UI message stream, an SSE capture or NDJSON (one assistant message per start chunk)',
}

const formatNames = Object.keys(FORMATS)

function checkFormatName(name) {
  if (!formatNames.includes(name)) throw new InputError(`unknown format ${JSON.stringify(name)} (formats: ${formatNames.join(', ')})`)
  return name
}

/** The format of a file's bytes: `given` (checked) or detected from its content. */
function formatOf(bytes, given) {
  return given === undefined ? detectFormat(decode(bytes)) : checkFormatName(given)
}

/** A file's conversation: `{ format, messages }`; the stream's `origins` for a stream. */
function readConversation(bytes, given, { progress } = {}) {
  const format = formatOf(bytes, given)
  if (historyFormats.includes(format)) {
    progress?.stage('loading')
    return { format, messages: loadMessages(bytes, format) }
  }
  return fold(bytes, format, progress)
}

function fold(bytes, format, progress) {
  const text = decode(bytes)
  progress?.stage('folding', text.length)
  return { format, ...foldStream(text, format, { progress }) }
}

/** A stream file folded: `{ format, messages, origins }`. */
function readStream(bytes, given, { progress } = {}) {
  const format = formatOf(bytes, given)
  if (!streamFormats.includes(format)) {
    throw new InputError(`a ${format} file is a history, not a stream (streams: ${streamFormats.join(', ')})`)
  }
  return fold(bytes, format, progress)
}

/** A history file loaded: `{ format, messages }`. */
function readHistory(bytes, given, { progress } = {}) {
  const format = formatOf(bytes, given)
  if (!historyFormats.includes(format)) {
    throw new InputError(`a ${format} file is a stream, not a history (histories: ${historyFormats.join(', ')})`)
  }
  progress?.stage('loading')
  return { format, messages: loadMessages(bytes, format) }
}

module.exports = { FORMATS, formatNames, readConversation, readStream, readHistory }
