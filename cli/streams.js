'use strict'
// A recorded stream folded as a chat UI folds it live: every event through its format's
// `toAgentEvents` and `appendEventToChunks`, one assistant message per turn. Where each
// chunk came from (its first and last line) is kept, to point at the stream when it
// disagrees with a history.

const native = require('../index.js')
const { InputError } = require('./errors')
const { acpUpdate, isObject } = require('./detect')
const { values } = require('./frames')

const CONTENT_EVENT_TYPES = new Set([
  'text-delta', 'reasoning-delta', 'reasoning-end', 'tool-call', 'tool-result', 'shell-output',
  'error', 'notice', 'model-changed', 'config-reload',
])

/**
 * Per format: the agent events a stream event stands for; how it bounds turns (`start`:
 * opens a new turn, with this id if given; `end`: closes the turn, with this id if
 * given; `user`: the user spoke, so the agent's next words are a new turn); and whether
 * it opens a turn when none is open (`opens`, default: any event does).
 */
const STREAMS = {
  events: {
    events: (event) => [event],
    opens: (event) => CONTENT_EVENT_TYPES.has(event?.type),
    turn: (event) => (event?.type === 'turn-start' ? { start: true, id: typeof event.turnId === 'string' ? event.turnId : undefined } : undefined),
  },
  acp: {
    // The client's own fold, which the history reader uses too: a new messageId starts a
    // new message, tool calls keep their title and latest updates.
    whole: (lines) => native.acp.toMessages(lines),
    carries: ({ value, line }, message) => acpUpdate(value)?.messageId === message.id || message.id === `line-${line}`,
  },
  'pi-stream': {
    events: (event) => native.pi.toAgentEvents(event),
    turn: (event) => (event?.type === 'final' ? { end: true } : undefined),
  },
  'sn-stream': {
    events: (event) => native.sn.toAgentEvents(event),
    turn: (event) => (event?.type === 'thought' ? { end: true, id: isObject(event.data) && typeof event.data.id === 'string' ? event.data.id : undefined } : undefined),
  },
}

const streamFormats = Object.keys(STREAMS)

/** The chunk an event just changed: a new one, the call's batch for a result, else the last. */
function touchedChunk(chunks, lengthBefore, event) {
  if (chunks.length > lengthBefore) return chunks.length - 1
  if (event.type === 'tool-result') {
    for (let i = chunks.length - 1; i >= 0; i--) {
      const calls = chunks[i]?.type === 'tool-batch' ? chunks[i].calls : undefined
      if (Array.isArray(calls) && calls.some((call) => call?.id === event.toolResult?.toolCallId)) return i
    }
    return undefined
  }
  return chunks.length ? chunks.length - 1 : undefined
}

/**
 * Folds `text` (a stream in `format`) into `{ messages, origins }`: assistant messages,
 * one per turn, and for each its `{ lines: [first, last], chunks: [[first, last], …] }`.
 */
function foldStream(text, format, { progress } = {}) {
  const stream = STREAMS[format]
  if (!stream) throw new InputError(`${format} is not a stream format (streams: ${streamFormats.join(', ')})`)
  if (stream.whole) return foldWhole(text, stream, progress)
  const messages = []
  const origins = []
  let turn
  let open = false
  const openTurn = (line, id) => {
    turn = { id: id ?? `turn-${messages.length + 1}`, role: 'assistant', chunks: [] }
    messages.push(turn)
    origins.push({ lines: [line, line], chunks: [] })
    open = true
  }
  for (const { value, line, offset } of values(text)) {
    progress?.update(offset)
    const bound = stream.turn(value)
    if (bound?.user) {
      open = false
      continue
    }
    let events
    try {
      events = stream.events(value)
    } catch (error) {
      throw new InputError(error.message, { line, cause: error })
    }
    if (bound?.start) openTurn(line, bound.id)
    else if (!open && (stream.opens?.(value, events) ?? true)) openTurn(line)
    if (!open) continue
    const origin = origins.at(-1)
    origin.lines[1] = line
    for (const event of events) {
      const before = turn.chunks.length
      try {
        native.appendEventToChunks(turn.chunks, event)
      } catch (error) {
        throw new InputError(error.message, { line, cause: error })
      }
      const touched = touchedChunk(turn.chunks, before, event)
      if (touched === undefined) continue
      origin.chunks[touched] ??= [line, line]
      origin.chunks[touched][1] = line
    }
    if (bound?.end) {
      if (bound.id !== undefined) turn.id = bound.id
      open = false
    }
  }
  progress?.update(text.length)
  return { messages, origins }
}

/**
 * A stream its format folds whole: the agent's messages, each with the lines that carry
 * its id (the chunks' own lines are not told apart).
 */
function foldWhole(text, stream, progress) {
  const items = []
  for (const { value, line, offset } of values(text)) {
    progress?.update(offset)
    items.push({ value, line })
  }
  let messages
  try {
    messages = stream.whole(items.map(({ value }) => value))
  } catch (error) {
    const index = /^acp\.toMessages: history\[(\d+)\]/.exec(error.message)
    const line = index ? items[Number(index[1])]?.line : undefined
    throw new InputError(error.message.replace(/^acp\.toMessages: history\[\d+\]\.?/, ''), { line, cause: error })
  }
  progress?.update(text.length)
  const assistant = messages.filter((message) => message.role === 'assistant')
  const origins = assistant.map((message) => {
    const lines = items.filter((item) => stream.carries(item, message)).map(({ line }) => line)
    const first = lines[0] ?? items[0]?.line ?? 1
    return { lines: [first, lines.at(-1) ?? first], chunks: [] }
  })
  return { messages: assistant, origins }
}

module.exports = { foldStream, streamFormats }
