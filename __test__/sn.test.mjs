// Solar Network: the recorded SSE stream against the persisted thoughts, spellings,
// the write/read round trip, reconciliation and bad input.
import test from 'node:test'
import assert from 'node:assert/strict'

import { appendEventToChunks, sn, ThinkingMessagePartType, SnThinkingRole } from '../index.js'
import { frozen, readExample, readSse, splitAfter } from './fixtures.mjs'

const historyBytes = readExample('sn-history.json')
const thoughts = JSON.parse(historyBytes.toString('utf8'))
const history = sn.toMessages(historyBytes)
const turns = splitAfter(readSse('sn-thinking.sse'), (event) => event.type === 'thought')

test('stream == history: each streamed turn builds the persisted thought, and reconcile agrees', () => {
  const assistants = history.filter((m) => m.role === 'assistant')
  assert.equal(turns.length, 2)
  turns.forEach((events, i) => {
    const chunks = []
    for (const event of events.slice(0, -1)) for (const agentEvent of sn.toAgentEvents(event)) appendEventToChunks(chunks, agentEvent)
    assert.deepEqual(chunks, assistants[i].chunks, `turn ${i + 1}`)
    assert.equal(JSON.stringify(chunks), JSON.stringify(assistants[i].chunks))
    const final = events.at(-1)
    assert.deepEqual(sn.toAgentEvents(final), [], 'the final thought is not content')
    const { message, difference } = sn.reconcile(chunks, final.data)
    assert.equal(difference, undefined)
    assert.deepEqual(message, assistants[i])
  })
})

test('the history reads as messages: coalesced text, parsed arguments, results on their calls', () => {
  assert.deepEqual(history.map((m) => [m.id, m.role]), [['thought-u0', 'user'], ['thought-a0', 'assistant'], ['thought-u1', 'user'], ['thought-a1', 'assistant']])
  const [, batch] = history[1].chunks
  assert.deepEqual(batch.calls[0].arguments, { city: 'Zürich', unit: 'celsius' })
  assert.deepEqual(batch.calls[1], { id: 'call_w2', name: 'get_weather', arguments: { city: '東京', unit: 'celsius' }, result: { error: 'upstream timeout' }, isError: true })
  assert.equal(history[3].chunks[0].calls[0].arguments, 'city=Tokyo', 'arguments that are not JSON stay a string')
  assert.ok(!JSON.stringify(history).includes('\ufffd'))
  assert.deepEqual(sn.toMessages(frozen(thoughts)), history)
  assert.deepEqual(sn.toMessages(historyBytes.toString('utf8')), history)
})

test('numeric or named types and roles, camelCase or snake_case, read alike; consecutive text coalesces', () => {
  const expected = {
    id: 't',
    role: 'assistant',
    chunks: [
      { type: 'text', text: 'ab' },
      { type: 'tool-batch', calls: [{ id: 'c', name: 'f', arguments: { x: 1 }, result: [1], isError: false }] },
    ],
  }
  const camel = { id: 't', role: 0, createdAt: 'now', parts: [
    { type: 0, text: 'a' }, { type: 0, text: 'b' },
    { type: 1, functionCall: { id: 'c', name: 'f', arguments: '{"x":1}' } },
    { type: 2, functionResult: { callId: 'c', result: [1], isError: false } },
  ] }
  const named = { id: 't', role: 'Assistant', parts: [
    { type: 'Text', text: 'a' }, { type: 'Text', text: 'b' },
    { type: 'FunctionCall', functionCall: { id: 'c', name: 'f', arguments: '{"x":1}' } },
    { type: 'FunctionResult', functionResult: { callId: 'c', result: [1], isError: false } },
  ] }
  const snake = { id: 't', role: 0, created_at: 'now', parts: [
    { type: 0, text: 'a' }, { type: 'text', text: 'b' },
    { type: 'function_call', function_call: { id: 'c', name: 'f', arguments: '{"x":1}' } },
    { type: 2, function_result: { call_id: 'c', result: [1], is_error: false } },
  ] }
  for (const thought of [camel, named, snake]) assert.deepEqual(sn.toMessage(frozen(thought)), expected)
  assert.equal(sn.toMessage({ id: 'u', role: 'User', parts: [{ type: 0, text: 'hi' }] }).role, 'user')
  assert.deepEqual(sn.toMessage({ id: 'u', role: 1, parts: [{ type: 7, blob: 1 }, { type: 'Image' }] }).chunks, [], 'unknown part types are skipped')
  assert.equal(ThinkingMessagePartType.FunctionResult, 2)
  assert.equal(SnThinkingRole.User, 1)
})

