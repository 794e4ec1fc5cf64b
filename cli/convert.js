'use strict'
// Messages written in another format. Each writer's output is read back and compared
// with the messages, so what a format cannot hold is reported rather than lost silently.

const native = require('../index.js')
const { firstDifference } = require('./diff')
const { loadMessages } = require('./formats')

const readBack = (format) => (text) => loadMessages(Buffer.from(text), format)

const MODEL_CHANGED = /^Switched to (.*) \((.*)\)$/s

/** The agent events that rebuild one chunk (in the order the reducer stores its keys). */
function chunkEvents(chunk) {
  switch (chunk?.type) {
    case 'text':
      return [{ type: 'text-delta', delta: chunk.text }]
    case 'thinking': {
      const events = [{ type: 'reasoning-delta', delta: chunk.text }]
      if (chunk.metadata !== undefined) events.push({ type: 'reasoning-end', metadata: chunk.metadata })
      return events
    }
    case 'tool-batch':
      return (chunk.calls ?? []).flatMap(callEvents)
    case 'error':
      return [{ type: 'error', error: chunk.message, ...(chunk.statusCode === undefined ? {} : { statusCode: chunk.statusCode }) }]
    case 'system':
      return systemEvents(chunk)
    default:
      return []
  }
}

function callEvents(call) {
  const events = [{ type: 'tool-call', toolCall: { id: call.id, name: call.name, arguments: call.arguments } }]
  for (const key of Object.keys(call)) {
    if (key === 'result') {
      events.push({ type: 'tool-result', toolResult: { toolCallId: call.id, result: call.result, isError: call.isError ?? false } })
    } else if (key === 'shellOutput') {
      const { stdout = '', stderr = '' } = call.shellOutput ?? {}
      if (stdout || !stderr) events.push({ type: 'shell-output', stream: 'stdout', data: stdout })
      if (stderr) events.push({ type: 'shell-output', stream: 'stderr', data: stderr })
    }
  }
  return events
}

function systemEvents(chunk) {
  if (chunk.kind === 'config-reload') return [{ type: 'config-reload' }]
  const switched = chunk.kind === 'model-changed' && MODEL_CHANGED.exec(chunk.text)
  if (switched) return [{ type: 'model-changed', modelId: switched[1], keyId: switched[2] }]
  if (chunk.kind === 'notice') return [{ type: 'notice', message: chunk.text }]
  return []
}

/** Agent events NDJSON: each assistant message a turn (`turn-start` with its id). */
function toEvents(messages) {
  const lines = []
  for (const message of messages) {
    if (message.role !== 'assistant') continue
    lines.push({ type: 'turn-start', turnId: message.id })
    for (const chunk of message.chunks) lines.push(...chunkEvents(chunk))
  }
  return lines.map((event) => `${JSON.stringify(event)}\n`).join('')
}

const assistantsOf = (messages) => messages.filter((message) => message.role === 'assistant')
const userAndAssistant = (messages) => messages.filter((message) => message.role === 'user' || message.role === 'assistant')

/**
 * Per target: `write(messages, options)` → text, and `kept(messages)` / `readBack(text)`:
 * what the target should hold and what it does hold, compared after writing.
 */
const TARGETS = {
  events: {
    write: (messages) => toEvents(messages),
    kept: assistantsOf,
    readBack: readBack('events'),
    holds: 'assistant messages',
  },
  pi: {
    write: (messages) => native.pi.fromMessages(messages),
    kept: userAndAssistant,
    readBack: readBack('pi'),
    holds: 'user and assistant messages',
  },
  sn: {
    write: (messages) => `${JSON.stringify(userAndAssistant(messages).map((message) => native.sn.fromMessage(message)), null, 2)}\n`,
    kept: userAndAssistant,
    readBack: readBack('sn'),
    holds: 'user and assistant messages',
  },
  unified: {
    write: (messages, { now } = {}) => `${JSON.stringify(native.toUnifiedMessages(messages, now === undefined ? {} : { now }), null, 2)}\n`,
  },
}

const targetNames = Object.keys(TARGETS)

/**
 * `messages` in `target`: `{ text, notes }`, the notes saying what the target left out or
 * changed (the first difference after reading it back).
 */
function convert(messages, target, options) {
  const { write, kept, readBack, holds } = TARGETS[target]
  const text = write(messages, options)
  const notes = []
  if (kept) {
    const left = messages.length - kept(messages).length
    if (left) notes.push(`${left} message${left === 1 ? '' : 's'} left out: ${target} holds only ${holds}`)
    const difference = firstDifference(kept(messages), readBack(text), 'messages')
    if (difference) notes.push(`${target} does not keep everything: the first change is at ${difference.path} (counting only ${holds})`)
  }
  return { text, notes }
}

module.exports = { convert, targetNames, toEvents }
