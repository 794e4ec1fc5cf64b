// The webui adapters' reading front (src/napi/views/readers.js): it reads what the rule reads,
// once each and in the rule's order, and whatever it cannot answer exactly goes to the
// plain entry point, which is also the path where code from text may not run. Each test
// compares the front with that plain path (`__mechanicsForTest(false)`) and the baseline.
import test from 'node:test'
import assert from 'node:assert/strict'

import binding from 'agent-chunks'
import baseline from '../baseline/webui.js'
import { randomACPCase, randomTranscript } from './random-webui.mjs'

/** `run()` with the plain entry points: the front hands every call to them. */
function plain(run) {
  binding.__mechanicsForTest(false)
  try {
    return run()
  } finally {
    binding.__mechanicsForTest(true)
  }
}

function outcome(run) {
  try {
    return { rows: run() }
  } catch (error) {
    return { error: `${error.constructor.name}: ${error.message}` }
  }
}

/** Rows as key lists and `Object.is`-comparable values, for deepEqual. */
function shape(result) {
  if (result.error) return result
  return result.rows.map((row) => Object.entries(row).map(([key, value]) => [key, Number.isNaN(value) ? 'NaN' : value]))
}

/**
 * Wraps every object of `value` (recursively) in a Proxy that records each property read
 * as `path.key`; returns the wrapped value and the list of reads.
 */
function traced(value) {
  const reads = []
  const wrap = (target, path) => {
    if (target === null || typeof target !== 'object') return target
    const cache = new Map()
    return new Proxy(target, {
      get(object, key, receiver) {
        const result = Reflect.get(object, key, receiver)
        if (typeof key !== 'string') return result
        reads.push(`${path}.${key}`)
        if (!cache.has(key)) cache.set(key, wrap(result, `${path}.${key}`))
        return cache.get(key)
      },
    })
  }
  return { value: wrap(value, '$'), reads }
}

test('the front and the plain entry points give the same rows and errors as the baseline', () => {
  const now = 1_715_000_000_000
  for (let seed = 0; seed < 300; seed++) {
    const messages = randomACPCase(0x5eed0000 + seed)
    const expected = shape(outcome(() => baseline.adaptACPMessages(messages, { now })))
    assert.deepEqual(shape(outcome(() => binding.adaptACPMessages(messages, { now }))), expected, `ACP seed ${seed}`)
    assert.deepEqual(shape(plain(() => outcome(() => binding.adaptACPMessages(messages, { now })))), expected, `ACP seed ${seed}, plain`)
    const lines = randomTranscript(0x5eed1000 + seed, { invalidRate: seed % 3 ? 0 : 0.15 })
    const rows = shape(outcome(() => baseline.adaptJSONLMessages(lines)))
    assert.deepEqual(shape(outcome(() => binding.adaptJSONLMessages(lines))), rows, `JSONL seed ${seed}`)
    assert.deepEqual(shape(plain(() => outcome(() => binding.adaptJSONLMessages(lines)))), rows, `JSONL seed ${seed}, plain`)
  }
})

test('adaptACPMessages reads each field the rule reads once, in its order, and no other', () => {
  const messages = [
    { type: 'message', data: { role: 'user', content: 'hi', timestamp: 5 } },
    { type: 'in-progress-tool-call', data: { toolCallId: 'c1', role: 'not read', timestamp: 'not read' } },
    { type: 'message', data: { role: 'thinking', content: 'hmm', toolCallId: 'not read' } },
    { type: 'completed-tool-call', data: { toolCallId: 'c2' } },
  ]
  const front = traced(messages)
  const rows = binding.adaptACPMessages(front.value, { now: 1 })
  // The rule's reads: the type and data of each entry, then what its type needs.
  const message = (i) => [`$.${i}`, `$.${i}.type`, `$.${i}.data`, `$.${i}.data.role`, `$.${i}.data.timestamp`, `$.${i}.data.content`]
  const call = (i) => [`$.${i}`, `$.${i}.type`, `$.${i}.data`, `$.${i}.data.toolCallId`]
  assert.deepEqual(front.reads, ['$.length', ...message(0), ...call(1), ...message(2), ...call(3)])
  const plainRows = plain(() => binding.adaptACPMessages(messages, { now: 1 }))
  assert.deepEqual(rows.map((row) => row.id), ['msg-0', 'tool-c1', 'msg-2', 'tool-c2'])
  assert.deepEqual(rows.map((row) => row.id), plainRows.map((row) => row.id))
})

