// The bytes path: ChunkStream, reduceEvents and reduceEventsToJson give, after JSON.parse,
// exactly what appendEventToChunks builds from the JSON.parse'd events.
import test from 'node:test'
import assert from 'node:assert/strict'

import { ChunkStream, appendEventToChunks, reduceEvents, reduceEventsToJson } from 'agent-chunks'
import addon from 'agent-chunks'
import { createRng } from './random-streams.mjs'

// ── JSON-text events, with the spellings JSON allows and JSON.stringify never writes ──
const numbers = ['0', '-0', '1', '1.0', '1e2', '1E+2', '0.1e-5', '-12.5', '123456789012345678901234567890', '1e400', '5e-324']
const texts = ['a', 'héllo', ' ', '\\"', '\\\\', '\\n', '\\u0000', '\\ud83d', '\\ude00', '😀', '\\u00e9', 'tab\\t', '/\\/']

function jsonString(rng) {
  let body = ''
  for (let i = rng.between(0, 3); i >= 0; i--) body += rng.pick(texts)
  return `"${body}"`
}

function jsonValue(rng, depth = 0) {
  switch (rng.between(0, depth > 2 ? 3 : 6)) {
    case 0: return rng.pick(numbers)
    case 1: return jsonString(rng)
    case 2: return rng.pick(['true', 'false', 'null'])
    case 3: return rng.pick(['{}', '[]', '[ ]', '{ }'])
    case 4: {
      const keys = ['"a"', '"__proto__"', '"constructor"', '"prototype"', '"b"', '"\\u0061"', '"a"']
      const members = Array.from({ length: rng.between(1, 3) }, () => `${rng.pick(keys)}:${jsonValue(rng, depth + 1)}`)
      return `{${members.join(rng.pick([',', ' , ']))}}`
    }
    default:
      return `[${Array.from({ length: rng.between(1, 3) }, () => jsonValue(rng, depth + 1)).join(',')}]`
  }
}

function jsonEvent(rng, ids) {
  const id = () => (ids.length && rng.between(0, 3) ? rng.pick(ids) : `"t${rng.between(0, 5)}"`)
  const pick = rng.between(0, 99)
  if (pick < 35) return `{"type":"text-delta","delta":${jsonString(rng)}}`
  if (pick < 50) return `{"delta":${jsonString(rng)},"type":"reasoning-delta"}`
  if (pick < 55) return rng.between(0, 3) ? `{"type":"reasoning-end","metadata":${jsonValue(rng)}}` : '{"type":"reasoning-end"}'
  if (pick < 65) {
    const callId = `"t${rng.between(0, 5)}"`
    ids.push(callId)
    const args = rng.between(0, 5) ? `,"arguments":${jsonValue(rng)}` : ''
    return `{"type":"tool-call","toolCall":{"id":${callId},"name":${jsonString(rng)}${args}}}`
  }
  if (pick < 75) {
    const result = rng.between(0, 5) ? `,"result":${jsonValue(rng)}` : ''
    const isError = rng.between(0, 5) ? `,"isError":${rng.pick(['true', 'false', 'null', '1'])}` : ''
    return `{"type":"tool-result","toolResult":{"toolCallId":${id()}${result}${isError}}}`
  }
  if (pick < 83) return `{"type":"shell-output","stream":"${rng.pick(['stdout', 'stderr', 'pty'])}","data":${jsonString(rng)}}`
  if (pick < 87) return rng.between(0, 1) ? `{"type":"error","error":${jsonString(rng)},"statusCode":${rng.pick(numbers)}}` : `{"type":"error","error":${jsonString(rng)}}`
  if (pick < 90) return `{"type":"notice","message":${jsonString(rng)}}`
  if (pick < 92) return `{"type":"model-changed","modelId":${jsonString(rng)},"keyId":${jsonString(rng)}}`
  if (pick < 94) return '{"type":"config-reload"}'
  if (pick < 97) return `{"type":"${rng.pick(['done', 'usage', 'status', 'turn-start'])}","x":${jsonValue(rng)}}`
  return `{ "type" : "${rng.pick(['future-event', 'text-delta\\u0020'])}", "delta" : 5 }`
}

