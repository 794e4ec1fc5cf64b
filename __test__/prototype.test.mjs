// No prototype tricks: "__proto__", "constructor" and "prototype" keys in any input come
// out as own data properties and never change an object's prototype, on every path that
// builds JavaScript objects; the same names as ids and types are plain strings.
import test, { afterEach } from 'node:test'
import assert from 'node:assert/strict'

import baseline from '../baseline/chunks.js'
import {
  ChunkStream,
  acp,
  adaptACPMessages,
  adaptJSONLMessages,
  appendEventToChunks,
  applySystemEvent,
  buildTimeline,
  pi,
  reduceEvents,
  sn,
  toUnifiedMessages,
} from '../index.js'

const TRICKS = '{"__proto__":{"polluted":"proto"},"constructor":{"prototype":{"polluted":"ctor"}},"prototype":{"polluted":"prototype"}}'
const tricks = () => JSON.parse(TRICKS)
const NAMES = ['__proto__', 'constructor', 'prototype']

const objectPrototypeKeys = Reflect.ownKeys(Object.prototype)
afterEach(() => {
  assert.deepEqual(Reflect.ownKeys(Object.prototype), objectPrototypeKeys, 'Object.prototype is untouched')
  assert.equal({}.polluted, undefined)
  assert.equal([].polluted, undefined)
})

/** Every object reachable from `root` is a plain object or array, with the normal prototype. */
function assertPlain(root) {
  const seen = new Set()
  const stack = [root]
  while (stack.length) {
    const value = stack.pop()
    if (value === null || typeof value !== 'object' || seen.has(value)) continue
    seen.add(value)
    const expected = Array.isArray(value) ? Array.prototype : Object.prototype
    assert.equal(Object.getPrototypeOf(value), expected, 'a plain object')
    for (const key of Reflect.ownKeys(value)) stack.push(Object.getOwnPropertyDescriptor(value, key).value)
  }
}

/** The payload holds the three names as own data properties, with their values. */
function assertTricks(payload) {
  assertPlain(payload)
  assert.deepEqual(Reflect.ownKeys(payload), NAMES)
  for (const name of NAMES) {
    const descriptor = Object.getOwnPropertyDescriptor(payload, name)
    assert.ok('value' in descriptor, `${name} is a data property`)
  }
  assert.equal(payload.__proto__.polluted, 'proto')
  assert.equal(payload.constructor.prototype.polluted, 'ctor')
  assert.equal(payload.prototype.polluted, 'prototype')
  assert.equal(payload.polluted, undefined)
}

// ─── Chunks ─────────────────────────────────────────────────────────────────────────

const EVENTS = [
  `{"__proto__":{"type":"error"},"type":"text-delta","delta":"a","constructor":1}`,
  `{"type":"tool-call","toolCall":{"__proto__":{"id":"evil"},"id":"__proto__","name":"constructor","arguments":${TRICKS}}}`,
  `{"type":"tool-call","toolCall":{"id":"constructor","name":"prototype","arguments":${TRICKS}}}`,
  `{"type":"tool-result","toolResult":{"toolCallId":"__proto__","result":${TRICKS},"isError":${TRICKS}}}`,
  `{"type":"tool-result","toolResult":{"toolCallId":"constructor","result":1,"isError":false}}`,
  `{"type":"reasoning-delta","delta":"r"}`,
  `{"type":"reasoning-end","metadata":${TRICKS}}`,
  `{"type":"__proto__","delta":"ignored"}`,
  `{"type":"constructor"}`,
]

function checkChunks(chunks) {
  assertPlain(chunks)
  assert.deepEqual(chunks.map((c) => c.type), ['text', 'tool-batch', 'thinking'])
  const [first, second] = chunks[1].calls
  assert.deepEqual([first.id, first.name, second.id, second.name], ['__proto__', 'constructor', 'constructor', 'prototype'])
  for (const payload of [first.arguments, first.result, first.isError, second.arguments, chunks[2].metadata]) assertTricks(payload)
  assert.equal(second.result, 1)
}

test('the bytes path: reduceEvents and ChunkStream chunks', () => {
  const text = EVENTS.join('\n')
  checkChunks(reduceEvents(text))
  const stream = new ChunkStream({ framing: 'sse' })
  stream.push(EVENTS.map((e) => `data: ${e}\n\n`).join(''))
  checkChunks(stream.chunks())
  checkChunks(JSON.parse(JSON.stringify(stream)))
  // The same as JSON.parse and the helper give.
  const expected = []
  for (const line of EVENTS) baseline.appendEventToChunks(expected, JSON.parse(line))
  assert.deepEqual(reduceEvents(text), JSON.parse(JSON.stringify(expected)))
})

