// pi's message_end holds the whole assistant message and pi shows it: a Conversation ends
// the message as the end holds it, in both views, and a UI message stream that had written
// something the end contradicts says so in a chunk the AI SDK reads without complaint.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { readUIMessageStream } from 'ai'
import { Conversation, aiSdk, foldStream } from '../index.js'
import { chunkStream } from '../bench/ai-sdk-turn.mjs'

const plain = (value) => JSON.parse(JSON.stringify(value))
const lines = readFileSync(new URL('fixtures/pi-lost-updates.events.ndjson', import.meta.url), 'utf8').split('\n').filter(Boolean)
const update = (event) => JSON.stringify({ type: 'message_update', assistantMessageEvent: event }) + '\n'
const end = (content) => JSON.stringify({ type: 'message_end', message: { role: 'assistant', provider: 'anthropic', content } }) + '\n'
const start = JSON.stringify({ type: 'message_start', message: { role: 'assistant', content: [], provider: 'anthropic' } }) + '\n'

test('an end with fewer chunks than streamed: new chunk objects from the one replaced, a shorter array', () => {
  const frames = [
    start,
    update({ type: 'text_delta', contentIndex: 0, delta: 'Reading.' }),
    update({ type: 'toolcall_end', contentIndex: 1, toolCall: { type: 'toolCall', id: 'a', name: 'read', arguments: {} } }),
    end([{ type: 'text', text: 'Written.' }]),
  ]
  const whole = foldStream(frames.join(''), { format: 'pi-events' })
  assert.deepEqual(plain(whole.messages[0].chunks), [{ type: 'text', text: 'Written.' }])
  for (const mode of ['mutable', 'immutable']) {
    const live = new Conversation({ format: 'pi-events', mode })
    for (const frame of frames.slice(0, -1)) live.push(frame)
    const message = live.at(0)
    const [text] = message.chunks
    const changes = live.push(frames.at(-1))
    assert.deepEqual(changes, { added: [], changed: [{ index: 0, chunks: [0], replaced: 0 }] }, mode)
    assert.deepEqual(plain(live.messages), plain(whole.messages), mode)
    assert.equal(text.text, 'Reading.', `${mode}: the chunk object given before is not rewritten in place`)
    if (mode === 'mutable') assert.equal(live.at(0), message, 'the message object stays')
    assert.deepEqual(plain(live.skipped), plain(whole.skipped))
  }
})

test('served to useChat: the SDK reads the stream, and the replaced message it is sent is the history\'s', async () => {
  const live = new Conversation({ format: 'pi-events' })
  const written = []
  for (const line of lines) {
    live.push(line + '\n')
    written.push(...live.toUIMessageChunks())
  }
  live.end()
  written.push(...live.toUIMessageChunks())
  const replaced = written.filter((chunk) => chunk.type === 'data-message-replaced')
  // Both assistant messages are one response (a step each): it goes out whole once.
  const responses = plain(aiSdk.fromMessages(live.messages)).filter((m) => m.role === 'assistant')
  assert.deepEqual(replaced.map((chunk) => chunk.data), responses)
  assert.ok(replaced.every((chunk) => chunk.transient === true && chunk.id === chunk.data.id))
  // The SDK reads the response without error, keeps the transient chunk out of the
  // message, and has every call with its output.
  const starts = written.flatMap((chunk, i) => (chunk.type === 'start' ? [i] : []))
  assert.equal(starts.length, responses.length)
  for (const [k, from] of starts.entries()) {
    const chunks = written.slice(from, starts[k + 1])
    let last
    for await (const message of readUIMessageStream({ stream: chunkStream(chunks), onError: (e) => { throw e } })) last = message
    assert.ok(!last.parts.some((part) => part.type.startsWith('data-')))
    const calls = (m) => m.parts.filter((p) => p.type.startsWith('tool-')).map((p) => [p.toolCallId, p.state, p.output])
    assert.deepEqual(calls(plain(last)), calls(responses[k]))
  }
})
