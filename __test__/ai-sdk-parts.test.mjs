// AI SDK part boundaries and the SDK's own reducer as the oracle: every text and reasoning
// part is a chunk of its own, deltas and ends land on their part by id, a toolCallId reused
// in a later step is a call of its own, a start with the open message's id continues it,
// and a stream that begins with its error chunk is read as a UI message stream. The stream
// folded by us and written back with aiSdk.fromMessage equals what readUIMessageStream
// builds, but for the differences the AI SDK page names (a step-start opening every
// message, message ids, part ids and states).
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readUIMessageStream } from 'ai'
import { chunkStream } from '../bench/ai-sdk-turn.mjs'

const require = createRequire(import.meta.url)
const { aiSdk, ChunkStream, foldStream, loadHistory, loadHistorySync, readHistory, reduceEvents } = require('../index.js')

const sse = (chunks) => Buffer.from(`${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`)

async function sdkMessage(chunks) {
  let last
  for await (const message of readUIMessageStream({ stream: chunkStream(chunks) })) last = structuredClone(message)
  return last
}

/**
 * A UIMessage without what the chunk model does not keep: part ids, the states of text
 * and reasoning parts, and steps but where a tool batch ends (aiSdk.fromMessage writes a
 * step-start first and after each batch).
 */
function comparable(message) {
  message = JSON.parse(JSON.stringify(message))
  const parts = message.parts.map(({ id, state, ...part }) => (part.type === 'text' || part.type === 'reasoning' ? part : { ...part, ...(state ? { state } : {}) }))
  const isTool = (part) => part && (part.type === 'dynamic-tool' || part.type.startsWith('tool-'))
  const kept = parts.filter((part, i) => part.type !== 'step-start' || isTool(parts[i - 1]))
  return { role: message.role, parts: [{ type: 'step-start' }, ...kept] }
}

async function agrees(chunks, what) {
  const messages = loadHistorySync(sse(chunks), 'ai-sdk')
  assert.equal(messages.length, 1, `${what}: one message`)
  const ours = aiSdk.fromMessage(messages[0])
  assert.deepEqual(comparable(ours), comparable(await sdkMessage(chunks)), what)
  // stream == history: the live folds and the UIMessage read back give the same chunks.
  assert.deepEqual(foldStream(sse(chunks), { format: 'ai-sdk' }).messages, messages, `${what}: foldStream`)
  assert.deepEqual(reduceEvents(sse(chunks)), messages[0].chunks, `${what}: reduceEvents`)
  const stream = new ChunkStream()
  for (const byte of sse(chunks)) stream.push(Uint8Array.of(byte))
  stream.end()
  assert.deepEqual(stream.chunks(), messages[0].chunks, `${what}: ChunkStream a byte at a time`)
  assert.deepEqual(aiSdk.toMessages([ours])[0].chunks, messages[0].chunks, `${what}: round trip`)
  return messages[0]
}

const start = [{ type: 'start', messageId: 'm1' }, { type: 'start-step' }]
const end = [{ type: 'finish-step' }, { type: 'finish' }]

test('consecutive reasoning parts and text parts stay apart', async () => {
  const message = await agrees([
    ...start,
    { type: 'reasoning-start', id: 'r1' },
    { type: 'reasoning-delta', id: 'r1', delta: 'Half of a thought' },
    { type: 'reasoning-end', id: 'r1' },
    { type: 'reasoning-start', id: 'r2' },
    { type: 'reasoning-delta', id: 'r2', delta: 'Another thought' },
    { type: 'reasoning-end', id: 'r2' },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'One paragraph.' },
    { type: 'text-end', id: 't1' },
    { type: 'text-start', id: 't2' },
    { type: 'text-delta', id: 't2', delta: 'Another one.' },
    { type: 'text-end', id: 't2' },
    ...end,
  ], 'consecutive parts')
  assert.deepEqual(message.chunks, [
    { type: 'thinking', text: 'Half of a thought' },
    { type: 'thinking', text: 'Another thought' },
    { type: 'text', text: 'One paragraph.' },
    { type: 'text', text: 'Another one.' },
  ])
})