test('the drop-in: events with own "__proto__" properties, read as data', () => {
  const chunks = []
  for (const line of EVENTS) appendEventToChunks(chunks, JSON.parse(line))
  checkChunks(chunks)
  // An own "__proto__" property is not a prototype: its fields are not the event's.
  assert.throws(() => appendEventToChunks(chunks, JSON.parse('{"type":"text-delta","__proto__":{"delta":"x"}}')), {
    name: 'TypeError',
    message: 'appendEventToChunks: text-delta event: "delta" must be a string, got undefined',
  })
})

// ─── Formats ────────────────────────────────────────────────────────────────────────

test('pi: sessions as text and as parsed lines, gateway events, and back', () => {
  const session = [
    `{"role":"user","content":"hi","__proto__":{"role":"assistant"}}`,
    `{"role":"assistant","content":[{"type":"toolCall","id":"__proto__","name":"constructor","arguments":${TRICKS}},{"type":"thinking","thinking":"t","thinkingSignature":"s"}],"provider":"__proto__"}`,
    `{"role":"toolResult","toolCallId":"__proto__","content":[{"type":"text","text":"x","__proto__":{}}],"details":${TRICKS}}`,
  ].join('\n')
  for (const messages of [pi.toMessages(session), pi.toMessages(Buffer.from(session)), pi.toMessages(session.split('\n').map((l) => JSON.parse(l)))]) {
    assertPlain(messages)
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant'])
    const [call] = messages[1].chunks[0].calls
    assert.equal(call.id, '__proto__')
    assertTricks(call.arguments)
    assert.equal(call.result, 'x')
    // The provider names the signature's key: an own "__proto__" property.
    assert.deepEqual(Object.keys(messages[1].chunks[1].metadata), ['__proto__'])
    assert.deepEqual(Object.getOwnPropertyDescriptor(messages[1].chunks[1].metadata, '__proto__').value, { signature: 's' })
    assertPlain(pi.toMessages(pi.fromMessages(messages)))
    assert.deepEqual(pi.toMessages(pi.fromMessages(messages))[1].chunks[0].calls[0].arguments, call.arguments)
  }
  const [event] = pi.toAgentEvents(JSON.parse(`{"type":"tool-start","toolCallId":"constructor","name":"n","args":${TRICKS}}`))
  assertPlain(event)
  assertTricks(event.toolCall.arguments)
})

test('sn: thoughts, stream events, reconcile and back', () => {
  const thought = JSON.parse(`{"id":"__proto__","role":"Assistant","__proto__":{"role":1},"parts":[
    {"type":"FunctionCall","functionCall":{"id":"__proto__","name":"n","arguments":${JSON.stringify(TRICKS)}}},
    {"type":2,"functionResult":{"callId":"__proto__","result":${TRICKS},"isError":false}}]}`)
  for (const message of [sn.toMessage(thought), sn.toMessages([thought])[0], sn.toMessages(JSON.stringify([thought]))[0]]) {
    assertPlain(message)
    assert.equal(message.id, '__proto__')
    assertTricks(message.chunks[0].calls[0].arguments)
    assertTricks(message.chunks[0].calls[0].result)
  }
  const written = sn.fromMessage(sn.toMessage(thought))
  assertPlain(written)
  assertTricks(JSON.parse(written.parts[0].functionCall.arguments))
  const streamed = JSON.parse(`[{"type":"tool-batch","calls":[{"id":"__proto__","name":"n","arguments":{"__proto__":{"other":1}}}]}]`)
  const { message, difference } = sn.reconcile(streamed, thought)
  assertPlain(message)
  assertPlain(difference)
  assert.deepEqual(difference, { path: 'chunks[0].calls[0].arguments.__proto__.polluted', persisted: 'proto' })
  const events = sn.toAgentEvents(JSON.parse(`{"type":"function_call","data":{"id":"constructor","name":"n","arguments":${JSON.stringify(TRICKS)}}}`))
  assertPlain(events)
  assertTricks(events[0].toolCall.arguments)
})

// ─── Adapters and views ─────────────────────────────────────────────────────────────

