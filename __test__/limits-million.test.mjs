// Limits (docs/limits.md): a million tool calls in one batch (and their results), on
// the bytes path and through the drop-in. About 1.5 GB at the peak; the histories are in
// limits-million-histories.test.mjs, in a process of their own.
import test from 'node:test'
import assert from 'node:assert/strict'

import { ChunkStream, appendEventToChunks } from '../index.js'

const MILLION = 1_000_000
function lines(count, line) {
  const out = new Array(count)
  for (let i = 0; i < count; i++) out[i] = line(i)
  return out.join('\n')
}

test('a million tool calls in one batch, and their results: the bytes path', () => {
  const text = lines(MILLION, (i) => `{"type":"tool-call","toolCall":{"id":"c${i}","name":"n","arguments":{"i":${i}}}}`) + '\n' +
    lines(MILLION, (i) => `{"type":"tool-result","toolResult":{"toolCallId":"c${i}","result":${i},"isError":false}}`)
  const stream = new ChunkStream()
  stream.push(text)
  stream.end()
  assert.equal(stream.eventCount, 2 * MILLION)
  // Read as text: a million objects in JavaScript would only measure V8.
  const json = stream.toJsonString()
  const call = (i) => `{"id":"c${i}","name":"n","arguments":{"i":${i}},"result":${i},"isError":false}`
  assert.ok(json.startsWith(`[{"type":"tool-batch","calls":[${call(0)},${call(1)},`), 'one batch')
  assert.ok(json.includes(`,${call(500_000)},`))
  assert.ok(json.endsWith(`,${call(MILLION - 1)}]}]`))
  let calls = 0
  for (let at = json.indexOf('{"id":'); at !== -1; at = json.indexOf('{"id":', at + 1)) calls++
  assert.equal(calls, MILLION)
})

test('a million tool calls in one batch: the drop-in', () => {
  const chunks = []
  for (let i = 0; i < MILLION; i++) appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: `c${i}`, name: 'n', arguments: i } })
  assert.equal(chunks.length, 1)
  assert.equal(chunks[0].calls.length, MILLION)
  // As in the helper, a result looks through the batch's calls for its id.
  for (const i of [MILLION - 1, 0, 123_456]) {
    appendEventToChunks(chunks, { type: 'tool-result', toolResult: { toolCallId: `c${i}`, result: -i, isError: false } })
    assert.equal(chunks[0].calls[i].result, -i)
  }
})