test('interleaved parts: each delta and each signature lands on its own part', async () => {
  const message = await agrees([
    ...start,
    { type: 'reasoning-start', id: 'a' },
    { type: 'reasoning-start', id: 'b' },
    { type: 'reasoning-delta', id: 'a', delta: 'first ' },
    { type: 'reasoning-delta', id: 'b', delta: 'second ' },
    { type: 'reasoning-delta', id: 'a', delta: 'again' },
    { type: 'reasoning-delta', id: 'b', delta: 'again' },
    { type: 'reasoning-end', id: 'a', providerMetadata: { anthropic: { signature: 'sig-a' } } },
    { type: 'reasoning-end', id: 'b', providerMetadata: { anthropic: { signature: 'sig-b' } } },
    { type: 'text-start', id: 'x' },
    { type: 'text-start', id: 'y' },
    { type: 'text-delta', id: 'y', delta: 'why' },
    { type: 'text-delta', id: 'x', delta: 'ex' },
    { type: 'text-end', id: 'x' },
    { type: 'text-end', id: 'y' },
    ...end,
  ], 'interleaved parts')
  assert.deepEqual(message.chunks, [
    { type: 'thinking', text: 'first again', metadata: { anthropic: { signature: 'sig-a' } } },
    { type: 'thinking', text: 'second again', metadata: { anthropic: { signature: 'sig-b' } } },
    { type: 'text', text: 'ex' },
    { type: 'text', text: 'why' },
  ])
})

test('a reasoning part with provider metadata and no delta (redacted thinking) is kept', async () => {
  const redacted = { anthropic: { redactedData: 'EmwKAhgBEgy3va3pzix/LafPsn4a' } }
  const message = await agrees([
    ...start,
    { type: 'reasoning-start', id: 'r0', providerMetadata: redacted },
    { type: 'reasoning-end', id: 'r0', providerMetadata: redacted },
    { type: 'text-start', id: 't0' },
    { type: 'text-delta', id: 't0', delta: 'Done.' },
    { type: 'text-end', id: 't0' },
    ...end,
  ], 'redacted thinking')
  assert.deepEqual(message.chunks[0], { type: 'thinking', text: '', metadata: redacted })
})

test('a toolCallId reused in a later step is a call of its own, with its own result', async () => {
  const step = (n) => [
    { type: 'start-step' },
    { type: 'tool-input-available', toolCallId: 'call-0', toolName: 'record', input: { step: n } },
    { type: 'tool-output-available', toolCallId: 'call-0', output: { recorded: n } },
    { type: 'finish-step' },
  ]
  const message = await agrees([{ type: 'start', messageId: 'm1' }, ...step(1), ...step(2), { type: 'finish' }], 'reused ids')
  assert.deepEqual(message.chunks, [
    { type: 'tool-batch', calls: [{ id: 'call-0', name: 'record', arguments: { step: 1 }, result: { recorded: 1 }, isError: false }] },
    { type: 'tool-batch', calls: [{ id: 'call-0', name: 'record', arguments: { step: 2 }, result: { recorded: 2 }, isError: false }] },
  ])
  // Calls of one step stay one batch.
  const parallel = await agrees([
    ...start,
    { type: 'tool-input-available', toolCallId: 'a', toolName: 'read', input: {} },
    { type: 'tool-input-available', toolCallId: 'b', toolName: 'read', input: {} },
    { type: 'tool-output-available', toolCallId: 'b', output: 2 },
    { type: 'tool-output-available', toolCallId: 'a', output: 1 },
    ...end,
  ], 'one step')
  assert.equal(parallel.chunks.length, 1)
})

test('two start chunks with the same messageId make one message, as the SDK keeps one', async () => {
  const chunks = [
    { type: 'start', messageId: 'm1' },
    { type: 'start-step' },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'before' },
    { type: 'text-end', id: 't1' },
    { type: 'finish-step' },
    { type: 'start', messageId: 'm1' },
    { type: 'start-step' },
    { type: 'text-start', id: 't2' },
    { type: 'text-delta', id: 't2', delta: 'after' },
    { type: 'text-end', id: 't2' },
    ...end,
  ]
  const message = await agrees(chunks, 'same messageId')
  assert.equal(message.id, 'm1')
  assert.deepEqual(message.chunks, [{ type: 'text', text: 'before' }, { type: 'text', text: 'after' }])
  // Another id is another message (a capture of several turns).
  const two = [...chunks.slice(0, 6), { type: 'start', messageId: 'm2' }, ...chunks.slice(7)]
  assert.deepEqual(loadHistorySync(sse(two), 'ai-sdk').map((m) => m.id), ['m1', 'm2'])
})

