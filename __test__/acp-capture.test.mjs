// ACP as it is captured: a client's traffic log (each JSON-RPC message wrapped in a record
// of its own, as an object or as JSON text) and an agent's stdout are read; the prompt of
// each session/prompt request is the user's message; a stop reason other than end_turn and
// a failed prompt are visible; every entry point takes a whole JSON-RPC message.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'

import { acp, detectFormat, foldStream, loadHistory, loadHistorySync, readHistory } from '../index.js'

const fixture = (name) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url))
const traffic = fixture('acp-client-traffic.jsonl')
const stdout = fixture('acp-agent-stdout.ndjson')

test('a traffic log and an agent stdout are told as ACP', () => {
  assert.deepEqual(detectFormat(traffic), { format: 'acp' })
  assert.deepEqual(detectFormat(stdout), { format: 'acp' })
})

test('a traffic log: prompts are user messages, stop reasons and failures are shown', () => {
  const read = readHistory(traffic)
  assert.equal(read.format, 'acp')
  assert.deepEqual(read.skipped, { count: 0, examples: [], kinds: {} }, 'protocol traffic is not skipped content')
  const shown = read.messages.map((m) => [m.role, m.chunks.map((c) => c.type === 'system' ? `system:${c.kind}:${c.text}` : c.type === 'error' ? `error:${c.message}` : c.type === 'text' ? `text:${c.text}` : c.type)])
  assert.deepEqual(shown, [
    ['user', ['text:Fix the flaky checkout test', 'file']],
    ['assistant', ['thinking', 'text:Reading the test first.', 'tool-batch', 'text:The timer is now faked.']],
    ['user', ['text:Now explain every test in the repository']],
    ['assistant', ['text:There are 412 tests. The first', 'system:stopped:max_tokens']],
    ['user', ['text:Delete the database']],
    ['assistant', ['system:stopped:refusal']],
    ['user', ['text:Run the whole suite']],
    ['assistant', ['tool-batch', 'system:cancelled:cancelled']],
    ['user', ['text:Try once more']],
    ['assistant', ['error:Internal error: the model is overloaded']],
  ])
  assert.deepEqual(read.messages[0].chunks[1], { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' })
  // The update that came before its call made the call; the call filled it in. The call a
  // permission request asks about is a call too, as Zed shows it (its toolCall is an update).
  assert.deepEqual(read.messages[1].chunks[2].calls, [{
    id: 'call-1',
    name: 'Read checkout.test.ts',
    arguments: { path: 'checkout.test.ts' },
    result: [{ type: 'content', content: { type: 'text', text: "test('pays', async () => {})" } }],
    isError: false,
  }, { id: 'call-2', name: 'Edit checkout.test.ts' }])
  assert.deepEqual(read.messages[7].chunks[0].calls[0], { id: 'call-3', name: 'npm test', result: { exitCode: 130 }, isError: true })
})

test('an agent stdout: a call known only from its update is kept; a line that is no ACP message is skipped and counted', () => {
  const read = readHistory(stdout)
  assert.deepEqual(read.messages, [{
    id: 'line-4',
    role: 'assistant',
    chunks: [
      { type: 'tool-batch', calls: [{ id: 'grep-1', name: 'grep TODO', result: [{ type: 'content', content: { type: 'text', text: 'src/a.rs:3: TODO' } }], isError: false }] },
      { type: 'text', text: 'One TODO left.' },
      { type: 'system', kind: 'stopped', text: 'max_turn_requests' },
    ],
  }])
  assert.deepEqual(read.skipped, { count: 1, examples: ['line 2: neither an ACP notification nor JSON-RPC'], kinds: { 'neither an ACP notification nor JSON-RPC': 1 } })
  assert.throws(() => readHistory(stdout, { format: 'acp', strict: true }), (e) => e.line === 2 && /neither an ACP notification nor JSON-RPC/.test(e.message))
})

test('stream == history: the live fold, loadHistory and acp.toMessages give the same messages', async () => {
  for (const file of [traffic, stdout]) {
    const history = readHistory(file).messages
    assert.deepEqual(foldStream(file, { format: 'acp' }).messages, history)
    assert.deepEqual(loadHistorySync(file, 'acp'), history)
    assert.deepEqual(await loadHistory(file, 'acp'), history)
    assert.deepEqual(acp.toMessages(file), history)
    const lines = file.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
    assert.deepEqual(acp.toMessages(lines).map((m) => m.chunks), history.map((m) => m.chunks), 'parsed lines')
  }
})

test('every ACP entry point takes the whole JSON-RPC message as readily as its params', () => {
  const params = { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } }
  const message = { jsonrpc: '2.0', method: 'session/update', params }
  assert.deepEqual(acp.toAgentEvents(message), acp.toAgentEvents(params))
  assert.deepEqual(acp.toAgentEvents(message), [{ type: 'text-delta', delta: 'hi' }])
  const call = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'ls', status: 'completed', content: [] } } }
  assert.deepEqual(acp.toWebviewMessages([message, call]), acp.toWebviewMessages([params, call.params]))
  assert.deepEqual(acp.toMessages([message, call]), acp.toMessages([params, call.params]))
  // Other JSON-RPC messages are protocol traffic: no events, no messages.
  assert.deepEqual(acp.toAgentEvents({ jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } }), [])
  assert.deepEqual(acp.toAgentEvents({ jsonrpc: '2.0', id: 4, method: 'fs/read_text_file', params: { path: '/a' } }), [])
  assert.deepEqual(acp.toWebviewMessages([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }]), [])
  // A session/update message without params is named by its path.
  assert.throws(() => acp.toAgentEvents({ jsonrpc: '2.0', method: 'session/update' }), { name: 'TypeError', message: 'acp.toAgentEvents: update.params must be an object, got undefined' })
})

