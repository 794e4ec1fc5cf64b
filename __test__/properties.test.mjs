// Property tests (fast-check) over arbitrary event sequences: the addon against the
// plain-JS baseline of the helper, and the bytes path against JSON.parse and the drop-in.
// Strings mix characters beyond the BMP, both halves of a surrogate pair alone, NUL,
// quotes and line separators; payload keys include "__proto__", "constructor" and
// "prototype". A failure prints the smallest sequence fast-check finds; rerun it with
// FC_SEED=<seed> (and FC_PATH=<path>) from the report.
import test from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import baseline from '../baseline/chunks.js'
import native from '../index.js'

const { ChunkStream, appendEventToChunks, reduceEvents, reduceEventsToJson } = native
const settings = {
  numRuns: Number(process.env.FC_RUNS ?? 2000),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
}

// ─── Material ───────────────────────────────────────────────────────────────────────

const unit = fc.constantFrom('a', 'bc', ' ', 'é', '😀', '\ud83d', '\ude00', '\u0000', '"', '\\', '\n', '\u2028', '__proto__')
const text = fc.string({ unit, maxLength: 5 })
const id = fc.constantFrom('t0', 't1', 't2', '__proto__', 'constructor')
const key = fc.constantFrom('a', 'b', '__proto__', 'constructor', 'prototype', '😀', '\ud800')

/** JSON-able payloads: what a parsed event can carry. */
const jsonPayload = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value

/** What a JavaScript event can carry besides: undefined, NaN, -0, dates, functions. */
const jsPayload = fc.oneof(
  { weight: 4, arbitrary: jsonPayload },
  fc.constant(undefined),
  fc.constantFrom(NaN, -0, Infinity),
  fc.date({ noInvalidDate: true }),
  fc.constant(() => 'a function'),
)

function events(payload) {
  const optional = (arbitrary) => fc.option(arbitrary, { nil: undefined, freq: 3 })
  return fc.array(
    fc.oneof(
      { weight: 5, arbitrary: text.map((delta) => ({ type: 'text-delta', delta })) },
      { weight: 4, arbitrary: text.map((delta) => ({ type: 'reasoning-delta', delta })) },
      { weight: 2, arbitrary: optional(payload).map((metadata) => (metadata === undefined ? { type: 'reasoning-end' } : { type: 'reasoning-end', metadata })) },
      { weight: 3, arbitrary: fc.record({ id, name: text, arguments: payload }).map((toolCall) => ({ type: 'tool-call', toolCall })) },
      { weight: 3, arbitrary: fc.record({ toolCallId: id, result: payload, isError: payload }).map((toolResult) => ({ type: 'tool-result', toolResult })) },
      { weight: 2, arbitrary: fc.record({ stream: fc.constantFrom('stdout', 'stderr', 'pty'), data: text }).map((e) => ({ type: 'shell-output', ...e })) },
      { weight: 1, arbitrary: fc.record({ error: text, statusCode: fc.integer({ min: 100, max: 599 }) }, { requiredKeys: ['error'] }).map((e) => ({ type: 'error', ...e })) },
      { weight: 1, arbitrary: text.map((message) => ({ type: 'notice', message })) },
      { weight: 1, arbitrary: fc.record({ modelId: text, keyId: text }).map((e) => ({ type: 'model-changed', ...e })) },
      { weight: 1, arbitrary: fc.constant({ type: 'config-reload' }) },
      { weight: 1, arbitrary: fc.dictionary(key, payload, { maxKeys: 2 }).map((extra) => ({ ...extra, type: 'done' })) },
      { weight: 1, arbitrary: text.map((delta) => ({ type: 'from-the-future', delta })) },
      // An own "__proto__" property on the event itself: data, not a prototype.
      { weight: 1, arbitrary: text.map((delta) => JSON.parse(`{"__proto__":{"type":"notice","message":"no"},"type":"text-delta","delta":${JSON.stringify(delta)}}`)) },
    ),
    { maxLength: 30 },
  )
}

// ─── Comparison ─────────────────────────────────────────────────────────────────────

const BY_REFERENCE = new Set(['arguments', 'result', 'isError', 'metadata'])

/** Same keys in the same order, same primitives, payloads as the very same values. */
function assertSameTree(actual, expected, path = 'chunks') {
  if (typeof expected !== 'object' || expected === null) {
    assert.ok(Object.is(actual, expected), `${path}: ${String(actual)} is not ${String(expected)}`)
    return
  }
  assert.equal(Array.isArray(actual), Array.isArray(expected), `${path}: array or object`)
  assert.deepEqual(Reflect.ownKeys(actual), Reflect.ownKeys(expected), `${path}: keys`)
  for (const k of Reflect.ownKeys(expected)) {
    const here = `${path}.${String(k)}`
    if (BY_REFERENCE.has(k)) assert.ok(Object.is(actual[k], expected[k]), `${here}: not the event's own value`)
    else assertSameTree(actual[k], expected[k], here)
  }
}

// ─── Properties ─────────────────────────────────────────────────────────────────────

test('the drop-in builds what the helper builds, event by event', () => {
  fc.assert(
    fc.property(events(jsPayload), (sequence) => {
      const ours = []
      const theirs = []
      for (const event of sequence) {
        appendEventToChunks(ours, event)
        baseline.appendEventToChunks(theirs, event)
        assert.equal(JSON.stringify(ours), JSON.stringify(theirs))
      }
      assertSameTree(ours, theirs)
    }),
    settings,
  )
})

/** The bytes of `lines` as NDJSON or SSE, cut at `cuts` (fractions of the length). */
function pieces(lines, sse, cuts) {
  const bytes = Buffer.from(lines.map((line) => (sse ? `data: ${line}\n\n` : `${line}\n`)).join(''))
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b)
  return { bytes, parts: [0, ...at].map((from, i) => bytes.subarray(from, i < at.length ? at[i] : bytes.length)) }
}

test('the bytes path gives what JSON.parse and the drop-in give, split anywhere', () => {
  fc.assert(
    fc.property(
      events(jsonPayload),
      fc.boolean(),
      fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 6 }),
      (sequence, sse, cuts) => {
        const lines = sequence.map((event) => JSON.stringify(event))
        const expected = []
        for (const line of lines) appendEventToChunks(expected, JSON.parse(line))
        const json = JSON.stringify(expected)

        const { bytes, parts } = pieces(lines, sse, cuts)
        const stream = new ChunkStream({ framing: sse ? 'sse' : 'ndjson' })
        for (const part of parts) stream.push(part)
        stream.end()
        assert.equal(stream.eventCount, lines.length)
        assert.equal(JSON.stringify(stream.chunks()), json)
        assert.equal(JSON.stringify(reduceEvents(bytes)), json)
        assert.equal(JSON.stringify(JSON.parse(reduceEventsToJson(bytes.toString()))), json)
        // And what the helper itself builds from the parsed events.
        const helper = []
        for (const line of lines) baseline.appendEventToChunks(helper, JSON.parse(line))
        assert.equal(JSON.stringify(helper), json)
      },
    ),
    settings,
  )
})
