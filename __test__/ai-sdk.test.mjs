// The AI SDK's UI message stream and UIMessage against the real `ai` package: a capture
// folded live equals the UIMessage the SDK builds from it, read back.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readUIMessageStream, JsonToSseTransformStream } from 'ai'
import { uiMessageTurn, sseText, chunkStream } from '../bench/ai-sdk-turn.mjs'

const require = createRequire(import.meta.url)
const { aiSdk, ChunkStream, reduceEvents, appendEventToChunks, loadHistory } = require('../index.js')

/** The last UIMessage `readUIMessageStream` gives for the chunks. */
async function sdkMessage(chunks) {
  let last
  for await (const message of readUIMessageStream({ stream: chunkStream(chunks) })) last = message
  return last
}

/** The SSE text the SDK's own transform writes for the chunks. */
async function sdkSse(chunks) {
  let text = ''
  for await (const piece of chunkStream(chunks).pipeThrough(new JsonToSseTransformStream())) text += piece
  return text
}

const richTurn = () => [
  { type: 'start', messageId: 'm1' },
  { type: 'start-step' },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'Let me \ud83d' },
  { type: 'reasoning-delta', id: 'r1', delta: '\ude00 look.' },
  // Anthropic's signature arrives on an empty delta; reasoning-end carries none.
  { type: 'reasoning-delta', id: 'r1', delta: '', providerMetadata: { anthropic: { signature: 'sig' } } },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Running ' },
  { type: 'text-delta', id: 't1', delta: 'it.' },
  { type: 'text-end', id: 't1' },
  { type: 'tool-input-start', toolCallId: 'c1', toolName: 'bash' },
  { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"command":' },
  { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '"ls"}' },
  { type: 'tool-input-available', toolCallId: 'c1', toolName: 'bash', input: { command: 'ls', n: 1e21 } },
  { type: 'tool-input-available', toolCallId: 'c2', toolName: 'read', input: { path: '/x' } },
  { type: 'source-url', sourceId: 's1', url: 'https://example.com' },
  { type: 'data-progress', id: 'p', data: { done: 1 } },
  { type: 'tool-output-available', toolCallId: 'c1', output: { stdout: 'a\nb', exitCode: 0 } },
  { type: 'tool-output-error', toolCallId: 'c2', errorText: 'ENOENT' },
  { type: 'tool-input-error', toolCallId: 'c3', toolName: 'edit', input: '{bad', errorText: 'invalid input' },
  { type: 'finish-step' },
  { type: 'start-step' },
  { type: 'text-start', id: 't2' },
  { type: 'text-delta', id: 't2', delta: 'Done.' },
  { type: 'text-end', id: 't2' },
  { type: 'file', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' },
  { type: 'message-metadata', messageMetadata: { tokens: 5 } },
  { type: 'finish-step' },
  { type: 'finish', finishReason: 'stop' },
]

const wantedChunks = [
  { type: 'thinking', text: 'Let me \u{1F600} look.', metadata: { anthropic: { signature: 'sig' } } },
  { type: 'text', text: 'Running it.' },
  {
    type: 'tool-batch',
    calls: [
      { id: 'c1', name: 'bash', arguments: { command: 'ls', n: 1e21 }, result: { stdout: 'a\nb', exitCode: 0 }, isError: false },
      { id: 'c2', name: 'read', arguments: { path: '/x' }, result: 'ENOENT', isError: true },
      { id: 'c3', name: 'edit', arguments: '{bad', result: 'invalid input', isError: true },
    ],
  },
  { type: 'text', text: 'Done.' },
  { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,iVBORw0KGgo=' },
]

test('a UI message stream over SSE folds to the chunks, split anywhere, in every framing', async () => {
  const sse = Buffer.from(await sdkSse(richTurn()))
  assert.ok(sse.toString().endsWith('data: [DONE]\n\n'))
  assert.deepEqual(reduceEvents(sse), wantedChunks)
  for (const framing of ['auto', 'sse']) {
    for (let cut = 0; cut <= sse.length; cut += 7) {
      const stream = new ChunkStream({ framing })
      stream.push(sse.subarray(0, cut))
      stream.push(sse.subarray(cut))
      stream.end()
      assert.deepEqual(stream.chunks(), wantedChunks, `${framing}, cut at ${cut}`)
    }
  }
  // With CRLF line ends and a BOM, as some proxies write it.
  const crlf = '\ufeff' + sse.toString().replaceAll('\n', '\r\n')
  assert.deepEqual(reduceEvents(crlf), wantedChunks)
})

test('stream == history: the live fold equals the UIMessage readUIMessageStream persists, read back', async () => {
  for (const chunks of [richTurn(), uiMessageTurn({ seed: 7, events: 3000, calls: 30 })]) {
    const persisted = await sdkMessage(chunks)
    const [history] = aiSdk.toMessages([persisted])
    assert.equal(history.id, chunks[0].messageId)
    assert.equal(history.role, 'assistant')
    const live = reduceEvents(await sdkSse(chunks))
    assert.deepEqual(history.chunks, live)
    // The drop-in fed the mapped events builds the same, files excepted (no event has one).
    const dropIn = []
    for (const event of aiSdk.fromUIMessageChunks(chunks)) appendEventToChunks(dropIn, event)
    assert.deepEqual(dropIn, live.filter((chunk) => chunk.type !== 'file'))
  }
})

test('what has no chunk is named: sources, data, metadata, approvals and steps add nothing', () => {
  const events = aiSdk.fromUIMessageChunks([
    { type: 'start', messageId: 'm' },
    { type: 'source-url', sourceId: 's', url: 'u' },
    { type: 'source-document', sourceId: 's', mediaType: 'text/plain', title: 't' },
    // A file has no agent event; the bytes path and toMessages make a file chunk of it.
    { type: 'file', url: 'data:image/png;base64,AA==', mediaType: 'image/png' },
    { type: 'data-x', data: 1 },
    { type: 'tool-input-start', toolCallId: 'c', toolName: 'n' },
    { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{' },
    { type: 'tool-approval-request', approvalId: 'a', toolCallId: 'c' },
    { type: 'tool-output-denied', toolCallId: 'c' },
    { type: 'message-metadata', messageMetadata: {} },
    { type: 'abort', reason: 'user' },
    { type: 'finish' },
  ])
  assert.deepEqual(events, [])
  assert.deepEqual(aiSdk.fromUIMessageChunks([{ type: 'error', errorText: 'rate limited' }]), [{ type: 'error', error: 'rate limited' }])
})

test('fullStream parts map to agent events', () => {
  const events = aiSdk.fromFullStreamParts([
    { type: 'start' },
    { type: 'reasoning-start', id: 'r' },
    { type: 'reasoning-delta', id: 'r', text: 'hm' },
    { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 's' } } },
    { type: 'text-delta', id: 't', text: 'hi' },
    { type: 'tool-call', toolCallId: 'c', toolName: 'bash', input: { command: 'ls' } },
    { type: 'tool-result', toolCallId: 'c', toolName: 'bash', input: {}, output: 'ok' },
    { type: 'tool-error', toolCallId: 'd', toolName: 'bash', input: {}, error: { message: 'boom' } },
    { type: 'error', error: 'overloaded' },
    { type: 'finish', finishReason: 'stop' },
  ])
  assert.deepEqual(events, [
    { type: 'reasoning-delta', delta: 'hm' },
    { type: 'reasoning-end', metadata: { anthropic: { signature: 's' } } },
    { type: 'text-delta', delta: 'hi' },
    { type: 'tool-call', toolCall: { id: 'c', name: 'bash', arguments: { command: 'ls' } } },
    { type: 'tool-result', toolResult: { toolCallId: 'c', result: 'ok', isError: false } },
    { type: 'tool-result', toolResult: { toolCallId: 'd', result: 'boom', isError: true } },
    { type: 'error', error: 'overloaded' },
  ])
})

test('ChatMessage → UIMessage → ChatMessage keeps the chunks; the SDK accepts the UIMessage', async () => {
  const { validateUIMessages } = await import('ai')
  const message = { id: 'm1', role: 'assistant', chunks: wantedChunks }
  const ui = aiSdk.fromMessage(message)
  await validateUIMessages({ messages: [ui] })
  assert.deepEqual(aiSdk.toMessages([ui]), [message])
  assert.deepEqual(ui.parts.map((p) => p.type), ['step-start', 'reasoning', 'text', 'tool-bash', 'tool-read', 'tool-edit', 'step-start', 'text', 'file'])
  // A file chunk's base64 data is written as a data: URL, and read back as that URL.
  const stored = { id: 'm3', role: 'user', chunks: [{ type: 'file', mediaType: 'image/png', data: 'AA==', filename: 'a.png' }] }
  const [part] = aiSdk.fromMessage(stored).parts
  assert.deepEqual(part, { type: 'file', mediaType: 'image/png', filename: 'a.png', url: 'data:image/png;base64,AA==' })
  assert.deepEqual(aiSdk.toMessages([aiSdk.fromMessage(stored)])[0].chunks, [{ type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,AA==', filename: 'a.png' }])
  // Error chunks have no UIMessage part: named, left out.
  const withError = { id: 'm2', role: 'assistant', chunks: [{ type: 'text', text: 'a' }, { type: 'error', message: 'boom' }] }
  assert.deepEqual(aiSdk.fromMessages([withError])[0].parts.map((p) => p.type), ['step-start', 'text'])
})

test('an error chunk in the stream is an error chunk; a bad chunk is an Error naming line and path', () => {
  const sse = 'data: {"type":"start"}\n\ndata: {"type":"error","errorText":"overloaded"}\n\ndata: [DONE]\n\n'
  assert.deepEqual(reduceEvents(sse), [{ type: 'error', message: 'overloaded' }])
  const stream = new ChunkStream()
  stream.push('data: {"type":"start"}\n\ndata: {"type":"text-delta","id":"t","delta":"a"}\n\n')
  assert.throws(() => stream.push('data: {"type":"tool-output-available","toolCallId":5}\n\n'), /line 5, byte \d+: UI message stream chunk: toolCallId must be a string, got number/)
  assert.deepEqual(stream.chunks(), [{ type: 'text', text: 'a' }])
  assert.throws(() => aiSdk.fromUIMessageChunks([{ type: 'error' }]), { name: 'TypeError', message: /chunks\[0\]\.errorText/ })
})

test('loadHistory reads a capture of several responses as one message each, by messageId', async () => {
  const capture = (await sdkSse(richTurn())) + sseText([{ type: 'start', messageId: 'm2' }, { type: 'text-start', id: 'x' }, { type: 'text-delta', id: 'x', delta: 'again' }, { type: 'text-end', id: 'x' }])
  const messages = await loadHistory(Buffer.from(capture), 'events')
  assert.deepEqual(messages.map((m) => [m.id, m.role]), [['m1', 'assistant'], ['m2', 'assistant']])
  assert.deepEqual(messages[0].chunks, wantedChunks)
  assert.deepEqual(messages[1].chunks, [{ type: 'text', text: 'again' }])
})