/** JSON has no undefined: drop keys whose value is undefined, keep everything else. */
function withoutUndefined(value) {
  if (Array.isArray(value)) return value.map(withoutUndefined)
  if (value && typeof value === 'object') {
    const out = {}
    for (const key of Object.keys(value)) {
      if (value[key] !== undefined) Object.defineProperty(out, key, { value: withoutUndefined(value[key]), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  return value
}

function frames(lines, sse) {
  return sse ? lines.map((l) => `event: agent\ndata: ${l}\n\n`).join('') : lines.map((l) => `${l}\n`).join('')
}

function splitAtRandom(rng, buffer) {
  const pieces = []
  let at = 0
  while (at < buffer.length) {
    const next = Math.min(buffer.length, at + rng.between(1, 40))
    pieces.push(buffer.subarray(at, next))
    at = next
  }
  return pieces
}

test('bytes path == JSON.parse + appendEventToChunks on 5,000 random streams, both framings, split anywhere', () => {
  for (let seed = 1; seed <= 5000; seed++) {
    const rng = createRng(seed)
    const ids = []
    const lines = Array.from({ length: rng.between(1, 25) }, () => jsonEvent(rng, ids))
    const expected = []
    for (const line of lines) appendEventToChunks(expected, JSON.parse(line))
    const wanted = withoutUndefined(expected)
    const sse = seed % 2 === 0
    const stream = new ChunkStream({ framing: rng.pick(['auto', sse ? 'sse' : 'ndjson']) })
    for (const piece of splitAtRandom(rng, Buffer.from(frames(lines, sse)))) stream.push(piece)
    stream.end()
    const context = `seed ${seed}\n${lines.join('\n')}`
    assert.deepStrictEqual(JSON.parse(stream.toJsonString()), wanted, context)
    assert.deepStrictEqual(stream.chunks(), wanted, context)
    assert.equal(stream.eventCount, lines.length, context)
    if (seed % 10 === 0) {
      assert.deepStrictEqual(reduceEvents(frames(lines, sse)), wanted, context)
    }
  }
})

test('__proto__ keys come out as own data properties, never as prototypes', () => {
  const line = '{"type":"tool-call","toolCall":{"id":"1","name":"n","arguments":{"__proto__":{"polluted":true},"constructor":{"prototype":1}}}}\n'
  const [batch] = reduceEvents(line)
  const args = batch.calls[0].arguments
  assert.equal(Object.getPrototypeOf(args), Object.prototype)
  assert.deepEqual(Object.keys(args), ['__proto__', 'constructor'])
  assert.deepEqual(Object.getOwnPropertyDescriptor(args, '__proto__').value, { polluted: true })
  assert.equal({}.polluted, undefined)
})

test('a lone surrogate escape stays lone, and halves in two events join', () => {
  const lone = reduceEvents('{"type":"text-delta","delta":"\\ud83d"}\n')
  assert.equal(lone[0].text, '\ud83d')
  const joined = reduceEvents('{"type":"text-delta","delta":"\\ud83d"}\n{"type":"text-delta","delta":"\\ude00"}\n')
  assert.equal(joined[0].text, '\u{1F600}')
  assert.equal(reduceEventsToJson('{"type":"text-delta","delta":"\\ud83d"}'), '[{"type":"text","text":"\\ud83d"}]')
})

test('a UTF-8 sequence split across pushes is put back together', () => {
  const bytes = Buffer.from('{"type":"text-delta","delta":"😀é"}\n')
  const stream = new ChunkStream()
  for (const byte of bytes) stream.push(Uint8Array.of(byte))
  assert.deepEqual(stream.chunks(), [{ type: 'text', text: '😀é' }])
  assert.equal(JSON.stringify(stream), '[{"type":"text","text":"😀é"}]')
})

test('bad bytes: an Error with line and offset, state kept, the stream stays usable', () => {
  const stream = new ChunkStream()
  stream.push('{"type":"text-delta","delta":"a"}\n')
  const cases = [
    [Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]), /invalid UTF-8/, 36],
    ['{"type":"text-delta","delta":"b"\n', /invalid JSON/, null],
    ['[1]\n', /an event must be a JSON object/, null],
    ['{"type":"tool-call","toolCall":{"id":1,"name":"n"}}\n', /"toolCall.id" must be a string, got number/, null],
  ]
  let line = 2
  for (const [data, message, offset] of cases) {
    assert.throws(() => stream.push(data), (error) => {
      assert.equal(error.constructor, Error)
      assert.match(error.message, message)
      assert.match(error.message, new RegExp(`^ChunkStream\\.push: line ${line}, byte \\d+: `))
      assert.equal(error.line, line)
      if (offset !== null) assert.equal(error.offset, offset)
      return true
    })
    assert.deepEqual(stream.chunks(), [{ type: 'text', text: 'a' }])
    line++
  }
  stream.push('{"type":"text-delta","delta":"c"}\n')
  assert.deepEqual(stream.chunks(), [{ type: 'text', text: 'ac' }])
})

test('end() reports a truncated last frame with its byte offset', () => {
  const stream = new ChunkStream({ framing: 'ndjson' })
  stream.push('{"type":"text-delta","delta":"a"}\n{"type":"text-del')
  assert.throws(() => stream.end(), (error) => {
    assert.match(error.message, /^ChunkStream\.end: line 2, byte 51: the stream ends inside this frame/)
    assert.equal(error.offset, 51)
    return true
  })
  const complete = new ChunkStream()
  complete.push('{"type":"text-delta","delta":"no newline"}')
  complete.end()
  assert.equal(complete.eventCount, 1)
})

test('arguments of the wrong kind are TypeErrors', () => {
  assert.throws(() => new ChunkStream().push(5), { name: 'TypeError', message: 'ChunkStream.push: data must be a Buffer, a Uint8Array or a string, got number' })
  assert.throws(() => reduceEvents(null), { name: 'TypeError', message: 'reduceEvents: data must be a Buffer, a Uint8Array or a string, got null' })
  assert.throws(() => reduceEventsToJson(new Uint16Array(2)), { name: 'TypeError' })
})

test('ChunkStream is a class: options checked, `new` required, methods only on streams', () => {
  assert.throws(() => new ChunkStream({ framing: 'xml' }), { name: 'TypeError', message: "ChunkStream: options.framing must be 'auto', 'ndjson' or 'sse', got a string (\"xml\")" })
  assert.throws(() => new ChunkStream(5), { name: 'TypeError', message: 'ChunkStream: options must be an object, got number' })
  assert.throws(() => ChunkStream(), { name: 'TypeError' })
  assert.throws(() => ChunkStream.prototype.push.call({}, '{}'), TypeError)
  // An object wrapped around something else (as another addon's objects are) is refused,
  // never read as a stream (V8 refuses receivers the class did not make; the addon checks
  // the wrapped pointer too); so is an object that only inherits the prototype.
  const foreign = addon.__wrappedForTest()
  for (const method of ['push', 'end', 'chunks', 'toJSON', 'toJsonString']) {
    assert.throws(() => ChunkStream.prototype[method].call(foreign, '{"type":"text-delta","delta":"x"}\n'), TypeError)
    assert.throws(() => ChunkStream.prototype[method].call(Object.create(ChunkStream.prototype), '{}'), TypeError)
  }
  assert.throws(() => Object.getOwnPropertyDescriptor(ChunkStream.prototype, 'eventCount').get.call(foreign), TypeError)
  class Counted extends ChunkStream {}
  const sub = new Counted({ framing: 'ndjson' })
  sub.push('{"type":"text-delta","delta":"sub"}\n')
  assert.deepEqual(sub.chunks(), [{ type: 'text', text: 'sub' }], 'a subclass instance is a stream')
  const stream = new ChunkStream({ framing: 'sse' })
  assert.ok(stream instanceof ChunkStream)
  assert.equal(stream.eventCount, 0)
  assert.equal(stream.push('{"type":"text-delta","delta":"not sse"}\n\n'), undefined)
  assert.equal(stream.end(), undefined)
  assert.deepEqual(stream.chunks(), [], 'with SSE framing a bare JSON line is not data')
  assert.deepEqual(new ChunkStream(null).chunks(), [])
})

test('large results stay intact after the garbage collector has run (they are read in place, not copied)', async () => {
  const { setFlagsFromString } = await import('node:v8')
  const { runInNewContext } = await import('node:vm')
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc')
  const lines = []
  for (let i = 0; i < 3000; i++) {
    lines.push(JSON.stringify({ type: i % 7 ? 'text-delta' : 'reasoning-delta', delta: `ünï ${i} 😀 ✓ ` }))
    if (i % 500 === 499) lines.push(JSON.stringify({ type: 'tool-call', toolCall: { id: `c${i}`, name: 'bash', arguments: { command: 'é'.repeat(40) } } }))
  }
  const bytes = Buffer.from(lines.join('\n') + '\n')
  const expected = JSON.stringify(reduceEvents(bytes))
  assert.ok(expected.length > 64 * 1024, 'large enough to be read in place')
  const texts = Array.from({ length: 10 }, () => reduceEventsToJson(bytes))
  const stream = new ChunkStream()
  stream.push(bytes)
  const parsed = Array.from({ length: 10 }, () => stream.chunks())
  texts.push(stream.toJsonString())
  for (let round = 0; round < 5; round++) {
    Array.from({ length: 50_000 }, (_, i) => ({ i, s: `garbage ${i}` }))
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  for (const text of texts) assert.equal(JSON.stringify(JSON.parse(text)), expected)
  for (const chunks of parsed) assert.equal(JSON.stringify(chunks), expected)
})
