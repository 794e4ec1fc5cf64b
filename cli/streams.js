'use strict'
// A recorded stream folded as a chat UI folds it live: every event through its format's
// `toAgentEvents` and `appendEventToChunks`, one assistant message per turn. Where each
// chunk came from (its first and last line) is kept, to point at the stream when it
// disagrees with a history.

const native = require('../index.js')
const { InputError } = require('./errors')
const { acpNotification, acpUpdate, isObject } = require('./detect')
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
    events: (line) => native.acp.toAgentEvents(acpNotification(line)),
    // As the history reader has it: the agent's words and tool calls make a turn, plans and
    // mode changes do not.
    opens: (line, events) => events.length > 0 || /^(agent_|tool_call)/.test(acpUpdate(line)?.sessionUpdate),
    turn: (line) => (acpUpdate(line)?.sessionUpdate === 'user_message_chunk' ? { user: true } : undefined),
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

module.exports = { foldStream, streamFormats }