test('acp: updates keyed by "__proto__" and "constructor" ids, payloads by reference', () => {
  const rawInput = tricks()
  const updates = [
    { sessionUpdate: 'tool_call', toolCallId: '__proto__', title: 't', kind: 'read', rawInput },
    { sessionUpdate: 'tool_call', toolCallId: 'constructor', title: 'c', status: 'pending' },
    { sessionUpdate: 'tool_call_update', toolCallId: '__proto__', status: 'completed', rawOutput: tricks() },
    { sessionUpdate: 'tool_call_update', toolCallId: 'hasOwnProperty', status: 'failed' },
    { sessionUpdate: '__proto__', content: { type: 'text', text: 'x' } },
  ]
  const webview = acp.toWebviewMessages(updates)
  assertPlain(webview)
  assert.deepEqual(webview.map((m) => [m.type, m.data.toolCallId]), [
    ['completed-tool-call', '__proto__'],
    ['in-progress-tool-call', 'constructor'],
    ['completed-tool-call', 'hasOwnProperty'],
  ])
  assert.equal(webview[0].data.rawInput, rawInput)
  assertTricks(webview[0].data.rawOutput)
  const events = updates.flatMap((update) => acp.toAgentEvents(update))
  assertPlain(events)
  assert.deepEqual(events.map((e) => e.type), ['tool-call', 'tool-call', 'tool-result', 'tool-result'])
  assert.equal(events[0].toolCall.arguments, rawInput)

  const rows = adaptACPMessages(webview, { now: 1 })
  assertPlain(rows)
  assert.deepEqual(rows.map((r) => r.id), ['tool-__proto__', 'tool-constructor', 'tool-hasOwnProperty'])
  assert.equal(rows[0].toolCall, webview[0].data)
})

test('adaptJSONLMessages: "__proto__" uuids, types and keys in lines', () => {
  const lines = JSON.parse(`[
    {"uuid":"__proto__","timestamp":2,"type":"user","message":{"role":"user","content":"b","__proto__":{"role":"thinking"}}},
    {"uuid":"constructor","timestamp":1,"type":"tool_call","toolCall":${TRICKS}},
    {"uuid":"prototype","timestamp":3,"type":"assistant","message":{"parts":[{"text":"c","__proto__":{}}]}}]`)
  const rows = adaptJSONLMessages(lines)
  assertPlain(rows)
  assert.deepEqual(rows.map((r) => [r.id, r.type]), [['constructor', 'tool_call'], ['__proto__', 'user'], ['prototype', 'assistant']])
  assert.equal(rows[0].toolCall, lines[1].toolCall)
  assertTricks(rows[0].toolCall)
})

test('toUnifiedMessages and buildTimeline: "__proto__" ids and span ids, payloads by reference', () => {
  const args = tricks()
  const chunks = [
    { type: 'tool-batch', calls: [{ id: '__proto__', name: 'task', arguments: args, spanId: '__proto__' }, { id: 'constructor', name: 'read', arguments: 1, spanId: '__proto__', result: tricks(), isError: false }] },
    { type: 'tool-batch', calls: [{ id: 'prototype', name: 'read', arguments: 2, spanId: 'constructor' }] },
  ]
  const rows = toUnifiedMessages([{ id: '__proto__', role: 'assistant', chunks }], { now: 0 })
  assertPlain(rows)
  assert.deepEqual(rows.map((r) => r.id), ['tool-__proto__', 'tool-constructor', 'tool-prototype'])
  assert.equal(rows[0].toolCall.rawInput, args)
  const groups = buildTimeline(chunks)
  assertPlain(groups)
  assert.deepEqual(groups.map((g) => [g.parent.id, g.children.map((c) => c.id)]), [['__proto__', ['constructor']], ['prototype', []]])
  assert.equal(groups[0].parent.args, args)
  assert.deepEqual(groups.map((g) => g.parent.spanId), ['__proto__', 'constructor'])
})

// ─── Setters on Object.prototype ────────────────────────────────────────────────────

const POLLUTED = ['type', 'text', 'delta', 'kind', 'id', 'status', 'toolName', 'title', 'args', 'result', 'spanId', 'parent',
  'children', 'calls', 'name', 'arguments', 'isError', 'metadata', 'message', 'statusCode', 'shellOutput', 'stdout', 'stderr',
  'role', 'chunks', 'messageId', 'timestamp', 'content', 'toolCall', 'toolCallId', 'rawInput', 'isFirst', 'isLast', 'data',
  'path', 'persisted', 'difference']

