'use strict'
// Which format a file is in, from its first bytes: a JSON array (Sn thoughts or a
// ChatViewer transcript, told apart by the first element), an SSE capture (agent events
// or Sn stream events, told apart by the first frame), or JSON lines (told apart by the
// first line's shape).

const { InputError } = require('./errors')
const { frames } = require('./frames')
const { firstNonBlankLine, firstArrayElement, parseJson, skipWhitespace } = require('./text')

const AGENT_EVENT_TYPES = new Set([
  'text-delta', 'reasoning-delta', 'reasoning-end', 'tool-call', 'tool-result', 'shell-output',
  'error', 'notice', 'model-changed', 'config-reload',
  'status', 'turn-start', 'turn-sealed', 'done', 'usage', 'task-list-update', 'tab-created',
  'message-queued', 'message-consumed', 'message-cancelled',
  'compaction-started', 'compaction-complete', 'compaction-error',
])
const PI_GATEWAY_TYPES = new Set(['delta', 'thinking-delta', 'thinking-end', 'tool-start', 'tool-end', 'final'])
const SN_STREAM_TYPES = new Set(['text', 'function_call_update', 'function_call', 'function_result', 'topic', 'thought'])
// The chunk types only an AI SDK UI message stream has (`formats::ai_sdk::is_ui_only_type`).
const UI_ONLY_TYPES = new Set([
  'start', 'start-step', 'finish-step', 'text-start', 'text-end', 'reasoning-start',
  'tool-input-start', 'tool-input-delta', 'tool-input-available', 'tool-input-error',
  'tool-output-available', 'tool-output-error', 'tool-output-denied', 'tool-approval-request',
  'tool-approval-response', 'source-url', 'source-document', 'message-metadata', 'finish', 'abort',
])
const PI_ROLES = new Set(['user', 'assistant', 'toolResult'])
const CHATVIEWER_TYPES = new Set(['user', 'assistant', 'tool_call'])

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)

/** An ACP notification (`{ sessionId, update }`), in a JSON-RPC request or not, as its notification. */
const acpNotification = (value) => (value?.method === 'session/update' && isObject(value.params) ? value.params : value)

/** The `session/update` of one ACP line: a notification, a bare update or a JSON-RPC request. */
const acpUpdate = (value) => {
  const notification = acpNotification(value)
  return isObject(notification?.update) ? notification.update : isObject(notification) ? notification : undefined
}

/** Whether a stream's first event opens an AI SDK UI message stream. */
const isUiChunk = (value) =>
  typeof value.type === 'string' &&
  (UI_ONLY_TYPES.has(value.type) || value.type.startsWith('data-') ||
    (typeof value.id === 'string' && ['text-delta', 'reasoning-delta', 'reasoning-end'].includes(value.type)))

/** The format of one JSON line or stream event, or undefined. */
function formatOfLine(value) {
  if (!isObject(value)) return undefined
  if (isUiChunk(value)) return 'ai-sdk'
  if (typeof acpUpdate(value)?.sessionUpdate === 'string') return 'acp'
  if (typeof value.uuid === 'string' && CHATVIEWER_TYPES.has(value.type)) return 'chatviewer'
  if (value.type === 'session' || (value.type === 'message' && isObject(value.message))) return 'pi'
  if (PI_ROLES.has(value.role) && 'content' in value) return 'pi'
  if (typeof value.id === 'string' && Array.isArray(value.parts) && 'role' in value) return 'sn'
  if (PI_GATEWAY_TYPES.has(value.type)) return 'pi-stream'
  if (SN_STREAM_TYPES.has(value.type) && 'data' in value) return 'sn-stream'
  if (AGENT_EVENT_TYPES.has(value.type)) return 'events'
  return undefined
}

function formatOfArrayElement(value) {
  if (!isObject(value)) return undefined
  if ('uuid' in value) return 'chatviewer'
  if ('parts' in value) return 'sn'
  return undefined
}

const shorten = (text) => (text.length > 60 ? `${text.slice(0, 59)}…` : text)

/** The format name of `text`; an InputError (with the line looked at) when it is none. */
function detectFormat(text) {
  const start = skipWhitespace(text, 0)
  if (start === text.length) throw new InputError('the file is empty')
  if (text[start] === '[') {
    const first = firstArrayElement(text, start)
    if (first === undefined) {
      throw new InputError('an empty JSON array could be Sn thoughts or a ChatViewer transcript; pass --format', { line: 1 })
    }
    const format = formatOfArrayElement(first)
    if (!format) throw new InputError('a JSON array, but its first element is neither a Sn thought nor a ChatViewer message; pass --format', { line: 1 })
    return format
  }
  const line = firstNonBlankLine(text)
  if (/^(data|event|id|retry):|^:/.test(line.text)) {
    const frame = frames(text, 'sse').next().value
    if (!frame) throw new InputError('an SSE capture without a data frame', { line: line.line })
    if (frame.json === '[DONE]') return 'ai-sdk'
    const format = formatOfLine(parseJson(frame.json, frame.line))
    if (format === 'events' || format === 'sn-stream' || format === 'ai-sdk') return format
    throw new InputError(`an SSE capture of neither agent events, Sn stream events nor an AI SDK UI message stream (${shorten(frame.json)}); pass --format`, { line: frame.line })
  }
  let value
  try {
    value = JSON.parse(line.text)
  } catch {
    throw new InputError(`cannot tell the format: the first line is not JSON (${shorten(line.text)}); pass --format`, { line: line.line })
  }
  const format = formatOfLine(value)
  if (!format) throw new InputError(`cannot tell the format from this line (${shorten(line.text)}); pass --format`, { line: line.line })
  return format
}

module.exports = { acpNotification, acpUpdate, detectFormat, formatOfLine, isObject }
