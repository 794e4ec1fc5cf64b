// The limits of every path that takes bytes or JSON (docs/limits.md): each input is
// handled, or refused with an Error naming the limit and where it was hit. Never a stack
// overflow, an abort or a hang; after each refusal the addon keeps working.
// The large inputs are in limits-200mb.test.mjs and limits-million*.test.mjs, one
// process each, so that no test process holds more than about 2 GB.
import test from 'node:test'
import assert from 'node:assert/strict'

import { ChunkStream, acp, appendEventToChunks, adaptACPMessages, buildTimeline, pi, reduceEvents, reduceEventsToJson, sn, toUnifiedMessages } from '../index.js'

const LIMIT = 512 // formats' JSON reader: arrays and objects nested at most this deep
const DEEP = 100_000

const nestedText = (depth) => '['.repeat(depth) + ']'.repeat(depth)
function nestedValue(depth) {
  let value = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}
function depthOf(value) {
  let depth = 0
  for (; Array.isArray(value); value = value[0]) depth++
  return depth
}
/** The 1-based column of the bracket that opens level LIMIT + 1 of `text`. */
function columnPastLimit(text) {
  let open = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '[' || text[i] === '{') open++
    else if (text[i] === ']' || text[i] === '}') open--
    if (open > LIMIT) return i + 1
  }
  throw new Error('not past the limit')
}

const toolCallLine = (args) => `{"type":"tool-call","toolCall":{"id":"a","name":"n","arguments":${args}}}`
const piCallLine = (args) => `{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"n","arguments":${args}}]}`
const stillWorks = () => assert.deepEqual(reduceEvents('{"type":"text-delta","delta":"ok"}\n'), [{ type: 'text', text: 'ok' }])

// ─── Nesting ────────────────────────────────────────────────────────────────────────

test('arguments nested 100,000 deep: the bytes path keeps them, in every framing', () => {
  const line = toolCallLine(nestedText(DEEP))
  assert.equal(depthOf(reduceEvents(Buffer.from(line))[0].calls[0].arguments), DEEP)
  const stream = new ChunkStream({ framing: 'sse' })
  const frame = Buffer.from(`data: ${line}\n\n`)
  for (let at = 0; at < frame.length; at += 4096) stream.push(frame.subarray(at, at + 4096))
  stream.end()
  assert.equal(depthOf(stream.chunks()[0].calls[0].arguments), DEEP)
  assert.ok(reduceEventsToJson(line).includes(`"arguments":${nestedText(DEEP)}}`))
})

test('arguments nested 100,000 deep: the drop-in and the adapters hold them by reference', () => {
  const deep = nestedValue(DEEP)
  const chunks = []
  appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: 'a', name: 'n', arguments: deep } })
  appendEventToChunks(chunks, { type: 'tool-result', toolResult: { toolCallId: 'a', result: deep, isError: false } })
  assert.equal(chunks[0].calls[0].arguments, deep)
  assert.equal(chunks[0].calls[0].result, deep)
  assert.equal(buildTimeline(chunks)[0].parent.args, deep)
  assert.equal(toUnifiedMessages([{ id: 'm', role: 'assistant', chunks }], { now: 0 })[0].toolCall.rawInput, deep)
  const [event] = acp.toAgentEvents({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 't', rawInput: deep })
  assert.equal(event.toolCall.arguments, deep)
})

test(`the format readers take exactly ${LIMIT} levels of JSON text and name the limit past it`, () => {
  // The line's own object, content array and block are three levels.
  const atLimit = piCallLine(nestedText(LIMIT - 3))
  assert.equal(depthOf(pi.toMessages(atLimit)[0].chunks[0].calls[0].arguments), LIMIT - 3)
  for (const args of [nestedText(LIMIT - 2), nestedText(DEEP)]) {
    const text = `{"role":"user","content":"hi"}\n${piCallLine(args)}\n`
    const message = `pi.toMessages: line 2: JSON nested deeper than the limit of ${LIMIT} arrays and objects, at column ${columnPastLimit(piCallLine(args))}`
    // Read past as any line that cannot be read; refused where it is when strict.
    assert.equal(pi.toMessages(text).length, 1)
    assert.throws(() => pi.toMessages(text, { strict: true }), { name: 'TypeError', message })
    assert.throws(() => pi.toMessages(Buffer.from(text), { strict: true }), { name: 'TypeError', message })
  }
  const thoughts = `[{"id":"t","role":0,"parts":[{"type":0,"text":"x","extra":${nestedText(DEEP)}}]}]`
  assert.throws(() => sn.toMessages(thoughts), {
    name: 'TypeError',
    message: `sn.toMessages: JSON nested deeper than the limit of ${LIMIT} arrays and objects, at column ${columnPastLimit(thoughts)}`,
  })
  // Solar Network carries arguments as a JSON string: parsed, so held to the same limit.
  const call = (args) => ({ id: 't', role: 0, parts: [{ type: 1, functionCall: { id: 'a', name: 'n', arguments: args } }] })
  assert.equal(depthOf(sn.toMessage(call(nestedText(LIMIT))).chunks[0].calls[0].arguments), LIMIT)
  assert.throws(() => sn.toMessages([call('[]'), call(nestedText(DEEP))]), {
    name: 'TypeError',
    message: `sn.toMessages: thoughts[1].parts[0].functionCall.arguments holds JSON nested deeper than the limit of ${LIMIT} arrays and objects, at column ${LIMIT + 1}`,
  })
  stillWorks()
})