/** Runs `body` with a setter on Object.prototype for each POLLUTED key; returns the keys set. */
function withSetters(body) {
  const ran = []
  for (const key of POLLUTED) {
    Object.defineProperty(Object.prototype, key, { configurable: true, get: () => undefined, set: () => ran.push(key) })
  }
  try {
    body()
  } finally {
    for (const key of POLLUTED) delete Object.prototype[key]
  }
  return ran
}

test('objects the addon makes run no setter of Object.prototype, as literals and JSON.parse do', () => {
  const call = { id: 'c', name: 'task', arguments: { q: 1 }, result: 'r', isError: false, spanId: 's' }
  const chunks = [{ type: 'thinking', text: 't' }, { type: 'tool-batch', calls: [call] }]
  const thought = { id: 't', role: 0, parts: [{ type: 0, text: 'x' }, { type: 1, functionCall: { id: 'c', name: 'n', arguments: '{}' } }] }
  let outputs
  const ran = withSetters(() => {
    outputs = {
      bytes: reduceEvents('{"type":"text-delta","delta":"a"}\n{"type":"tool-call","toolCall":{"id":"c","name":"n","arguments":{}}}'),
      pi: pi.toMessages('{"role":"user","content":"hi"}\n{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{}}]}'),
      piEvents: pi.toAgentEvents({ type: 'tool-start', toolCallId: 'c', name: 'n', args: {} }),
      sn: sn.toMessage(thought),
      snBack: sn.fromMessage({ id: 'm', role: 'assistant', chunks }),
      reconciled: sn.reconcile([{ type: 'text', text: 'y' }], thought),
      acpEvents: acp.toAgentEvents({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 't', status: 'completed', content: [] }),
      webview: acp.toWebviewMessages([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } }, { sessionUpdate: 'tool_call', toolCallId: 'c', title: 't' }]),
      acpRows: adaptACPMessages([{ type: 'message', data: { role: 'user', content: 'hi' } }, { type: 'in-progress-tool-call', data: { toolCallId: 'c' } }], { now: 1 }),
      jsonlRows: adaptJSONLMessages([{ uuid: 'u', timestamp: 1, type: 'user', message: { role: 'user', content: 'hi' } }]),
      unified: toUnifiedMessages([{ id: 'm', role: 'assistant', chunks }], { now: 1 }),
      timeline: buildTimeline(chunks),
    }
  })
  assert.deepEqual(ran, [], 'no setter ran')
  // Every property is the object's own, with its value.
  assertPlain(outputs)
  assert.deepEqual(Object.keys(outputs.timeline[1].parent), ['kind', 'id', 'toolName', 'title', 'args', 'result', 'status', 'spanId'])
  assert.deepEqual(outputs.timeline.map((g) => [g.parent.kind, g.parent.id, g.children.length]), [['reasoning', 'reasoning-0', 0], ['tool-call', 'c', 0]])
  assert.deepEqual(outputs.bytes.map((c) => c.type), ['text', 'tool-batch'])
  assert.deepEqual(outputs.acpRows.map((r) => r.id), ['msg-0', 'tool-c'])
  assert.deepEqual(outputs.unified.map((r) => r.type), ['thinking', 'tool_call'])
  assert.equal(outputs.reconciled.difference.path, 'chunks[0].text')
})

test('the drop-in runs exactly the setters the helper runs: its literals define, its assignments assign', () => {
  const run = (implementation) => {
    const chunks = []
    const messages = []
    const ran = withSetters(() => {
      for (const event of [{ type: 'text-delta', delta: 'a' }, { type: 'reasoning-delta', delta: 'r' }, { type: 'reasoning-end', metadata: {} },
        { type: 'tool-call', toolCall: { id: 'c', name: 'n', arguments: 1 } }, { type: 'shell-output', stream: 'stdout', data: 'o' },
        { type: 'tool-result', toolResult: { toolCallId: 'c', result: 2, isError: false } }, { type: 'error', error: 'e', statusCode: 500 },
        { type: 'notice', message: 'n' }, { type: 'model-changed', modelId: 'm', keyId: 'k' }]) {
        implementation.appendEventToChunks(chunks, event)
      }
      implementation.applySystemEvent(messages, { kind: 'notice', text: 'n' }, () => 'm1')
    })
    return { ran, json: JSON.stringify([chunks, messages]) }
  }
  const ours = run({ appendEventToChunks, applySystemEvent })
  assert.deepEqual(ours, run(baseline))
  // The helper assigns these on objects it made before (result and isError land on a
  // call entry that has them as its own from then on).
  assert.deepEqual(ours.ran, ['metadata', 'shellOutput', 'result', 'isError', 'statusCode'])
})