test('fromMessage writes camelCase and numeric enums, and toMessage reads it back', () => {
  for (const message of history) assert.deepEqual(sn.toMessage(sn.fromMessage(message)), message)
  const written = sn.fromMessage(history[1], { createdAt: '2026-02-01T09:02:00Z' })
  assert.deepEqual(Object.keys(written), ['id', 'parts', 'role', 'createdAt'])
  assert.deepEqual(written.parts.map((p) => p.type), [0, 1, 1, 2, 2, 0])
  assert.equal(written.role, 0)
  assert.equal(written.parts[1].functionCall.arguments, '{"city":"Zürich","unit":"celsius"}')
  assert.deepEqual(written.parts[3].functionResult, { callId: 'call_w1', result: { temp: 7, sky: 'cloudy ☁️' }, isError: false })
  assert.equal(sn.fromMessage(history[3]).parts[0].functionCall.arguments, 'city=Tokyo', 'a non-JSON string goes back as it was')
  const stringArgs = { id: 'm', role: 'assistant', chunks: [{ type: 'tool-batch', calls: [{ id: 'c', name: 'f', arguments: '42' }] }, { type: 'text', text: '\ud83d' }] }
  assert.deepEqual(sn.toMessage(sn.fromMessage(stringArgs)), stringArgs, 'a string that is JSON text stays a string')
})

test('stream events: content maps, topic / progress / thought give nothing', () => {
  assert.deepEqual(sn.toAgentEvents({ type: 'text', data: 'x' }), [{ type: 'text-delta', delta: 'x' }])
  assert.deepEqual(sn.toAgentEvents({ type: 'function_call', data: { id: 'c', name: 'f', arguments: 'not json' } }), [
    { type: 'tool-call', toolCall: { id: 'c', name: 'f', arguments: 'not json' } },
  ])
  assert.deepEqual(sn.toAgentEvents({ type: 'function_result', data: { callId: 'c', result: null, isError: true } }), [
    { type: 'tool-result', toolResult: { toolCallId: 'c', result: null, isError: true } },
  ])
  for (const type of ['topic', 'function_call_update', 'thought', 'usage']) assert.deepEqual(sn.toAgentEvents({ type, data: 'x' }), [], type)
})

test('reconcile reports the first difference by path, and the thought wins', () => {
  const [events] = turns
  const chunks = []
  for (const event of events.slice(0, -1).filter((e) => !(e.type === 'function_result' && e.data.call_id === 'call_w2'))) {
    for (const agentEvent of sn.toAgentEvents(event)) appendEventToChunks(chunks, agentEvent)
  }
  const { message, difference } = sn.reconcile(chunks, events.at(-1).data)
  assert.deepEqual(difference, { path: 'chunks[1].calls[1].result', persisted: { error: 'upstream timeout' } })
  assert.deepEqual(message, history[1])
  const extra = sn.reconcile([...history[1].chunks, { type: 'text', text: 'more' }], events.at(-1).data)
  assert.deepEqual(extra.difference, { path: 'chunks[3]', streamed: { type: 'text', text: 'more' } })
})