test('values passed as objects: JSON.stringify\'s own limit first, then the reader\'s', () => {
  // Deeper than the reader takes, within what JSON.stringify writes: a TypeError naming
  // the argument, the limit and the column in its JSON text.
  const deep = nestedValue(1000)
  const message = (name, what, prefix) =>
    `${name}: "${what}" as JSON: JSON nested deeper than the limit of ${LIMIT} arrays and objects, at column ${columnPastLimit(prefix)}`
  const line = { role: 'assistant', content: [{ type: 'toolCall', id: 'a', name: 'n', arguments: deep }] }
  assert.throws(() => pi.toMessages([line]), { name: 'TypeError', message: message('pi.toMessages', 'history', JSON.stringify([line])) })
  const chunks = [{ type: 'tool-batch', calls: [{ id: 'a', name: 'n', arguments: deep }] }]
  const thought = { id: 't', role: 0, parts: [{ type: 0, text: 'x', extra: deep }] }
  const cases = [
    [() => pi.fromMessages([{ id: 'm', role: 'assistant', chunks }]), 'pi.fromMessages', 'messages', [{ id: 'm', role: 'assistant', chunks }]],
    [() => pi.toAgentEvents({ type: 'tool-start', toolCallId: 'a', name: 'n', args: deep }), 'pi.toAgentEvents', 'event', { type: 'tool-start', toolCallId: 'a', name: 'n', args: deep }],
    [() => sn.toMessage(thought), 'sn.toMessage', 'thought', thought],
    [() => sn.toAgentEvents({ type: 'thought', data: thought }), 'sn.toAgentEvents', 'event', { type: 'thought', data: thought }],
    [() => sn.fromMessage({ id: 'm', role: 'assistant', chunks }), 'sn.fromMessage', 'message', { id: 'm', role: 'assistant', chunks }],
    [() => sn.reconcile(chunks, thought), 'sn.reconcile', 'chunks', chunks],
  ]
  for (const [call, name, what, value] of cases) {
    assert.throws(call, { name: 'TypeError', message: message(name, what, JSON.stringify(value)) })
  }
  // 100,000 levels: JSON.stringify itself gives up, with V8's RangeError.
  const deeper = nestedValue(DEEP)
  assert.throws(() => pi.toMessages([{ role: 'user', content: [{ type: 'text', text: 'x', extra: deeper }] }]), RangeError)
  assert.throws(() => sn.toMessage({ id: 't', role: 0, parts: [], extra: deeper }), RangeError)
  assert.throws(() => sn.reconcile([{ type: 'text', text: deeper }], { id: 't', role: 0, parts: [] }), RangeError)
  stillWorks()
})

// ─── Bytes that are not UTF-8, NUL bytes ────────────────────────────────────────────

test('invalid UTF-8: an Error with its place on every bytes path', () => {
  const good = '{"type":"text-delta","delta":"a"}\n'
  // "é" is C3 A9; C3 followed by a quote is no character.
  const bad = Buffer.concat([Buffer.from(good), Buffer.from('{"type":"text-delta","delta":"\xc3"}\n', 'latin1')])
  assert.throws(() => reduceEvents(bad), { message: /^reduceEvents: line 2, byte 64: invalid UTF-8$/, offset: 64, line: 2 })
  // Split inside the bad sequence, across pushes; the stream stays usable.
  const stream = new ChunkStream()
  assert.throws(() => {
    stream.push(bad.subarray(0, 64))
    stream.push(bad.subarray(64))
  }, { offset: 64, line: 2 })
  stream.push('{"type":"text-delta","delta":"b"}\n')
  assert.deepEqual(stream.chunks(), [{ type: 'text', text: 'ab' }])

  // The format readers take a Buffer as a file's bytes: UTF-8, encoded surrogates refused.
  for (const [bytes, column] of [[[0xff], 27], [[0xed, 0xa0, 0x80], 27], [[0x61, 0xc3], 28]]) {
    const session = Buffer.concat([Buffer.from('{"role":"user","content":"hi"}\n{"role":"user","content":"'), Buffer.from(bytes), Buffer.from('"}\n')])
    assert.throws(() => pi.toMessages(session), { name: 'TypeError', message: `pi.toMessages: line 2: invalid UTF-8 at column ${column}` })
  }
  const before = '[{"id":"t","role":0,"parts":[{"type":0,"text":"'
  const thoughts = Buffer.concat([Buffer.from(before), Buffer.from([0xfe]), Buffer.from('"}]}]')])
  assert.throws(() => sn.toMessages(thoughts), { name: 'TypeError', message: `sn.toMessages: invalid UTF-8 at column ${before.length + 1}` })

  // A JavaScript string is UTF-16: an unpaired surrogate pushed as text becomes U+FFFD,
  // as Buffer.from makes it.
  const lone = '{"type":"text-delta","delta":"x\ud83d"}\n'
  assert.deepEqual(reduceEvents(lone), reduceEvents(Buffer.from(lone)))
  assert.equal(reduceEvents(lone)[0].text, 'x\ufffd')
  stillWorks()
})

