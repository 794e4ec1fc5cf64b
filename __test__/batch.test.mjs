// appendEventsToChunks: the same as appendEventToChunks called per event, in one call.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { randomStreamCase } from './random-streams.mjs'

const require = createRequire(import.meta.url)
const { appendEventToChunks, appendEventsToChunks } = require('../index.js')

/** The chunks, and the error, of appending `events` one call at a time. */
function oneByOne(chunks, events) {
  for (let i = 0; i < events.length; i++) {
    try {
      appendEventToChunks(chunks, events[i])
    } catch (error) {
      return { chunks, error: `events[${i}]: ${error.message.replace(/^appendEventToChunks: /, '')}` }
    }
  }
  return { chunks, error: undefined }
}

function batched(chunks, events) {
  try {
    appendEventsToChunks(chunks, events)
  } catch (error) {
    assert.equal(error.name, 'TypeError')
    return { chunks, error: error.message.replace(/^appendEventsToChunks: /, '') }
  }
  return { chunks, error: undefined }
}

test('== appendEventToChunks per event on 3,000 random streams (bad events included)', () => {
  for (let seed = 1; seed <= 3000; seed++) {
    const { events, buildChunks } = randomStreamCase(seed)
    const wanted = oneByOne(buildChunks(), events)
    const got = batched(buildChunks(), events)
    assert.deepStrictEqual(got, wanted, `seed ${seed}`)
  }
})

test('runs of deltas join into one chunk, payloads are kept by identity', () => {
  const args = { path: 'a' }
  const chunks = [{ type: 'text', text: 'x' }]
  appendEventsToChunks(chunks, [
    { type: 'text-delta', delta: 'a' },
    { type: 'text-delta', delta: '\ud83d' },
    { type: 'text-delta', delta: '\ude00' },
    { type: 'reasoning-delta', delta: 'r' },
    { type: 'reasoning-delta', delta: 's' },
    { type: 'reasoning-end', metadata: 1 },
    { type: 'reasoning-delta', delta: 't' },
    { type: 'tool-call', toolCall: { id: '1', name: 'n', arguments: args } },
    { type: 'text-delta', delta: '' },
  ])
  assert.deepStrictEqual(chunks, [
    { type: 'text', text: 'xa\u{1F600}' },
    { type: 'thinking', text: 'rs', metadata: 1 },
    { type: 'thinking', text: 't' },
    { type: 'tool-batch', calls: [{ id: '1', name: 'n', arguments: args }] },
    { type: 'text', text: '' },
  ])
  assert.equal(chunks[3].calls[0].arguments, args)
})

test('a throwing getter mid-run: the deltas before it are applied, its exception is thrown', () => {
  const boom = new Error('boom')
  const chunks = []
  const events = [{ type: 'text-delta', delta: 'a' }, { type: 'text-delta', delta: 'b' }, { type: 'text-delta', get delta() { throw boom } }, { type: 'text-delta', delta: 'c' }]
  assert.throws(() => appendEventsToChunks(chunks, events), (error) => error === boom)
  assert.deepStrictEqual(chunks, [{ type: 'text', text: 'ab' }])
})

test('bad arguments are TypeErrors naming them', () => {
  assert.throws(() => appendEventsToChunks({}, []), { name: 'TypeError', message: 'appendEventsToChunks: "chunks" must be an array, got object' })
  assert.throws(() => appendEventsToChunks([], 'x'), { name: 'TypeError', message: 'appendEventsToChunks: "events" must be an array, got string' })
  const chunks = []
  assert.throws(() => appendEventsToChunks(chunks, [{ type: 'text-delta', delta: 'a' }, { type: 'text-delta', delta: 5 }]), { name: 'TypeError', message: /^appendEventsToChunks: events\[1\]: / })
  assert.deepStrictEqual(chunks, [{ type: 'text', text: 'a' }])
})

test('a run longer than one join call takes is joined whole, surrogate halves included', () => {
  const events = Array.from({ length: 5000 }, (_, i) => ({ type: 'text-delta', delta: i % 2 ? '\ude00' : '\ud83d' }))
  const one = []
  for (const event of events) appendEventToChunks(one, event)
  const batch = []
  appendEventsToChunks(batch, events)
  assert.deepStrictEqual(batch, one)
  assert.equal(batch[0].text, '\u{1F600}'.repeat(2500))
})
