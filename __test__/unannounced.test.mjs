// A tool output or execution whose call no message announced, through every entry point
// of the binding: the AI SDK's is counted (and refused under strict) alike in readHistory,
// loadHistory(Sync), foldStream and the live Conversation; pi's is a call with its result.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Conversation, foldStream, loadHistory, loadHistorySync, readHistory } from '../index.js'

// A tool's return arriving in a later request than its call, as pydantic-ai's Vercel AI
// adapter streams it.
const sse = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n'
const ORPHAN = sse([
  { type: 'start' },
  { type: 'start-step' },
  { type: 'tool-output-error', toolCallId: 'tc_err', errorText: 'Search failed' },
  { type: 'tool-output-available', toolCallId: 'tc_int', output: 'interrupted' },
  { type: 'tool-output-denied', toolCallId: 'tc_denied' },
  { type: 'finish-step' },
  { type: 'finish' },
])
const KINDS = {
  'tool-output-available for a call never announced': 1,
  'tool-output-denied for a call never announced': 1,
  'tool-output-error for a call never announced': 1,
}

test('ai-sdk: an output for a call never announced is counted in every entry point, refused under strict', async () => {
  const read = readHistory(ORPHAN, { format: 'ai-sdk' })
  assert.equal(read.skipped.count, 3)
  assert.deepEqual(read.skipped.kinds, KINDS)
  const folded = foldStream(ORPHAN, { format: 'ai-sdk' })
  assert.deepEqual(folded.skipped.kinds, KINDS)
  assert.deepEqual(folded.messages, read.messages)
  // A string is a path to loadHistory: the bytes are given.
  const bytes = Buffer.from(ORPHAN)
  assert.deepEqual(loadHistorySync(bytes, 'ai-sdk'), read.messages)
  assert.deepEqual(await loadHistory(bytes, 'ai-sdk'), read.messages)
  const live = new Conversation({ format: 'ai-sdk' })
  live.push(ORPHAN)
  assert.deepEqual(live.skipped.kinds, KINDS)
  assert.deepEqual(live.messages, read.messages)

  assert.throws(() => readHistory(ORPHAN, { format: 'ai-sdk', strict: true }), /line 5.*never announced/s)
  assert.throws(() => foldStream(ORPHAN, { format: 'ai-sdk', strict: true }), /never announced/)
  assert.throws(() => loadHistorySync(bytes, 'ai-sdk', { strict: true }), /never announced/)
  await assert.rejects(loadHistory(bytes, 'ai-sdk', { strict: true }), /never announced/)
  const strict = new Conversation({ format: 'ai-sdk', strict: true })
  assert.throws(() => strict.push(ORPHAN), (error) => error.line === 5 && /never announced/.test(error.message))
})

test('pi-events: executions no message announced are calls with their results, in foldStream and live', () => {
  const bytes = readFileSync(new URL('./fixtures/pi-unannounced.events.ndjson', import.meta.url))
  const { messages, skipped } = foldStream(bytes, { format: 'pi-events', strict: true })
  assert.equal(skipped.count, 0)
  const calls = messages.flatMap((m, i) => m.chunks.filter((c) => c.type === 'tool-batch').flatMap((c) => c.calls.map((call) => ({ at: i, ...call }))))
  assert.deepEqual(calls, [
    { at: 1, id: 'call_ls_1', name: 'bash', arguments: { command: 'ls notes | wc -l' }, result: '42\n', isError: false },
    { at: 2, id: 'call_rd_2', name: 'read', arguments: { path: 'notes/index.md' }, result: '# Index', isError: true },
  ])
  assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'assistant', 'assistant', 'assistant'])
  // The message announced after its call keeps its text; the last was read from its end.
  assert.deepEqual(messages[3].chunks, [{ type: 'text', text: 'Es sind 42 — ich lese den Index.' }])
  assert.deepEqual(messages[4].chunks.map((c) => c.type), ['thinking', 'text'])
  const live = new Conversation({ format: 'pi-events' })
  for (const line of bytes.toString('utf8').split('\n')) if (line) live.push(JSON.parse(line))
  assert.deepEqual(live.messages, messages)
})
