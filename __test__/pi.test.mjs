// Pi / OpenClaw: the recorded gateway stream against the session persisted at its end,
// the write/read round trip, and bad input.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'

import { foldStream, loadHistory, loadHistorySync, pi, readHistory } from '../index.js'
import { frozen, readExample } from './fixtures.mjs'

const sessionBytes = readExample('pi-session.jsonl')
const history = pi.toMessages(sessionBytes)
const tree = readExample('../__test__/fixtures/pi-tree.jsonl')

const only = (role) => (messages) => messages.filter((m) => m.role === role).map((m) => m.chunks)

test('stream == history: each live stream folds into exactly the messages its run stored', () => {
  const pairs = [
    ['pi-session.stream.ndjson', 'pi-session.jsonl', 'pi-stream', 6],
    ['pi-events.ndjson', 'pi-events.session.jsonl', 'pi-events', 3],
    ['openclaw-gateway.ndjson', 'openclaw-session.jsonl', 'pi-stream', 4],
  ]
  for (const [stream, session, format, replies] of pairs) {
    const folded = foldStream(readExample(stream))
    assert.equal(folded.format, format)
    assert.deepEqual(folded.skipped, { count: 0, examples: [], kinds: {} })
    const stored = pi.toMessages(readExample(session))
    assert.equal(only('assistant')(stored).length, replies, session)
    assert.deepEqual(only('assistant')(folded.messages), only('assistant')(stored), stream)
    assert.equal(JSON.stringify(only('assistant')(folded.messages)), JSON.stringify(only('assistant')(stored)), `${stream}: key order`)
  }
  const events = foldStream(readExample('pi-events.ndjson'))
  assert.deepEqual(only('user')(events.messages), only('user')(pi.toMessages(readExample('pi-events.session.jsonl'))), 'pi\'s events carry the user\'s messages too')
})

test('each stored message is its own message, with the id of its entry', () => {
  assert.deepEqual(history.map((m) => m.role), ['system', 'user', 'assistant', 'assistant', 'assistant', 'user', 'assistant', 'assistant', 'user', 'assistant'])
  assert.equal(history[1].id, '1a2b3c02')
  assert.deepEqual(history[0].chunks, [{ type: 'system', kind: 'model-changed', text: 'anthropic/claude-sonnet-4-5' }])
  const [first, second, third] = history.slice(2, 5).map((m) => m.chunks)
  assert.deepEqual(first.map((c) => c.type), ['thinking', 'text', 'tool-batch'])
  assert.deepEqual(second.map((c) => c.type), ['thinking', 'text', 'tool-batch'])
  assert.deepEqual(third.map((c) => c.type), ['text'])
  assert.ok(first[0].metadata.anthropic.signature.startsWith('EqQ'), 'the signature seals the thinking, keyed by provider')
  const [failing] = first[2].calls
  assert.equal(failing.isError, true, 'a failing tool keeps isError')
  assert.match(failing.result, /✕ parses ünïcödé/)
  assert.equal(second[2].calls.length, 2, 'parallel calls share one batch')
  assert.equal(second[2].calls[0].result, 'export function parse(src: string) {\n  return tokenize(src)\n}\n', 'text blocks join')
  assert.ok(Array.isArray(history[6].chunks[1].calls[1].result), 'content with an image stays as given')
  assert.ok(!JSON.stringify(history).includes('\ufffd'), 'nothing became U+FFFD')
  assert.ok(third[0].text.includes('😀'))
})

test('a session is a tree: the current leaf\'s branch by default, any leaf on request', () => {
  assert.deepEqual(pi.leaves(tree), [
    { id: 'a000000c', depth: 12, line: 13, current: false },
    { id: 'a0000018', depth: 22, line: 25, current: true },
  ])
  const current = pi.toMessages(tree)
  assert.ok(!current.some((m) => m.id === 'a000000c'), 'the abandoned branch is not shown')
  assert.deepEqual(current.find((m) => m.id === 'a000000d').chunks, [
    { type: 'system', kind: 'branch-summary', text: 'The user asked for a French rewrite of setup.md; the answer was aborted.' },
  ])
  const abandoned = pi.toMessages(tree, { leaf: 'a000000c' })
  assert.deepEqual(abandoned.at(-1).chunks, [{ type: 'text', text: 'Voici la version' }, { type: 'error', message: 'Operation aborted' }])
  assert.deepEqual(readHistory(tree, { leaf: 'a000000c' }).messages, abandoned)
  rejects(() => pi.toMessages(tree, { leaf: 'zzz' }), 'pi.toMessages: the session has no entry with id "zzz" (leaf)')
  rejects(() => pi.toMessages(tree, { leaf: 5 }), 'pi.toMessages: "options.leaf" must be a string, got number')
})