test('a getter that throws on a field the rule does not read changes nothing', () => {
  // With parts, the rule takes their text and never reads `message.content`.
  const message = { role: 'assistant', parts: [{ text: 'a' }, { text: 'b' }] }
  Object.defineProperty(message, 'content', {
    get() {
      throw new Error('content is not read when there are parts')
    },
  })
  const lines = [{ uuid: 'u', timestamp: 1, type: 'assistant', message }]
  const rows = binding.adaptJSONLMessages(lines)
  assert.deepEqual(shape({ rows }), shape({ rows: baseline.adaptJSONLMessages(lines) }))
  assert.equal(rows[0].content, 'ab')
})

test('a getter that throws on a field the rule reads throws its own error', () => {
  const data = { role: 'user' }
  Object.defineProperty(data, 'content', {
    get() {
      throw new RangeError('from the getter')
    },
  })
  assert.throws(() => binding.adaptACPMessages([{ type: 'message', data }], { now: 1 }), { name: 'RangeError', message: 'from the getter' })
})

test('values are handed on as they are: identity, lone surrogates, -0, NaN dates, "__proto__"', () => {
  const call = { toolCallId: '__proto__' }
  const content = { rich: true }
  const rows = binding.adaptACPMessages(
    [
      { type: 'message', data: { role: 'assistant', content: '\uD800x', timestamp: -0 } },
      { type: 'completed-tool-call', data: call },
      { type: 'message', data: { role: 'user', content, timestamp: 2 ** 60 } },
    ],
    { now: -0 },
  )
  assert.ok(Object.is(rows[0].timestamp, -0), 'a falsy timestamp takes the clock, -0 as given')
  assert.equal(rows[0].content, '\uD800x')
  assert.equal(rows[1].toolCall, call)
  assert.equal(rows[1].id, 'tool-__proto__')
  assert.equal(Object.getPrototypeOf(rows[1]), Object.prototype)
  assert.equal(rows[2].content, content)
  assert.equal(rows[2].timestamp, 2 ** 60)
  const lines = binding.adaptJSONLMessages([
    { uuid: '__proto__', timestamp: 'not a date', type: 'assistant', message: { parts: [{ text: '\uD83D' }, { text: '\uDE00' }] } },
  ])
  assert.ok(Number.isNaN(lines[0].timestamp))
  assert.equal(lines[0].id, '__proto__')
  assert.equal(lines[0].content, '\uD83D\uDE00')
})

test('a Proxy of an array is what N-API calls it, an object, as on the plain path', () => {
  // `Array.isArray` is true for it, N-API's typeof is not: a line that is one, with a
  // `type` no row has, is left out as an object would be.
  const proxied = Object.assign(new Proxy([], {}), { uuid: 'p', timestamp: 1, type: 'summary' })
  const lines = [{ uuid: 'a', timestamp: 1, type: 'user' }, proxied, [], { uuid: 'b', timestamp: 2, type: 'assistant', message: { parts: new Proxy([{ text: 'x' }], {}) } }]
  const expected = shape(plain(() => outcome(() => binding.adaptJSONLMessages(lines))))
  assert.deepEqual(shape(outcome(() => binding.adaptJSONLMessages(lines))), expected)
  const acp = [{ type: 'message', data: new Proxy([], {}) }]
  assert.deepEqual(shape(outcome(() => binding.adaptACPMessages(acp, { now: 1 }))), shape(plain(() => outcome(() => binding.adaptACPMessages(acp, { now: 1 })))))
})

test('where code may not be generated from strings, the plain entry points are kept', async () => {
  // `node --disallow-code-generation-from-strings` refuses `Function`, which the front's
  // loop is generated with; the addon must still load, and the adapters still answer.
  const { spawnSync } = await import('node:child_process')
  const script = `
    const a = require(${JSON.stringify(new URL('../index.js', import.meta.url).pathname)})
    const rows = a.adaptACPMessages([{ type: 'message', data: { role: 'user', content: 'x' } }, { type: 'completed-tool-call', data: { toolCallId: 'c' } }], { now: 1 })
    const lines = a.adaptJSONLMessages([{ uuid: 'u', timestamp: 2, type: 'assistant', message: { parts: [{ text: 'a' }, { text: 'b' }] } }])
    console.log(JSON.stringify([rows, lines]))`
  const child = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', script], { encoding: 'utf8' })
  assert.equal(child.status, 0, child.stderr)
  assert.deepEqual(JSON.parse(child.stdout), [
    [
      { id: 'msg-0', type: 'user', timestamp: 1, content: 'x', isFirst: true, isLast: false },
      { id: 'tool-c', type: 'tool_call', timestamp: 1, toolCall: { toolCallId: 'c' }, isFirst: true, isLast: true },
    ],
    [{ id: 'u', type: 'assistant', timestamp: 2, content: 'ab', isFirst: true, isLast: true }],
  ])
})