function rejects(fn, message) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.constructor?.name}: ${error?.message}`)
    assert.equal(error.message, message)
    return true
  })
}

test('bad input: a TypeError naming the path', () => {
  rejects(() => sn.toMessage({ id: 't', role: 0, parts: [{ type: 1, functionCall: { name: 'f' } }] }), 'sn.toMessage: thought.parts[0].functionCall.id must be a string, got undefined')
  rejects(() => sn.toMessage({ id: 't', role: 0, parts: [{ type: 2, function_result: { call_id: 5 } }] }), 'sn.toMessage: thought.parts[0].function_result.call_id must be a string, got number')
  rejects(() => sn.toMessage({ id: 't', role: 2, parts: [] }), 'sn.toMessage: thought.role must be 0, 1, "Assistant" or "User", got 2')
  rejects(() => sn.toMessage({ id: 't', role: 0, parts: [{ type: true }] }), 'sn.toMessage: thought.parts[0].type must be a number or a string, got boolean')
  rejects(() => sn.toMessage({ id: 't', role: 0 }), 'sn.toMessage: thought.parts must be an array, got undefined')
  rejects(() => sn.toMessages('[{"id":"t","role":0,"parts":[]},{"id":1}]'), 'sn.toMessages: thoughts[1].id must be a string, got number')
  rejects(() => sn.toMessages('[{"id":"t"'), 'sn.toMessages: the JSON text ends early (at column 11)')
  rejects(() => sn.toAgentEvents({ type: 'text', data: 3 }), 'sn.toAgentEvents: event.data must be a string, got number')
  rejects(() => sn.fromMessage({ id: 's', role: 'system', chunks: [] }), 'sn.fromMessage: message.role "system" has no Solar Network role (only assistant and user)')
  rejects(() => sn.fromMessage(history[1], { createdAt: 1 }), 'sn.fromMessage: "options.createdAt" must be a string, got number')
  rejects(() => sn.reconcile('x', {}), 'sn.reconcile: "chunks" must be an array, got string')
})

test('JSON text as a string: a lone surrogate and U+FFFD in it are kept exactly', () => {
  // Text is read as UTF-8 where that is exact; a lone surrogate (which UTF-8 cannot hold)
  // or a U+FFFD in the text sends it through UTF-16, so that each stays what it was.
  const thought = (text) => `[{"id":"t","role":0,"parts":[{"type":0,"text":"${text}"}]}]`
  for (const text of ['a\uD83Db', 'a\uDE00', 'real \uFFFD', '\uFFFD then \uD800', 'é 😀 ✓']) {
    assert.equal(sn.toMessages(thought(text))[0].chunks[0].text, text)
  }
})

test('the server\'s own capture: PascalCase frames, topic: and thought: fields, the thought replacing what streamed', async () => {
  const { readFileSync } = await import('node:fs')
  const { Conversation, foldStream } = await import('../index.js')
  const bytes = readFileSync(new URL('./fixtures/sn-server.sse', import.meta.url))
  const thought = JSON.parse(bytes.toString('utf8').split('\n').find((l) => l.startsWith('thought: ')).slice('thought: '.length)).data
  const whole = foldStream(bytes)
  assert.equal(whole.format, 'sn-stream')
  assert.deepEqual(whole.messages, [sn.toMessage(thought)])
  assert.deepEqual(sn.toAgentEvents({ type: 'function_call', data: { Id: 'c1', Name: 'get_post', Arguments: '{"id":"p-1"}' } }), [
    { type: 'tool-call', toolCall: { id: 'c1', name: 'get_post', arguments: { id: 'p-1' } } },
  ])
  for (const mode of ['mutable', 'immutable']) {
    const live = new Conversation({ format: 'sn-stream', mode })
    const at = bytes.indexOf('\n\n\n\ntopic: ') + 2
    live.push(bytes.subarray(0, at))
    const changes = live.push(bytes.subarray(at))
    assert.deepEqual(changes, { added: [], changed: [{ index: 0, chunks: [1, 2], renamed: true, replaced: 2 }] }, mode)
    assert.deepEqual(JSON.parse(JSON.stringify(live.messages)), JSON.parse(JSON.stringify(whole.messages)), mode)
  }
})