test('bare message lines (the seed\'s format), a string, a Buffer and parsed lines read alike', () => {
  const entries = sessionBytes.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
  const bare = entries.filter((e) => e.type === 'message').map((e) => JSON.stringify(e.message)).join('\n')
  const chunksOf = (messages) => messages.filter((m) => m.role !== 'system').map((m) => [m.role, m.chunks])
  assert.deepEqual(chunksOf(pi.toMessages(bare)), chunksOf(history))
  assert.equal(pi.toMessages(bare)[0].id, 'line-1', 'bare lines have no ids: the line number stands in')
  assert.deepEqual(pi.toMessages(sessionBytes.toString('utf8')), history)
  assert.deepEqual(pi.toMessages(frozen(entries)), history)
  assert.deepEqual(pi.toMessages(new Uint8Array(sessionBytes)), history)
})

test('fromMessages writes a session that reads back to the same messages', () => {
  for (const session of [sessionBytes, tree]) {
    const stored = pi.toMessages(session)
    const written = pi.fromMessages(stored)
    assert.equal(typeof written, 'string')
    const lines = written.trim().split('\n').map((line) => JSON.parse(line))
    assert.deepEqual(lines[0], { type: 'session', version: 3 })
    assert.ok(lines.slice(1).every((line, i) => line.parentId === (i ? lines[i].id : null)), 'one chain')
    assert.deepEqual(pi.toMessages(written), stored)
  }
  const lines = pi.fromMessages(history).trim().split('\n').map((line) => JSON.parse(line))
  const toolResult = lines.find((line) => line.message?.role === 'toolResult').message
  assert.deepEqual(Object.keys(toolResult), ['role', 'toolCallId', 'toolName', 'content', 'isError'])
})

test('round trip keeps unpaired surrogates, unsigned thinking and empty messages', () => {
  const messages = [
    { id: 'u1', role: 'user', chunks: [{ type: 'text', text: 'half \ud83d' }] },
    {
      id: 'a1',
      role: 'assistant',
      chunks: [
        { type: 'thinking', text: 'unsigned' },
        { type: 'text', text: '\ude00 tail' },
        { type: 'tool-batch', calls: [{ id: 'c1', name: 'x', arguments: { n: 1.5 }, result: '', isError: false }, { id: 'c2', name: 'y', arguments: [] }] },
        { type: 'thinking', text: 'signed', metadata: { openai: { signature: 's' } } },
      ],
    },
    { id: 'u2', role: 'user', chunks: [] },
    { id: 'a2', role: 'assistant', chunks: [] },
  ]
  const written = pi.fromMessages(messages)
  assert.ok(written.includes('\\ud83d'), 'a lone surrogate is written as an escape')
  assert.deepEqual(pi.toMessages(written), messages)
  assert.deepEqual(pi.toMessages(Buffer.from(written)), messages)
})

test('toAgentEvents maps each gateway event', () => {
  assert.deepEqual(pi.toAgentEvents({ type: 'delta', text: 'Hi' }), [{ type: 'text-delta', delta: 'Hi' }])
  assert.deepEqual(pi.toAgentEvents({ type: 'thinking-delta', text: 'hm' }), [{ type: 'reasoning-delta', delta: 'hm' }])
  assert.deepEqual(pi.toAgentEvents({ type: 'thinking-end', signature: 's' }), [
    { type: 'reasoning-end', metadata: { unknown: { signature: 's' } } },
  ])
  assert.deepEqual(pi.toAgentEvents({ type: 'thinking-end' }), [], 'no signature: nothing to seal with')
  assert.deepEqual(pi.toAgentEvents({ type: 'tool-start', toolCallId: 't', name: 'exec', args: { a: [1] } }), [
    { type: 'tool-call', toolCall: { id: 't', name: 'exec', arguments: { a: [1] } } },
  ])
  assert.deepEqual(pi.toAgentEvents({ type: 'tool-end', toolCallId: 't', name: 'exec', result: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }), [
    { type: 'tool-result', toolResult: { toolCallId: 't', result: 'ab', isError: false } },
  ])
  assert.deepEqual(pi.toAgentEvents({ type: 'tool-end', toolCallId: 't', name: 'exec', result: 'x', isError: true })[0].toolResult.isError, true)
  assert.deepEqual(pi.toAgentEvents({ type: 'final' }), [])
  assert.deepEqual(pi.toAgentEvents({ type: 'heartbeat', at: 1 }), [], 'unknown events are skipped')
  assert.deepEqual(pi.toAgentEvents({ type: 'delta', text: '\ud83d' })[0].delta, '\ud83d')
})

