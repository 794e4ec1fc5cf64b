// Bad input: a real TypeError naming the event type and field, thrown before anything is
// touched, and never a crash.
import test from 'node:test'
import assert from 'node:assert/strict'

import { appendEventToChunks, applySystemEvent } from 'agent-chunks'

const sample = () => [
  { type: 'text', text: 'hello' },
  { type: 'thinking', text: 'hm' },
  { type: 'tool-batch', calls: [{ id: 't1', name: 'bash', arguments: { cmd: 'ls' } }] },
]

function rejects(event, message, chunks = sample()) {
  const before = JSON.stringify(chunks)
  const objects = chunks.flatMap((c) => [c, ...(c.calls ? [c.calls, ...c.calls] : [])])
  assert.throws(
    () => appendEventToChunks(chunks, event),
    (error) => {
      assert.ok(error instanceof TypeError, `a TypeError, got ${error?.constructor?.name}`)
      assert.equal(error.message, message)
      return true
    },
  )
  assert.equal(JSON.stringify(chunks), before, 'the chunks are exactly as they were')
  assert.deepEqual(chunks.flatMap((c) => [c, ...(c.calls ? [c.calls, ...c.calls] : [])]), objects)
}

test('every checked field names the event type and path', () => {
  const p = 'appendEventToChunks: '
  rejects({ type: 'text-delta', delta: 5 }, `${p}text-delta event: "delta" must be a string, got number`)
  rejects({ type: 'text-delta' }, `${p}text-delta event: "delta" must be a string, got undefined`)
  rejects({ type: 'reasoning-delta', delta: null }, `${p}reasoning-delta event: "delta" must be a string, got null`)
  rejects({ type: 'reasoning-delta', delta: new String('x') }, `${p}reasoning-delta event: "delta" must be a string, got object`)
  rejects({ type: 'tool-call' }, `${p}tool-call event: "toolCall" must be an object, got undefined`)
  rejects({ type: 'tool-call', toolCall: 'x' }, `${p}tool-call event: "toolCall" must be an object, got string`)
  rejects({ type: 'tool-call', toolCall: { name: 'n' } }, `${p}tool-call event: "toolCall.id" must be a string, got undefined`)
  rejects({ type: 'tool-call', toolCall: { id: 'a', name: 3n } }, `${p}tool-call event: "toolCall.name" must be a string, got bigint`)
  rejects({ type: 'tool-result', toolResult: null }, `${p}tool-result event: "toolResult" must be an object, got null`)
  rejects(
    { type: 'tool-result', toolResult: { toolCallId: 1, result: 'r', isError: false } },
    `${p}tool-result event: "toolResult.toolCallId" must be a string, got number`,
  )
  rejects({ type: 'shell-output', stream: 1, data: 'x' }, `${p}shell-output event: "stream" must be a string, got number`)
  rejects({ type: 'shell-output', stream: 'stdout', data: ['x'] }, `${p}shell-output event: "data" must be a string, got array`)
  rejects({ type: 'error', error: {} }, `${p}error event: "error" must be a string, got object`)
  rejects({ type: 'error', error: 'e', statusCode: '500' }, `${p}error event: "statusCode" must be a number or undefined, got string`)
  rejects({ type: 'error', error: 'e', statusCode: null }, `${p}error event: "statusCode" must be a number or undefined, got null`)
  rejects({ type: 'notice', message: Symbol('m') }, `${p}notice event: "message" must be a string, got symbol`)
  rejects({ type: 'model-changed', modelId: 'm' }, `${p}model-changed event: "keyId" must be a string, got undefined`)
  rejects({ type: 'model-changed', keyId: 'k' }, `${p}model-changed event: "modelId" must be a string, got undefined`)
})

test('the event and its type are checked, and so is the chunks argument', () => {
  const p = 'appendEventToChunks: '
  rejects(null, `${p}event must be an object, got null`)
  rejects(undefined, `${p}event must be an object, got undefined`)
  rejects('text-delta', `${p}event must be an object, got string`)
  rejects({}, `${p}event: "type" must be a string, got undefined`)
  rejects({ type: 1 }, `${p}event: "type" must be a string, got number`)
  for (const chunks of [null, undefined, {}, 'abc', { length: 0 }]) {
    assert.throws(() => appendEventToChunks(chunks, { type: 'text-delta', delta: 'x' }), {
      name: 'TypeError',
      message: new RegExp(`^${p}"chunks" must be an array, got `),
    })
  }
  assert.throws(() => appendEventToChunks(), { name: 'TypeError' })
})

