// Session files as their tools write them, through the binding: Claude Code transcripts,
// Qwen Code chat recordings and ACP recordings, read whole, from parsed lines and by
// loadHistory alike; the ChatViewer adapter's upstream user display; bad input.
import test from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'

import { acp, adaptJSONLMessages, claude, loadHistory, loadHistorySync, qwen } from '../index.js'
import { readExample, readNdjson } from './fixtures.mjs'

const path = (name) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url))

const readers = [
  ['claude-code-session.jsonl', 'claude', claude],
  ['qwen-code-chat.jsonl', 'qwen', qwen],
  ['acp-v1-load.ndjson', 'acp', acp],
]

for (const [name, format, namespace] of readers) {
  test(`${format}: text, Buffer, parsed lines and loadHistory give the same messages`, async () => {
    const history = loadHistorySync(path(name), format, { view: 'transcript' })
    assert.ok(history.length > 3)
    assert.deepEqual(namespace.toMessages(readExample(name)), history)
    assert.deepEqual(namespace.toMessages(readExample(name).toString('utf8')), history)
    assert.deepEqual(namespace.toMessages(readNdjson(name)), history)
    assert.deepEqual(await loadHistory(path(name), format, { view: 'transcript' }), history)
    // Each stored message stays one message: no two have one id.
    assert.equal(new Set(history.map((m) => m.id)).size, history.length)
  })
}

test('claude: tool calls and their results, signatures, images and errors survive', () => {
  const messages = claude.toMessages(readExample('claude-code-session.jsonl'))
  const calls = messages.flatMap((m) => m.chunks).flatMap((c) => (c.type === 'tool-batch' ? c.calls : []))
  assert.deepEqual(calls.map((c) => [c.name, c.isError]), [['Read', false], ['Edit', true], ['Task', false], ['Bash', false]])
  const chunks = messages.flatMap((m) => m.chunks)
  assert.ok(chunks.some((c) => c.type === 'file' && c.mediaType === 'image/png' && c.data.startsWith('iVBOR')))
  assert.ok(chunks.some((c) => c.type === 'thinking' && typeof c.metadata?.anthropic?.signature === 'string'))
  assert.ok(chunks.some((c) => c.type === 'error' && c.message.startsWith('API Error: 529')))
})

test('claude lines read as ChatViewer rows: the summary and snapshot lines are no rows, tool rows are kept', () => {
  const messages = loadHistorySync(path('claude-code-session.jsonl'), 'chatviewer')
  const calls = messages.flatMap((m) => m.chunks).flatMap((c) => (c.type === 'tool-batch' ? c.calls : []))
  assert.equal(calls.length, 4)
  assert.ok(calls.every((c) => 'result' in c))
})

test('qwen: thoughts are thinking chunks, never mixed into the answer', () => {
  const messages = qwen.toMessages(readExample('qwen-code-chat.jsonl'))
  const first = messages.find((m) => m.role === 'assistant')
  assert.deepEqual(first.chunks.map((c) => c.type), ['thinking', 'text', 'tool-batch'])
  assert.ok(!first.chunks[1].text.includes('exclusive'))
  assert.deepEqual(new Set(messages.map((m) => m.role)), new Set(['user', 'assistant', 'system']))
})

test('acp.toAgentEvents keeps the seed results on chunks with a messageId', () => {
  const update = { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'hi' } }
  assert.deepEqual(acp.toAgentEvents(update), [{ type: 'text-delta', delta: 'hi' }])
  const call = { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Read a.rs', kind: 'read' }
  // The seed names the event by kind; the fold shows the title.
  assert.equal(acp.toAgentEvents(call)[0].toolCall.name, 'read')
  assert.equal(acp.toMessages([call])[0].chunks[0].calls[0].name, 'Read a.rs')
  assert.deepEqual(acp.toWebviewMessages([update, { ...update, messageId: 'm2' }]), [
    { type: 'message', data: { role: 'assistant', content: 'hihi' } },
  ])
})

