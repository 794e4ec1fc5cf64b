'use strict'
// Every history the command reads goes through `loadMessages`: the addon's
// `loadHistorySync` where this version of it has one, else the readers that exist.

const native = require('../index.js')
const { InputError } = require('./errors')
const { framingOf, frames, values } = require('./frames')
const { arrayElementOffsets, decode, lineAt, parseJson, skipWhitespace } = require('./text')

const historyFormats = ['events', 'acp', 'chatviewer', 'pi', 'sn']

/** The messages of a history file's bytes, in one of `historyFormats`. */
function loadMessages(bytes, format) {
  if (!historyFormats.includes(format)) {
    throw new InputError(`${format} is not a history format (histories: ${historyFormats.join(', ')})`)
  }
  const text = decode(bytes)
  if (typeof native.loadHistorySync === 'function') return loadNatively(bytes, text, format)
  return fallback[format](bytes, text)
}

function loadNatively(bytes, text, format) {
  const array = isJsonArray(text) ? arrayElementOffsets(text, skipWhitespace(text, 0)) : undefined
  // A ChatViewer transcript saved as a JSON array is read as the JSONL of its elements.
  const source = format === 'chatviewer' && array ? Buffer.from(jsonlOfArray(text)) : bytes
  try {
    return native.loadHistorySync(source, format)
  } catch (error) {
    const line = source !== bytes && error.line ? lineAt(text, array[error.line - 1]) : error.line
    throw new InputError(error.message, { line, cause: error })
  }
}

const isJsonArray = (text) => text[skipWhitespace(text, 0)] === '['

function jsonlOfArray(text) {
  return parseJson(text).map((item) => JSON.stringify(item)).join('\n')
}

/** The line of element `index` of the top-level array in `text`. */
function lineOfElement(text, index) {
  const offsets = arrayElementOffsets(text, skipWhitespace(text, 0), index + 1)
  return offsets[index] === undefined ? undefined : lineAt(text, offsets[index])
}

/** A reader's error, placed at the line its message or `.line` names. */
function placed(error, text) {
  let line = typeof error.line === 'number' ? error.line : undefined
  const numbered = /\bline (\d+)\b/.exec(error.message)
  if (line === undefined && numbered) line = Number(numbered[1])
  const element = /^[\w.]+: \w+\[(\d+)\]/.exec(error.message)
  if (line === undefined && element && isJsonArray(text)) line = lineOfElement(text, Number(element[1]))
  const message = numbered ? error.message.replace(`line ${numbered[1]}: `, '') : error.message
  return new InputError(message, { line, cause: error })
}

// The readers that exist until the addon has `loadHistorySync`.
const fallback = {
  /** One assistant message per turn, each folded by the bytes path. */
  events(bytes, text) {
    const framing = framingOf(text)
    const turns = []
    let turn = { start: 0, line: 1, id: undefined }
    for (const frame of frames(text, framing)) {
      if (!/"type"\s*:\s*"turn-start"/.test(frame.json)) continue
      const event = parseJson(frame.json, frame.line)
      if (event?.type !== 'turn-start') continue
      turns.push({ ...turn, end: frame.offset })
      turn = { start: frame.offset, line: frame.line, id: typeof event.turnId === 'string' ? event.turnId : undefined, explicit: true }
    }
    turns.push({ ...turn, end: text.length })
    const messages = []
    for (const { start, end, line, id, explicit } of turns) {
      let chunks
      try {
        chunks = native.reduceEvents(text.slice(start, end), { framing })
      } catch (error) {
        const message = error.message.replace(/^reduceEvents: line \d+, byte \d+: /, '')
        throw new InputError(message, { line: error.line === undefined ? undefined : line + error.line - 1, cause: error })
      }
      if (explicit || chunks.length) messages.push({ id: id ?? `turn-${messages.length + 1}`, role: 'assistant', chunks })
    }
    return messages
  },

  pi(bytes, text) {
    try {
      return native.pi.toMessages(bytes)
    } catch (error) {
      throw placed(error, text)
    }
  },

  sn(bytes, text) {
    try {
      return native.sn.toMessages(bytes)
    } catch (error) {
      throw placed(error, text)
    }
  },

  /** User text as user messages; everything the agent says between them as one message. */
  acp(bytes, text) {
    const messages = []
    let current
    for (const { value, line } of values(text, 'ndjson')) {
      const update = value?.update ?? value
      try {
        if (update?.sessionUpdate === 'user_message_chunk') {
          if (current?.role !== 'user') messages.push((current = { id: `user-${messages.length + 1}`, role: 'user', chunks: [] }))
          if (update.content?.type === 'text') native.appendEventToChunks(current.chunks, { type: 'text-delta', delta: update.content.text })
          continue
        }
        const events = native.acp.toAgentEvents(value)
        if (!events.length) continue
        if (current?.role !== 'assistant') messages.push((current = { id: `turn-${messages.length + 1}`, role: 'assistant', chunks: [] }))
        for (const event of events) native.appendEventToChunks(current.chunks, event)
      } catch (error) {
        throw new InputError(error.message, { line, cause: error })
      }
    }
    return messages
  },

  /** The transcript in the webui's order; a user line is a user message, the rest the answer. */
  chatviewer(bytes, text) {
    const array = isJsonArray(text)
    const lines = array ? undefined : [...values(text, 'ndjson')]
    const items = array ? parseJson(text) : lines.map((entry) => entry.value)
    let rows
    try {
      rows = native.adaptJSONLMessages(items)
    } catch (error) {
      const index = /^\w+: messages\[(\d+)\]/.exec(error.message)
      const line = index ? (array ? lineOfElement(text, Number(index[1])) : lines[Number(index[1])]?.line) : undefined
      throw new InputError(error.message, { line, cause: error })
    }
    const messages = []
    let current
    for (const row of rows) {
      if (row.type === 'user') {
        messages.push({ id: row.id, role: 'user', chunks: [{ type: 'text', text: row.content }] })
        current = undefined
        continue
      }
      if (!current) messages.push((current = { id: row.id, role: 'assistant', chunks: [] }))
      for (const event of transcriptEvents(row)) native.appendEventToChunks(current.chunks, event)
    }
    return messages
  },
}

function transcriptEvents(row) {
  if (row.type === 'thinking') return [{ type: 'reasoning-delta', delta: row.content }]
  if (row.type !== 'tool_call') return [{ type: 'text-delta', delta: row.content }]
  const call = row.toolCall ?? {}
  const events = [{ type: 'tool-call', toolCall: { id: String(call.toolCallId), name: String(call.kind), arguments: call.rawInput } }]
  if (call.status === 'completed' || call.status === 'failed') {
    events.push({ type: 'tool-result', toolResult: { toolCallId: String(call.toolCallId), result: call.content, isError: call.status === 'failed' } })
  }
  return events
}

module.exports = { loadMessages, historyFormats }