test('malformed caller chunks the helper would trip over give a TypeError, untouched', () => {
  const noCalls = [{ type: 'tool-batch' }]
  rejects({ type: 'tool-call', toolCall: { id: '1', name: 'n', arguments: 1 } }, 'appendEventToChunks: chunks[0] is a tool-batch whose "calls" is not an array', noCalls)
  rejects({ type: 'tool-result', toolResult: { toolCallId: '1' } }, 'appendEventToChunks: chunks[0] is a tool-batch whose "calls" is not an array', noCalls)
  rejects({ type: 'shell-output', stream: 'stdout', data: 'x' }, 'appendEventToChunks: chunks[0] is a tool-batch whose "calls" is not an array', noCalls)
  const hole = [{ type: 'tool-batch', calls: [null, { id: '1', name: 'n', arguments: 1 }] }]
  rejects({ type: 'tool-result', toolResult: { toolCallId: '1' } }, 'appendEventToChunks: chunks[0].calls[0] is not a tool call entry', hole)
})

test('exceptions thrown by the caller\'s own objects propagate unchanged', () => {
  const boom = new RangeError('getter says no')
  const event = { type: 'text-delta', get delta() { throw boom } }
  assert.throws(() => appendEventToChunks([], event), (e) => e === boom)
  const chunk = { type: 'text', get text() { throw boom } }
  assert.throws(() => appendEventToChunks([chunk], { type: 'text-delta', delta: 'x' }), (e) => e === boom)
  // The module still works afterwards.
  const chunks = []
  appendEventToChunks(chunks, { type: 'text-delta', delta: 'ok' })
  assert.deepEqual(chunks, [{ type: 'text', text: 'ok' }])
})

test('a text that cannot be joined throws as JavaScript + would, untouched', () => {
  const chunks = [{ type: 'text', text: Symbol('s') }]
  assert.throws(() => appendEventToChunks(chunks, { type: 'text-delta', delta: 'x' }), TypeError)
  assert.equal(typeof chunks[0].text, 'symbol')
})

test('applySystemEvent checks its arguments before touching the messages', () => {
  const p = 'applySystemEvent: '
  const messages = [{ id: 'u', role: 'user', chunks: [] }]
  const before = JSON.stringify(messages)
  const cases = [
    [[null, { kind: 'notice', text: 't' }], `${p}"messages" must be an array, got null`],
    [[messages, null], `${p}event must be an object, got null`],
    [[messages, { kind: 1, text: 't' }], `${p}event: "kind" must be a string, got number`],
    [[messages, { kind: 'notice' }], `${p}event: "text" must be a string, got undefined`],
    [[messages, { kind: 'notice', text: 't' }, 'id'], `${p}"idFactory" must be a function, got string`],
    [[messages, { kind: 'notice', text: 't' }, null], `${p}"idFactory" must be a function, got null`],
    [[messages, { kind: 'notice', text: 't' }, () => 7], `${p}"idFactory" result must be a string, got number`],
  ]
  for (const [args, message] of cases) {
    assert.throws(() => applySystemEvent(...args), { name: 'TypeError', message })
    assert.equal(JSON.stringify(messages), before)
  }
  const badSystem = [{ id: 's', role: 'system', chunks: 'nope' }]
  assert.throws(() => applySystemEvent(badSystem, { kind: 'notice', text: 't' }), {
    name: 'TypeError',
    message: `${p}messages[0] is a system message whose "chunks" is not an array`,
  })
  assert.equal(badSystem[0].chunks, 'nope')
})

test('a throwing idFactory propagates its own error and adds nothing', () => {
  const messages = [{ id: 'a', role: 'assistant', chunks: [] }]
  const mine = new Error('no ids today')
  assert.throws(() => applySystemEvent(messages, { kind: 'notice', text: 't' }, () => { throw mine }), (e) => e === mine)
  assert.equal(messages.length, 1)
})