test('unknown blocks, roles and entry types are skipped and counted; strict refuses them', () => {
  const text = [
    '{"type":"session","version":3}',
    '{"type":"compaction","id":"c","summary":"…"}',
    '{"role":"user","content":"plain string content"}',
    '{"role":"assistant","content":[{"type":"redacted","data":"x"},{"type":"text","text":"ok"},{"type":"image","data":"","mimeType":"image/png"}]}',
    '{"role":"bashExecution","command":"ls"}',
    '{"note":"no role, no type"}',
    '',
  ].join('\r\n')
  const expected = [
    { id: 'c', role: 'system', chunks: [{ type: 'system', kind: 'compaction', text: '…' }] },
    { id: 'line-3', role: 'user', chunks: [{ type: 'text', text: 'plain string content' }] },
    { id: 'line-4', role: 'assistant', chunks: [{ type: 'text', text: 'ok' }, { type: 'file', mediaType: 'image/png', data: '' }] },
    { id: 'line-5', role: 'user', chunks: [{ type: 'tool-batch', calls: [{ id: 'line-5', name: 'bash', arguments: { command: 'ls' }, result: {}, isError: false }] }] },
  ]
  assert.deepEqual(pi.toMessages(text), expected)
  assert.deepEqual(readHistory(text, { format: 'pi', view: 'transcript' }), {
    format: 'pi',
    messages: expected,
    skipped: {
      count: 2,
      examples: ['line 4: content[0]: unknown content block "redacted"', 'line 6: a line that is neither an entry nor a message'],
      kinds: { 'content[0]: unknown content block "redacted"': 1, 'a line that is neither an entry nor a message': 1 },
    },
    leftOut: { count: 0, reasons: {}, examples: [] },
  })
  rejects(() => pi.toMessages(text, { strict: true }), 'pi.toMessages: line 4: content[0]: unknown content block "redacted" (strict: unknown lines are refused)')
  assert.throws(() => readHistory(text, { format: 'pi', strict: true }), (e) => e.line === 4 && /strict/.test(e.message))
})