test('adaptJSONLMessages shows what the Qwen webui shows for user rows', () => {
  const tag = '<qwen:user-prompt-submit-context>\nhook-only context\n</qwen:user-prompt-submit-context>'
  const user = (parts, systemPayload) => ({
    uuid: 'u',
    timestamp: '2026-07-28T00:00:00.000Z',
    type: 'user',
    message: { role: 'user', parts },
    ...(systemPayload === undefined ? {} : { systemPayload }),
  })
  const rows = adaptJSONLMessages([
    user([{ text: 'expanded model prompt' }, { text: tag }], { displayText: 'raw @file prompt', hookContext: 'hook-only context' }),
    user([{ text: 'expanded model prompt' }], { displayText: '', hookContext: 'hook-only context' }),
    user([{ text: 'user prompt' }, { text: tag }]),
    user([{ text: 'user prompt' }, { text: 'legacy bare hook context' }]),
    // The current userTranscriptDisplay.ts: a null payload is none (the tag part is left
    // out), and a final tag part proves where a displayText alone came from.
    user([{ text: 'user prompt' }, { text: tag }], null),
    user([{ text: 'user prompt' }, { text: tag }], { displayText: 'raw @file prompt' }),
    user([{ text: 'notification model text' }], { displayText: 'Background agent completed' }),
  ])
  assert.deepEqual(rows.map((r) => r.content), [
    'raw @file prompt',
    '',
    'user prompt',
    'user promptlegacy bare hook context',
    'user prompt',
    'raw @file prompt',
    'notification model text',
  ])
  // The display text is the caller's own string.
  const payload = { displayText: 'shown', hookContext: 'h' }
  assert.equal(adaptJSONLMessages([user([{ text: 'x' }], payload)])[0].content, payload.displayText)
})

test('bad input is a TypeError naming the place', () => {
  assert.throws(() => acp.toMessages([{ update: { sessionUpdate: 'tool_call', title: 'x' } }]), {
    name: 'TypeError',
    message: /acp\.toMessages: history\[0\]\.update\.toolCallId must be a string/,
  })
  assert.throws(() => claude.toMessages(42), { name: 'TypeError', message: /claude\.toMessages: "history" must be a string, a Buffer or an array, got number/ })
  assert.throws(() => qwen.toMessages('{"type":"user"\n'), { name: 'TypeError', message: /line 1/ })
  const input = [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } }]
  const copy = structuredClone(input)
  acp.toMessages(input)
  assert.deepEqual(input, copy, 'the caller\'s updates are left as they were')
})

test('adaptJSONLMessages takes a whole Claude Code transcript: no row of a type the typings do not list', () => {
  const lines = readNdjson('claude-code-session.jsonl')
  const rows = adaptJSONLMessages(lines)
  const listed = new Set(['user', 'assistant', 'tool_call', 'thinking', 'system', 'error'])
  assert.ok(rows.every((row) => listed.has(row.type)))
  assert.equal(rows.length, lines.filter((line) => listed.has(line.type)).length)
  // A Qwen recording: its tool_result records are not rows.
  const records = readNdjson('qwen-code-chat.jsonl')
  const qwenRows = adaptJSONLMessages(records)
  assert.ok(qwenRows.every((row) => listed.has(row.type)))
  assert.ok(records.some((record) => record.type === 'tool_result'))
})

test('unknown lines are counted, and refused when strict', async () => {
  const { readHistory } = await import('../index.js')
  const acpText = readExample('acp-v1-load.ndjson')
  assert.equal(readHistory(acpText, { format: 'acp' }).skipped.count, 1)
  assert.throws(() => readHistory(acpText, { format: 'acp', strict: true }), /line 23: a sessionUpdate this version does not know \(strict/)
  const claudeText = `${readExample('claude-code-session.jsonl')}{"type":"brand-new-kind","uuid":"z"}\n`
  const read = readHistory(claudeText, { format: 'claude', view: 'transcript' })
  assert.equal(read.skipped.count, 1)
  assert.deepEqual(read.messages, claude.toMessages(readExample('claude-code-session.jsonl')))
  assert.throws(() => readHistory(claudeText, { format: 'claude', strict: true }), /line 28/)
  const qwenText = `${readExample('qwen-code-chat.jsonl')}{"uuid":"x","parentUuid":null,"sessionId":"s","timestamp":"t","type":"system","subtype":"brand_new"}\n`
  assert.equal(readHistory(qwenText, { format: 'qwen' }).skipped.count, 1)
  assert.equal(readHistory(readExample('qwen-code-chat.jsonl'), { format: 'qwen' }).skipped.count, 0)
})
