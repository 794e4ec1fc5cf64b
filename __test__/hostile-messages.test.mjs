// Messages that say what the caller really gave: a Proxy reporting an impossible length,
// values JSON.stringify changes on the way in (NaN, Infinity, symbols, functions, bigints),
// and Proxies of arrays, which Array.isArray counts as arrays, taken as arrays everywhere.
import test from 'node:test'
import assert from 'node:assert/strict'

import {
  ChunkStream,
  adaptACPMessages,
  appendEventToChunks,
  applySystemEvent,
  buildTimeline,
  pi,
  reduceEvents,
  sn,
  toUnifiedMessages,
} from '../index.js'

/** A Proxy of `target` whose `length` reads as `length`. */
const lengthOf = (length, target = []) => new Proxy(target, { get: (t, k) => (k === 'length' ? length : Reflect.get(t, k)) })

const LENGTHS = [
  ['3', 'a string ("3")'],
  [Symbol('n'), 'a symbol'],
  [3n, 'a bigint'],
  [NaN, 'NaN'],
  [-1, 'the number -1'],
  [1.5, 'the number 1.5'],
  [Infinity, 'Infinity'],
  [2 ** 53, 'the number 9007199254740992'],
  [null, 'null'],
  [{}, 'an object'],
]

function throwsType(fn, message) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.constructor?.name}: ${error?.message}`)
    assert.equal(error.message, message)
    return true
  })
}

test('a Proxy\'s impossible length is a TypeError naming the array and what the length is', () => {
  const range = 'not a whole number from 0 to 2^53 - 1'
  for (const [length, said] of LENGTHS) {
    for (const event of [{ type: 'text-delta', delta: 'x' }, { type: 'reasoning-end', metadata: {} }, { type: 'tool-result', toolResult: { toolCallId: 'a' } }]) {
      throwsType(() => appendEventToChunks(lengthOf(length), event), `appendEventToChunks: "chunks" is an array whose "length" is ${said}, ${range}`)
    }
    throwsType(
      () => appendEventToChunks([{ type: 'tool-batch', calls: lengthOf(length) }], { type: 'shell-output', stream: 'stdout', data: 'x' }),
      `appendEventToChunks: chunks[0].calls is an array whose "length" is ${said}, ${range}`,
    )
    throwsType(
      () => applySystemEvent(lengthOf(length), { kind: 'notice', text: 't' }, () => 'id'),
      `applySystemEvent: "messages" is an array whose "length" is ${said}, ${range}`,
    )
    throwsType(() => buildTimeline(lengthOf(length)), `buildTimeline: "chunks" is an array whose "length" is ${said}, ${range}`)
    throwsType(() => toUnifiedMessages(lengthOf(length)), `toUnifiedMessages: an array's "length" is ${said}, ${range}`)
    throwsType(() => adaptACPMessages(lengthOf(length)), `adaptACPMessages: an array's "length" is ${said}, ${range}`)
  }
})

test('a tool call into a batch whose calls report an impossible length: a TypeError naming them', () => {
  throwsType(
    () => appendEventToChunks([{ type: 'tool-batch', calls: lengthOf('2') }], { type: 'tool-call', toolCall: { id: 'a', name: 'n' } }),
    'appendEventToChunks: chunks[0].calls is an array whose "length" is a string ("2"), not a whole number from 0 to 2^53 - 1',
  )
})

test('values JSON cannot hold are named as given: NaN, Infinity, symbols, functions, bigints', () => {
  const thought = (role, parts = []) => ({ id: 't', role, parts })
  throwsType(() => sn.toMessage(thought(NaN)), 'sn.toMessage: thought.role must be a number or a string, got NaN')
  throwsType(() => sn.toMessage(thought(-Infinity)), 'sn.toMessage: thought.role must be a number or a string, got -Infinity')
  throwsType(() => sn.toMessage(thought(Symbol('r'))), 'sn.toMessage: thought.role must be a number or a string, got a symbol')
  throwsType(() => sn.toMessage(thought(() => 1)), 'sn.toMessage: thought.role must be a number or a string, got a function')
  throwsType(() => sn.toMessage(thought(1n)), 'sn.toMessage: "thought.role" is a bigint, which JSON has no form for')
  throwsType(
    () => sn.toMessage(thought('assistant', [{ type: Infinity }])),
    'sn.toMessage: thought.parts[0].type must be a number or a string, got Infinity',
  )
  throwsType(() => sn.toMessages([thought(NaN)]), 'sn.toMessages: thoughts[0].role must be a number or a string, got NaN')
  throwsType(
    () => sn.toMessages([thought('user', [{ type: 0, text: 'a', extra: { n: [1, 2n] } }])]),
    'sn.toMessages: "thoughts[0].parts[0].extra.n[1]" is a bigint, which JSON has no form for',
  )
  // A bigint's own exception is not the only one: a throwing toJSON propagates as it is.
  const boom = new Error('toJSON says no')
  assert.throws(() => sn.toMessage({ toJSON() { throw boom } }), (e) => e === boom)
})

test('Proxies of arrays are arrays, as Array.isArray says', () => {
  const lines = [{ role: 'user', content: 'hi' }]
  assert.deepEqual(pi.toMessages(new Proxy(lines, {})), pi.toMessages(lines))
  assert.deepEqual(pi.fromMessages(new Proxy([], {})), pi.fromMessages([]))
  assert.deepEqual(sn.toMessages(new Proxy([], {})), [])
  const chunks = [{ type: 'thinking', text: 'a' }, { type: 'tool-batch', calls: [{ id: 'c', name: 'bash', arguments: {} }] }]
  assert.deepEqual(buildTimeline(new Proxy(chunks, {})), buildTimeline(chunks))
  assert.deepEqual(sn.reconcile(new Proxy([], {}), { id: 't', role: 1, parts: [] }), sn.reconcile([], { id: 't', role: 1, parts: [] }))
})

test('ChunkStream names the framing it was given', () => {
  for (const [framing, said] of [[Symbol('sse'), 'a symbol'], [1n, 'a bigint'], [NaN, 'NaN'], ['SSE', 'a string ("SSE")'], [null, 'null']]) {
    throwsType(() => new ChunkStream({ framing }), `ChunkStream: options.framing must be 'auto', 'ndjson' or 'sse', got ${said}`)
    throwsType(() => reduceEvents('', { framing }), `reduceEvents: options.framing must be 'auto', 'ndjson' or 'sse', got ${said}`)
  }
})