function rejects(fn, message) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.constructor?.name}: ${error?.message}`)
    assert.equal(error.message, message)
    return true
  })
}

test('a file that does not start with a session header is no session, as pi reads it: nothing shown, every line counted, strict refuses it', () => {
  // pi's SessionManager keeps no entry of such a file (loadEntriesFromFile) and writes it
  // anew; before, its message line was read as a conversation.
  const entries = [
    '{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}',
    '{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}',
  ]
  const headless = `${entries.join('\n')}\n`
  const reason = 'no session: the file does not start with a session header'
  for (const read of [readHistory(headless, { format: 'pi' }), readHistory(Buffer.from(headless), { format: 'pi' })]) {
    assert.deepEqual(read.messages, [])
    assert.deepEqual(read.skipped, { count: 2, examples: [`line 1: ${reason}`, `line 2: ${reason}`], kinds: { [reason]: 2 } })
  }
  assert.deepEqual(pi.toMessages(headless), [])
  assert.deepEqual(pi.toMessages(entries.map((line) => JSON.parse(line))), [])
  assert.deepEqual(loadHistorySync(Buffer.from(headless), 'pi'), [])
  assert.throws(() => readHistory(headless, { format: 'pi', strict: true }), (e) => e.line === 1 && e.message.includes(reason))
  rejects(() => pi.toMessages(headless, { strict: true }), `pi.toMessages: line 1: ${reason} (strict: unknown lines are refused)`)
  // The header first, the same entries are the conversation.
  assert.equal(readHistory(`{"type":"session","version":3,"id":"s"}\n${headless}`, { format: 'pi' }).messages.length, 2)
})

test('bad input: a TypeError naming the line and path, input untouched', () => {
  const lines = frozen([{ role: 'user', content: [{ type: 'text', text: 'a' }] }, { role: 'assistant', content: [{ type: 'text', text: 'b' }, { type: 5 }] }])
  const before = JSON.stringify(lines)
  rejects(() => pi.toMessages(lines), 'pi.toMessages: line 2: content[1].type must be a string, got number')
  assert.equal(JSON.stringify(lines), before)
  rejects(() => pi.toMessages('{"role":"user","content":[]}\n{"role":"user","content":[{"type":"text","text":1}]}'), 'pi.toMessages: line 2: content[0].text must be a string, got number')
  rejects(() => pi.toMessages('{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"x","message":{"role":"toolResult","toolCallId":7,"content":[]}}'), 'pi.toMessages: line 2: message.toolCallId must be a string, got number')
  rejects(() => pi.toMessages('{"role":"assistant","content":{}}'), 'pi.toMessages: line 1: content must be an array, got object')
  rejects(() => pi.toMessages('[1]'), 'pi.toMessages: line 1: must be an object, got array')
  rejects(() => pi.toMessages('{"role":"user"} x'), 'pi.toMessages: line 1: invalid JSON: text after the value at column 17')
  rejects(() => pi.toMessages(42), 'pi.toMessages: "history" must be a string, a Buffer or an array, got number')
  rejects(() => pi.toAgentEvents({ type: 'tool-start', toolCallId: 1 }), 'pi.toAgentEvents: event.toolCallId must be a string, got number')
  rejects(() => pi.toAgentEvents(null), 'pi.toAgentEvents: "event" must be an object, got null')
  rejects(() => pi.fromMessages([{ id: 'm', role: 'robot', chunks: [] }]), 'pi.fromMessages: messages[0].role must be "user", "assistant" or "system", got "robot"')
  rejects(() => pi.fromMessages({}), 'pi.fromMessages: "messages" must be an array, got object')
})

test('a line cut short is read past as readHistory reads it; strict reports it with its line number (a truncated last line, an earlier one invalid JSON)', () => {
  const whole = sessionBytes.toString('utf8')
  const cut = whole.slice(0, whole.length - 40)
  const lineCount = cut.split('\n').length
  assert.deepEqual(pi.toMessages(cut), readHistory(cut, { format: 'pi' }).messages)
  rejects(() => pi.toMessages(cut, { strict: true }), `pi.toMessages: line ${lineCount}: truncated JSON: the file ends inside this line (at column ${cut.split('\n').at(-1).length + 1})`)
  const early = Buffer.from('{"role":"user","content":"a"}\n{"role":"us\n{"role":"user","content":"b"}\n')
  assert.deepEqual(pi.toMessages(early).map((m) => m.chunks[0].text), ['a', 'b'])
  rejects(() => pi.toMessages(early, { strict: true }), 'pi.toMessages: line 2: the JSON text ends early (at column 12)')
})

test('the plain-JS baseline of the benchmarks reads every Pi session alike', async () => {
  const { createRequire } = await import('node:module')
  const { piToMessages } = createRequire(import.meta.url)('../baseline/formats.js')
  const { piSession } = await import('../bench/pi-session.mjs')
  for (const bytes of [sessionBytes, tree, readExample('openclaw-session.jsonl'), readExample('pi-events.session.jsonl'), readExample('../__test__/fixtures/pi-v1.jsonl'), readExample('../__test__/fixtures/pi-v2.jsonl'), piSession(256 * 1024)]) {
    assert.equal(JSON.stringify(piToMessages(bytes)), JSON.stringify(pi.toMessages(bytes)))
  }
})

test('entries pi keeps and shows are read though a field is missing: a thinking block without "thinking" is skipped and counted, a call without an id and a result without a toolCallId are kept; strict refuses each by name', async () => {
  const file = new URL('./fixtures/pi-lenient.jsonl', import.meta.url)
  const bytes = readFileSync(file)
  const read = readHistory(bytes, { format: 'pi' })
  assert.deepEqual(read.messages.map((m) => m.id), ['u1', 'a1', 'a2', 'r2', 'a3'])
  assert.deepEqual(read.messages[1].chunks, [
    { type: 'text', text: 'Counting.' },
    { type: 'tool-batch', calls: [{ id: '', name: 'bash', arguments: { command: 'wc -l notes.txt' }, result: '12 notes.txt', isError: false }] },
  ])
  assert.deepEqual(read.messages[3].chunks, [{ type: 'tool-batch', calls: [{ id: '', name: '', result: 'first line', isError: false }] }], 'a result naming no call keeps its place')
  assert.deepEqual(read.skipped, {
    count: 1,
    examples: ['line 3: message.content[0]: a thinking block without "thinking"'],
    kinds: { 'message.content[0]: a thinking block without "thinking"': 1 },
  })
  // One reader: the file, its bytes loaded, and its entries parsed give the same messages.
  assert.deepEqual(pi.toMessages(bytes), read.messages)
  assert.deepEqual(pi.toMessages(bytes.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))), read.messages)
  assert.deepEqual(loadHistorySync(bytes, 'pi'), read.messages)
  assert.deepEqual(await loadHistory(file.pathname, 'pi'), read.messages)
  rejects(() => pi.toMessages(bytes, { strict: true }), 'pi.toMessages: line 3: message.content[0].thinking must be a string, got undefined')
  assert.throws(() => readHistory(bytes, { format: 'pi', strict: true }), (e) => e.line === 3 && /message\.content\[0\]\.thinking must be a string/.test(e.message))
  const called = bytes.toString('utf8').replace('"text":"wc -l', '"thinking":"wc -l')
  rejects(() => pi.toMessages(called, { strict: true }), 'pi.toMessages: line 3: message.content[2].id must be a string, got undefined')
  rejects(() => pi.toMessages(called.replace('"toolCall","name"', '"toolCall","id":"c","name"'), { strict: true }), 'pi.toMessages: line 4: message.toolCallId must be a string, got undefined')
})

test('an assistant message whose content is a string reads as its text, in every reader', () => {
  // OpenClaw's UI reads `"content": "text"` on an assistant message as that text; one
  // such message used to make pi.toMessages throw and lose the whole history.
  const lines = [
    { role: 'user', content: 'Is the ferry running?' },
    { role: 'assistant', content: 'Yes, every 20 minutes.' },
    { role: 'assistant', content: '', stopReason: 'error', errorMessage: 'overloaded' },
  ].map((m) => JSON.stringify(m)).join('\n')
  const expected = [
    { id: 'line-1', role: 'user', chunks: [{ type: 'text', text: 'Is the ferry running?' }] },
    { id: 'line-2', role: 'assistant', chunks: [{ type: 'text', text: 'Yes, every 20 minutes.' }] },
    { id: 'line-3', role: 'assistant', chunks: [{ type: 'error', message: 'overloaded' }] },
  ]
  assert.deepEqual(pi.toMessages(lines), expected)
  assert.deepEqual(pi.toMessages(lines, { strict: true }), expected)
  assert.deepEqual(readHistory(lines, { format: 'pi' }).messages, expected)
})

test('OpenClaw webchat: a final that does not extend what streamed replaces it, live and whole', async () => {
  const { Conversation } = await import('../index.js')
  const chat = (state, text) => `${JSON.stringify({ type: 'event', event: 'chat', payload: { runId: 'r1', sessionKey: 'agent:main:main', state, message: { role: 'assistant', content: [{ type: 'text', text }] } } })}\n`
  const frames = [chat('delta', 'Streamed partial'), chat('final', 'Complete reply')]
  const whole = foldStream(frames.join(''))
  assert.deepEqual(whole.messages.map((m) => m.chunks), [[{ type: 'text', text: 'Complete reply' }]])
  const live = new Conversation({ format: 'pi-stream' })
  live.push(frames[0])
  assert.deepEqual(live.push(frames[1]), { added: [], changed: [{ index: 0, chunks: [0], replaced: 0 }] })
  assert.deepEqual(JSON.parse(JSON.stringify(live.messages)), JSON.parse(JSON.stringify(whole.messages)))
})
