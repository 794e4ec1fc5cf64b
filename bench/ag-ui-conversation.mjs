/**
 * A long AG-UI conversation as an agent streams it to a CopilotKit-style frontend: one run
 * per turn, the user's message, reasoning, an answer streamed token by token with tool
 * calls whose arguments stream as JSON text, their results, and a closing answer. Every
 * event is one `@ag-ui/core` 1.0 accepts (the bench checks that the client ends with the
 * messages `messagesOf` predicts before it times anything).
 */
import { createRng } from '../__test__/random-streams.mjs'

const WORDS = ['the ', 'file ', 'function ', 'returns ', 'a ', 'value', '. ', ', ', '\n', 'é', '✓ ', '😀', 'test ', 'build ']

function token(rng) {
  const length = rng.between(3, 24)
  let text = ''
  while (text.length < length) text += rng.pick(WORDS)
  return text.slice(0, length)
}

const THREAD = 'thread-bench'

/** The events of one streamed text message of `tokens` deltas. */
export function textMessage(rng, messageId, tokens, role = 'assistant') {
  const events = [{ type: 'TEXT_MESSAGE_START', messageId, role }]
  for (let i = 0; i < tokens; i++) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: token(rng) })
  events.push({ type: 'TEXT_MESSAGE_END', messageId })
  return events
}

/**
 * Turn `turn` of a conversation: a run with the user's message, a reasoning message, an
 * answer of `tokens` deltas and (every other turn) two tool calls on it with their results
 * and a closing answer. Returns the events and how many messages the turn adds.
 */
export function turnEvents(rng, turn, { tokens = 40, tools = turn % 2 === 1 } = {}) {
  const runId = `run-${turn}`
  const events = [{ type: 'RUN_STARTED', threadId: THREAD, runId }]
  events.push(...textMessage(rng, `user-${turn}`, 1, 'user'))
  const reasoningId = `reasoning-${turn}`
  events.push({ type: 'REASONING_START', messageId: reasoningId })
  events.push({ type: 'REASONING_MESSAGE_START', messageId: reasoningId, role: 'reasoning' })
  for (let i = 0; i < Math.ceil(tokens / 4); i++) events.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: reasoningId, delta: token(rng) })
  events.push({ type: 'REASONING_MESSAGE_END', messageId: reasoningId })
  events.push({ type: 'REASONING_END', messageId: reasoningId })
  const answerId = `answer-${turn}`
  events.push(...textMessage(rng, answerId, tokens))
  let messages = 3
  if (tools) {
    const calls = [0, 1].map((i) => ({ id: `call-${turn}-${i}`, name: rng.pick(['bash', 'read_file', 'edit_file']) }))
    for (const call of calls) {
      const args = JSON.stringify({ command: 'npm test -- --grep chunks', path: `src/file${turn}.ts` })
      events.push({ type: 'TOOL_CALL_START', toolCallId: call.id, toolCallName: call.name, parentMessageId: answerId })
      for (let at = 0; at < args.length; at += 12) events.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: args.slice(at, at + 12) })
      events.push({ type: 'TOOL_CALL_END', toolCallId: call.id })
    }
    for (const call of calls) {
      events.push({ type: 'TOOL_CALL_RESULT', messageId: `result-${call.id}`, toolCallId: call.id, content: `ok ${call.id}\n`.repeat(3) })
    }
    events.push(...textMessage(rng, `closing-${turn}`, Math.ceil(tokens / 2)))
    messages += 3
  }
  events.push({ type: 'RUN_FINISHED', threadId: THREAD, runId })
  return { events, messages }
}

/**
 * A conversation of at least `messages` AG-UI messages (the client's count: user,
 * reasoning, assistant and tool messages), as the events of one stream of runs.
 */
export function conversation({ messages = 200, seed = 1, tokens = 40 } = {}) {
  const rng = createRng(seed)
  const events = []
  let count = 0
  for (let turn = 0; count < messages; turn++) {
    const next = turnEvents(rng, turn, { tokens })
    events.push(...next.events)
    count += next.messages
  }
  return { events, messages: count }
}

/**
 * The update timed for the per-event cost: a new run whose answer streams `tokens` text
 * deltas, after a conversation the client already holds.
 */
export function streamedAnswer({ tokens = 400, seed = 99, id = 'live' } = {}) {
  const rng = createRng(seed)
  return [
    { type: 'RUN_STARTED', threadId: THREAD, runId: `run-${id}` },
    ...textMessage(rng, `answer-${id}`, tokens),
    { type: 'RUN_FINISHED', threadId: THREAD, runId: `run-${id}` },
  ]
}

/**
 * A run whose answer makes one call and streams its input in `deltas` TOOL_CALL_ARGS of
 * 12 characters (a file a tool writes: the input grows long), then ends the call.
 */
export function streamedCall({ deltas = 400, seed = 5, id = 'call' } = {}) {
  const rng = createRng(seed)
  const events = [{ type: 'RUN_STARTED', threadId: THREAD, runId: `run-${id}` }, ...textMessage(rng, `answer-${id}`, 2)]
  events.push({ type: 'TOOL_CALL_START', toolCallId: `call-${id}`, toolCallName: 'write_file', parentMessageId: `answer-${id}` })
  events.push({ type: 'TOOL_CALL_ARGS', toolCallId: `call-${id}`, delta: '{"content":"' })
  for (let i = 0; i < deltas; i++) events.push({ type: 'TOOL_CALL_ARGS', toolCallId: `call-${id}`, delta: `line ${String(i % 1000).padStart(3, '0')}\\n, ` })
  events.push({ type: 'TOOL_CALL_ARGS', toolCallId: `call-${id}`, delta: '"}' })
  events.push({ type: 'TOOL_CALL_END', toolCallId: `call-${id}` })
  events.push({ type: 'RUN_FINISHED', threadId: THREAD, runId: `run-${id}` })
  return events
}

/** The events as the SSE `@ag-ui/encoder` writes: `data: {json}` and a blank line each. */
export function sseText(events) {
  let text = ''
  for (const event of events) text += `data: ${JSON.stringify(event)}\n\n`
  return text
}