test('a stream whose first chunk is its error is read as a UI message stream', async () => {
  const chunks = [{ type: 'error', errorText: 'execute threw' }]
  const want = [{ id: 'turn-1', role: 'assistant', chunks: [{ type: 'error', message: 'execute threw' }] }]
  assert.deepEqual(loadHistorySync(sse(chunks), 'ai-sdk'), want)
  assert.deepEqual(await loadHistory(sse(chunks), 'ai-sdk'), want)
  assert.deepEqual(readHistory(sse(chunks)), { format: 'ai-sdk', messages: want, skipped: { count: 0, examples: [] } })
  assert.deepEqual(readHistory(sse(chunks), { format: 'ai-sdk' }).messages, want)
  assert.deepEqual(reduceEvents(sse(chunks)), want[0].chunks)
  const stream = new ChunkStream()
  stream.push(sse(chunks))
  stream.end()
  assert.deepEqual(stream.chunks(), want[0].chunks)
  // Named, the format decides even when the first frame would not tell: an error chunk,
  // then a plain text-delta without an id.
  const named = sse([{ type: 'error', errorText: 'x' }, { type: 'text-delta', id: 't', delta: 'y' }])
  assert.deepEqual(loadHistorySync(named, 'ai-sdk')[0].chunks, [{ type: 'error', message: 'x' }, { type: 'text', text: 'y' }])
})

test('the drop-in mapping keeps the helper contract: parts of one kind join there', () => {
  const events = aiSdk.fromUIMessageChunks([
    { type: 'reasoning-start', id: 'r1' },
    { type: 'reasoning-delta', id: 'r1', delta: 'a' },
    { type: 'reasoning-end', id: 'r1' },
    { type: 'reasoning-start', id: 'r2' },
    { type: 'reasoning-delta', id: 'r2', delta: 'b' },
    { type: 'reasoning-end', id: 'r2', providerMetadata: { p: { s: 1 } } },
    { type: 'start-step' },
    { type: 'tool-input-available', toolCallId: 'c', toolName: 'ls', input: {} },
  ])
  assert.deepEqual(events, [
    { type: 'reasoning-delta', delta: 'a' },
    { type: 'reasoning-end' },
    { type: 'reasoning-delta', delta: 'b' },
    { type: 'reasoning-end', metadata: { p: { s: 1 } } },
    { type: 'tool-call', toolCall: { id: 'c', name: 'ls', arguments: {} } },
  ])
})

test('a tool part comes back as it was: dynamic-tool, title, provider execution, tool and provider metadata', async () => {
  const message = await agrees([
    ...start,
    { type: 'tool-input-start', toolCallId: 'd1', toolName: 'search_docs', dynamic: true, title: 'Search the docs', providerExecuted: true },
    { type: 'tool-input-delta', toolCallId: 'd1', inputTextDelta: '{"q":"x"}' },
    { type: 'tool-input-available', toolCallId: 'd1', toolName: 'search_docs', input: { q: 'x' }, dynamic: true, title: 'Search the docs', providerExecuted: true, providerMetadata: { acme: { item: 'c1' } }, toolMetadata: { server: 'docs-mcp' } },
    { type: 'tool-output-available', toolCallId: 'd1', output: { hits: 3 }, providerExecuted: true, dynamic: true, providerMetadata: { acme: { item: 'r1' } } },
    { type: 'tool-input-available', toolCallId: 's1', toolName: 'weather', input: { city: 'Oslo' }, title: 'Weather' },
    { type: 'tool-output-error', toolCallId: 's1', errorText: 'offline' },
    { type: 'tool-input-available', toolCallId: 'p1', toolName: 'plain', input: {} },
    ...end,
  ], 'tool part fields')
  assert.deepEqual(message.chunks, [{
    type: 'tool-batch',
    calls: [
      {
        id: 'd1',
        name: 'search_docs',
        arguments: { q: 'x' },
        meta: { dynamic: true, title: 'Search the docs', providerExecuted: true, toolMetadata: { server: 'docs-mcp' }, callProviderMetadata: { acme: { item: 'c1' } }, resultProviderMetadata: { acme: { item: 'r1' } } },
        result: { hits: 3 },
        isError: false,
      },
      { id: 's1', name: 'weather', arguments: { city: 'Oslo' }, meta: { title: 'Weather' }, result: 'offline', isError: true },
      { id: 'p1', name: 'plain', arguments: {} },
    ],
  }])
  // A part that began static stays static, as the SDK keeps the part it began.
  await agrees([
    ...start,
    { type: 'tool-input-start', toolCallId: 'n1', toolName: 'gone' },
    { type: 'tool-input-error', toolCallId: 'n1', toolName: 'gone', input: '{}', errorText: 'no such tool', dynamic: true },
    ...end,
  ], 'static part, dynamic error')
})
