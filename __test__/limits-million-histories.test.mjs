// Limits (docs/limits.md): a million tool calls in one batch in a Pi session and in a
// Solar Network thought. Reading one holds about 1.5 KB per call; about 2 GB at the peak.
import test from 'node:test'
import assert from 'node:assert/strict'

import { pi, sn } from '../index.js'

const MILLION = 1_000_000

// Results for a few of the calls here; tests/limits.rs folds a result for every call.

test('a million tool calls in one batch: a Pi session', () => {
  const blocks = new Array(MILLION)
  for (let i = 0; i < MILLION; i++) blocks[i] = `{"type":"toolCall","id":"c${i}","name":"n","arguments":${i}}`
  const results = [MILLION - 1, 0, 424_242].map((i) => `{"role":"toolResult","toolCallId":"c${i}","content":"r${i}"}`)
  const [turn] = pi.toMessages(Buffer.from(`{"role":"assistant","content":[${blocks.join(',')}]}\n${results.join('\n')}`))
  assert.equal(turn.chunks[0].calls.length, MILLION)
  assert.deepEqual(turn.chunks[0].calls[424_242], { id: 'c424242', name: 'n', arguments: 424_242, result: 'r424242', isError: false })
  assert.equal(turn.chunks[0].calls[MILLION - 1].result, `r${MILLION - 1}`)
})

test('a million tool calls in one batch: a Solar Network thought', () => {
  const parts = new Array(MILLION)
  for (let i = 0; i < MILLION; i++) parts[i] = `{"type":1,"functionCall":{"id":"c${i}","name":"n","arguments":"${i}"}}`
  for (const i of [MILLION - 1, 0, 777_777]) parts.push(`{"type":2,"functionResult":{"callId":"c${i}","result":${-i},"isError":false}}`)
  const [message] = sn.toMessages(Buffer.from(`[{"id":"t","role":0,"parts":[${parts.join(',')}]}]`))
  assert.equal(message.chunks[0].calls.length, MILLION)
  assert.deepEqual(message.chunks[0].calls[777_777], { id: 'c777777', name: 'n', arguments: 777_777, result: -777_777, isError: false })
  assert.deepEqual(message.chunks[0].calls[MILLION - 1].result, 1 - MILLION)
})