test('a proxy passes messages on inside its own: they are read as the messages they carry', () => {
  const lines = [
    { jsonrpc: '2.0', id: 2, method: 'proxy/successor', params: { method: 'session/prompt', params: { sessionId: 'p', prompt: [{ type: 'text', text: 'Hello' }] } } },
    { jsonrpc: '2.0', method: 'proxy/successor', params: { method: 'session/update', params: { sessionId: 'p', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello back' } } } } },
  ]
  const text = lines.map((l) => JSON.stringify({ ts: '2026-01-01T00:00:00Z', direction: 'fromClient', json: JSON.stringify(l) })).join('\n')
  assert.deepEqual(readHistory(text).messages.map((m) => [m.role, m.chunks]), [
    ['user', [{ type: 'text', text: 'Hello' }]],
    ['assistant', [{ type: 'text', text: 'hello back' }]],
  ])
})

test("a recorder's export (one JSON document, each message a record in `messages`) is told and read like the traffic log", async () => {
  const path = new URL('./fixtures/acp-export.json', import.meta.url)
  const exported = readFileSync(path)
  assert.deepEqual(detectFormat(exported), { format: 'acp' })
  const records = JSON.parse(exported.toString('utf8')).messages
  const log = records.map((record) => record.raw).join('\n')
  const want = readHistory(log).messages
  assert.deepEqual(want.map((m) => [m.role, m.chunks.map((c) => c.type)]), [['user', ['text']], ['assistant', ['text', 'tool-batch', 'text']]])
  assert.deepEqual(readHistory(exported).messages, want)
  assert.deepEqual(loadHistorySync(exported, 'acp'), want)
  assert.deepEqual(await loadHistory(path.pathname, 'acp'), want, 'read from the file')
  assert.deepEqual(await loadHistory(exported, 'acp'), want)
})

test('the live fold and the command read the export too', async () => {
  const exported = readFileSync(new URL('./fixtures/acp-export.json', import.meta.url))
  assert.deepEqual(foldStream(exported, { format: 'acp' }).messages, readHistory(exported).messages)
})

test('a call id sent again after the next prompt is a call of the new turn, live and in the history alike', async () => {
  // The first turn's call was made by an update that came before its call; the second
  // turn announces a call with the same id. A turn ends at the next prompt, so the second
  // is a call of its own, wherever (and however) the recording is read.
  const update = (u) => JSON.stringify({ sessionId: 's', update: u })
  const done = { sessionUpdate: 'tool_call_update', toolCallId: 'c4', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: '42 passed' } }] }
  const bytes = Buffer.from([
    update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Fix it' } }),
    update(done),
    update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Looking.' } }),
    update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Pass now?' } }),
    update({ sessionUpdate: 'tool_call', toolCallId: 'c4', title: 'npm test', kind: 'execute', status: 'in_progress', rawInput: { command: 'npm test' } }),
    update(done),
  ].join('\n') + '\n')
  const read = readHistory(bytes, { format: 'acp' }).messages
  assert.deepEqual(read.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'])
  assert.deepEqual(read[3].chunks[0].calls.map((c) => [c.id, c.name, c.arguments]), [['c4', 'npm test', { command: 'npm test' }]])
  assert.deepEqual(foldStream(bytes, { format: 'acp' }).messages, read)
  assert.deepEqual(await loadHistory(bytes, 'acp'), read)
})

test('updates after the next prompt to a call of the turn before make a call of the new turn, live and in the history alike', async () => {
  // The earlier turn's call has no result yet, so a history still holds its message when
  // the updates come; they are the new turn's all the same.
  const update = (u) => JSON.stringify({ sessionId: 's', update: u })
  const bytes = Buffer.from([
    update({ sessionUpdate: 'tool_call', toolCallId: 'r1', title: 'Read a.ts', kind: 'read', status: 'pending' }),
    update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Go on' } }),
    update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Reading.' } }),
    update({ sessionUpdate: 'tool_call_update', toolCallId: 'r1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'export {}' } }] }),
  ].join('\n') + '\n')
  const read = readHistory(bytes, { format: 'acp' }).messages
  assert.deepEqual(read.map((m) => m.chunks.map((c) => c.type === 'tool-batch' ? c.calls.map((k) => [k.id, k.name, 'result' in k]) : c.type)), [
    [[['r1', 'Read a.ts', false]]],
    ['text'],
    ['text', [['r1', 'other', true]]],
  ])
  assert.deepEqual(foldStream(bytes, { format: 'acp' }).messages, read)
  assert.deepEqual(await loadHistory(bytes, 'acp'), read)
})