test('NUL bytes: refused raw inside JSON strings, kept when escaped', () => {
  const raw = '{"type":"text-delta","delta":"a\0b"}\n'
  assert.throws(() => reduceEvents(raw), { message: /^reduceEvents: line 1, byte 31: invalid JSON: control character in a string/, offset: 31 })
  const session = '{"role":"user","content":"a\0b"}'
  assert.throws(() => pi.toMessages(session), { name: 'TypeError', message: `pi.toMessages: line 1: invalid JSON: unexpected byte 0x00 at column ${session.indexOf('\0') + 1}` })
  const thoughts = '[{"id":"t\0","role":0,"parts":[]}]'
  assert.throws(() => sn.toMessages(thoughts), { name: 'TypeError', message: `sn.toMessages: invalid JSON: unexpected byte 0x00 at column ${thoughts.indexOf('\0') + 1}` })

  const escaped = '{"type":"text-delta","delta":"a\\u0000b"}\n'
  assert.equal(reduceEvents(escaped)[0].text, 'a\0b')
  assert.equal(pi.toMessages('{"role":"user","content":"a\\u0000b"}')[0].chunks[0].text, 'a\0b')
  assert.equal(sn.toMessages('[{"id":"t","role":0,"parts":[{"type":0,"text":"\\u0000"}]}]')[0].chunks[0].text, '\0')
  assert.equal(sn.toMessage({ id: 't', role: 0, parts: [{ type: 0, text: '\0\0' }] }).chunks[0].text, '\0\0')
  const chunks = []
  appendEventToChunks(chunks, { type: 'notice', message: 'x\0y' })
  assert.equal(chunks[0].text, 'x\0y')
  // An error message carrying the caller's text keeps its NUL (no C string cuts it).
  assert.throws(() => adaptACPMessages([{ type: 'a\0b', data: {} }]), { message: 'Unknown message type: a\0b' })
})

// ─── A number of 400 digits ─────────────────────────────────────────────────────────

test('a JSON number of 400 digits reads as JSON.parse reads it, on every path', () => {
  const huge = '9'.repeat(400)
  const tiny = `0.${'0'.repeat(399)}1`
  for (const number of [huge, `-${huge}`, tiny, `${huge}.5e-300`]) {
    const expected = JSON.parse(number)
    const text = `${toolCallLine(number)}\n{"type":"tool-result","toolResult":{"toolCallId":"a","result":${number},"isError":false}}\n{"type":"error","error":"e","statusCode":${number}}\n`
    const chunks = reduceEvents(text)
    assert.equal(chunks[0].calls[0].arguments, expected)
    assert.equal(chunks[0].calls[0].result, expected)
    assert.equal(chunks[1].statusCode, expected)
    assert.ok(reduceEventsToJson(text).includes(`"arguments":${number},"result":${number}`), 'payload digits kept as written')
    assert.equal(pi.toMessages(piCallLine(number))[0].chunks[0].calls[0].arguments, expected)
    const call = { id: 't', role: 0, parts: [{ type: 1, functionCall: { id: 'a', name: 'n', arguments: number } }] }
    assert.equal(sn.toMessage(call).chunks[0].calls[0].arguments, expected)
  }
  // Where a number is a code, 400 digits are no code: an unknown part is skipped, an
  // unknown role refused with its text.
  assert.deepEqual(sn.toMessages(`[{"id":"t","role":0,"parts":[{"type":${huge},"text":"x"}]}]`)[0].chunks, [])
  assert.throws(() => sn.toMessages(`[{"id":"t","role":${huge},"parts":[]}]`), {
    name: 'TypeError',
    message: `sn.toMessages: thoughts[0].role must be 0, 1, "Assistant" or "User", got ${huge}`,
  })
})
