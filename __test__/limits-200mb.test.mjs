// Limits (docs/limits.md): a single line of 200 MB on every path that takes bytes or
// JSON text, and results longer than V8 can hold in a string. The lines are made with
// Buffer.alloc and joined once: a few seconds, about 1.5 GB at the peak.
import test from 'node:test'
import assert from 'node:assert/strict'

import { ChunkStream, appendEventToChunks, pi, reduceEvents, sn } from '../index.js'

const stillWorks = () => assert.deepEqual(reduceEvents('{"type":"text-delta","delta":"ok"}\n'), [{ type: 'text', text: 'ok' }])

const MB200 = 200_000_000
const line200 = (before, fill, after) => Buffer.concat([Buffer.from(before), Buffer.alloc(MB200, fill), Buffer.from(after)])
const isRun = (text, char, length) => text.length === length && text[0] === char && text[length - 1] === char && text[length >> 1] === char

test('a 200 MB line: the bytes path, whole or in 64 KB pieces', () => {
  const bytes = line200('{"type":"text-delta","delta":"', 'a', '"}\n{"type":"text-delta","delta":"b"}\n')
  const [chunk] = reduceEvents(bytes)
  assert.ok(isRun(chunk.text.slice(0, -1), 'a', MB200) && chunk.text.endsWith('ab'))
  const stream = new ChunkStream({ framing: 'ndjson' })
  for (let at = 0; at < bytes.length; at += 65536) stream.push(bytes.subarray(at, at + 65536))
  stream.end()
  assert.equal(stream.eventCount, 2)
  assert.equal(stream.toJsonString().length, MB200 + '[{"type":"text","text":"b"}]'.length)
})

test('a 200 MB line: the format readers and the drop-in', () => {
  const [user] = pi.toMessages(line200('{"role":"user","content":"', 'p', '"}\n'))
  assert.ok(isRun(user.chunks[0].text, 'p', MB200))
  const [thought] = sn.toMessages(line200('[{"id":"t","role":0,"parts":[{"type":0,"text":"', 's', '"}]}]'))
  assert.ok(isRun(thought.chunks[0].text, 's', MB200))
  const delta = 'd'.repeat(MB200)
  const chunks = []
  appendEventToChunks(chunks, { type: 'reasoning-delta', delta })
  appendEventToChunks(chunks, { type: 'reasoning-delta', delta: 'e' })
  assert.equal(chunks[0].text.length, MB200 + 1)
})

test('a result longer than V8 can hold in a string is a RangeError saying so', () => {
  // 100 million "é" (200 MB of UTF-8) are 600 MB of \u00e9 escapes in the ASCII output,
  // past V8's limit of 2^29 - 24 characters.
  const bytes = line200('{"type":"text-delta","delta":"', 'é', '"}')
  const tooLong = (name) => `${name}: the result would be a string of 600000027 characters, longer than V8 can hold`
  assert.throws(() => reduceEvents(bytes), { name: 'RangeError', message: tooLong('reduceEvents') })
  const stream = new ChunkStream()
  stream.push(bytes)
  stream.end()
  assert.throws(() => stream.toJsonString(), { name: 'RangeError', message: tooLong('ChunkStream.toJsonString') })
  assert.equal(stream.eventCount, 1, 'the stream is as it was')
  // A Pi session writes each message's id in its entry (and as the next one's parent).
  const id = 'x'.repeat(10_000_000)
  const messages = Array.from({ length: 30 }, (_, i) => ({ id, role: 'assistant', chunks: [{ type: 'tool-batch', calls: [{ id: `c${i}`, name: 'n', arguments: {} }] }] }))
  assert.throws(() => pi.fromMessages(messages), {
    name: 'RangeError',
    message: /^pi\.fromMessages: the result would be a string of \d+ bytes of UTF-8, longer than V8 can hold$/,
  })
  stillWorks()
})

