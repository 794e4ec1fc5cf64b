// A live conversation served to a `useChat` frontend: written out as AI SDK UI message
// stream chunks (and SSE bytes) while it grows, the SDK's own `readUIMessageStream` (and
// its transport's SSE parser) make of them the UIMessages `aiSdk.fromMessages` gives for the
// conversation's responses. Random agent event streams, written out after every event.
import test from 'node:test'
import assert from 'node:assert/strict'
import { DefaultChatTransport, readUIMessageStream } from 'ai'
import fc from 'fast-check'
import { Conversation, aiSdk, appendEventToChunks } from 'agent-chunks'
import { byteStream, chunkStream } from '../bench/ai-sdk-turn.mjs'
import { createRng, randomEventStream } from './random-streams.mjs'

/**
 * The last UIMessage the SDK reads from `stream`, as JSON holds it. The SDK keeps on a
 * reasoning part the id the stream gave it, a name of the stream's and not content (a
 * persisted UIMessage read back has none to give); it is left out here.
 */
async function lastMessage(stream) {
  let last
  for await (const message of readUIMessageStream({ stream, onError: (e) => { throw e } })) last = message
  const plain = JSON.parse(JSON.stringify(last))
  for (const part of plain.parts) if (part.type === 'reasoning') delete part.id
  return plain
}

/**
 * What JSON holds of each event, as a backend receives them. A thinking block's metadata
 * that is not an object has no `providerMetadata` in the SDK (its schema takes an object
 * of objects, and it ignores `null`), so those seals are left out; so are what a UIMessage
 * cannot hold either: a call id used twice (the SDK updates the part it has), an
 * `input` or `output` that is `null` or absent (the SDK keeps no such key). A seal that
 * comes after a tool batch that follows its thinking block is left out too: the stream has
 * finished that block's step by then, and the SDK takes no part's metadata after its step.
 */
const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)
function events(seed) {
  const ids = new Set()
  let chunks = []
  const sealAfterItsStep = () => {
    const thinking = chunks.findLastIndex((chunk) => chunk?.type === 'thinking')
    return thinking >= 0 && chunks.slice(thinking + 1).some((chunk) => chunk?.type === 'tool-batch')
  }
  return randomEventStream(createRng(seed), { maxEvents: 40 }).flatMap((raw) => {
    let event
    try {
      event = JSON.parse(JSON.stringify(raw, (_, v) => (typeof v === 'bigint' ? String(v) : v)))
    } catch {
      return []
    }
    if (event.type === 'tool-call') {
      if (ids.has(event.toolCall?.id) || event.toolCall?.arguments == null) return []
      ids.add(event.toolCall.id)
    }
    if (event.type === 'tool-result' && event.toolResult?.result == null) return []
    if (event.type === 'reasoning-end' && event.metadata !== undefined) {
      if (!isRecord(event.metadata) || !Object.values(event.metadata).every(isRecord)) return []
      if (sealAfterItsStep()) return []
    }
    if (event.type === 'turn-start') chunks = []
    try {
      appendEventToChunks(chunks, event)
    } catch {
      // Refused by the conversation as well.
    }
    return [event]
  })
}

/** The events pushed one at a time, the UI chunks taken after each push. */
function serve(list) {
  const live = new Conversation({ format: 'events' })
  const chunks = []
  let sse = ''
  const twin = new Conversation({ format: 'events' })
  for (const event of list) {
    try {
      live.push(event)
    } catch {
      continue
    }
    twin.push(event)
    chunks.push(...live.toUIMessageChunks())
    sse += twin.toUIMessageStream()
  }
  live.end()
  twin.end()
  chunks.push(...live.toUIMessageChunks())
  sse += twin.toUIMessageStream()
  return { live, chunks, sse }
}

const plain = (value) => JSON.parse(JSON.stringify(value))

class SseTransport extends DefaultChatTransport {
  parse(bytes) {
    return this.processResponseStream(byteStream(bytes, 64))
  }
}

test('agent events served live read in the SDK as the UIMessages fromMessages writes: one per response', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer(), async (seed) => {
      const { live, chunks, sse } = serve(events(seed))
      // The turns follow one another with no user message between: one response, one
      // UI message whose steps are the turns, as useChat keeps a multi-step turn.
      const responses = plain(aiSdk.fromMessages(live.messages)).filter((m) => m.role === 'assistant')
      const perResponse = (items, starts) => items.reduce((groups, item) => {
        if (starts(item)) groups.push([])
        groups.at(-1)?.push(item)
        return groups
      }, [])
      const chunkGroups = perResponse(chunks, (chunk) => chunk.type === 'start')
      const frames = sse.split(/(?<=\n\n)/).filter((frame) => frame !== 'data: [DONE]\n\n')
      const sseGroups = perResponse(frames, (frame) => frame.startsWith('data: {"type":"start",'))
      assert.equal(chunkGroups.length, responses.length)
      assert.equal(sseGroups.length, responses.length)
      assert.ok(responses.length <= 1)
      assert.ok(responses.length === 0 || sse.endsWith('data: [DONE]\n\n'))
      for (const [i, expected] of responses.entries()) {
        assert.deepEqual(await lastMessage(chunkStream(chunkGroups[i])), expected)
        const bytes = new TextEncoder().encode(sseGroups[i].join('') + 'data: [DONE]\n\n')
        assert.deepEqual(await lastMessage(new SseTransport().parse(bytes)), expected)
      }
    }),
    { numRuns: Number(process.env.CONVERSATION_RUNS ?? 40), includeErrorInReport: true },
  )
})

test('written as it grows: a part is begun at once, its text sent as deltas, closed when the message is done', () => {
  const live = new Conversation({ format: 'events' })
  live.push({ type: 'text-delta', delta: 'Hel' })
  assert.deepEqual(live.toUIMessageChunks(), [
    { type: 'start', messageId: 'turn-1' },
    { type: 'start-step' },
    { type: 'text-start', id: '0-0' },
    { type: 'text-delta', id: '0-0', delta: 'Hel' },
  ])
  live.push({ type: 'text-delta', delta: 'lo' })
  live.push({ type: 'tool-call', toolCall: { id: 'c', name: 'bash', arguments: { cmd: 'ls' } } })
  assert.deepEqual(live.toUIMessageChunks(), [
    { type: 'text-delta', id: '0-0', delta: 'lo' },
    { type: 'text-end', id: '0-0' },
    { type: 'tool-input-available', toolCallId: 'c', toolName: 'bash', input: { cmd: 'ls' } },
  ])
  live.push({ type: 'tool-result', toolResult: { toolCallId: 'c', result: 'a.txt', isError: false } })
  live.end()
  assert.deepEqual(live.toUIMessageChunks(), [
    { type: 'tool-output-available', toolCallId: 'c', output: 'a.txt' },
    { type: 'finish-step' },
    { type: 'finish' },
  ])
  assert.deepEqual(live.toUIMessageChunks(), [])
})

test('a reasoning end that comes after the text that followed its thinking still carries its seal', async () => {
  // The thinking part is left open while text streams, so its reasoning-end can carry the
  // provider's signature when it comes.
  const { live, chunks } = serve([
    { type: 'turn-start', turnId: 't' },
    { type: 'reasoning-delta', delta: 'hmm' },
    { type: 'text-delta', delta: 'Answer' },
    { type: 'reasoning-end', metadata: { anthropic: { signature: 'sig' } } },
  ])
  const expected = JSON.parse(JSON.stringify(aiSdk.fromMessage(live.messages[0])))
  const got = await lastMessage(chunkStream(chunks))
  assert.deepEqual(got, expected)
  assert.deepEqual(got.parts.find((part) => part.type === 'reasoning').providerMetadata, { anthropic: { signature: 'sig' } })
})

test('a backend restarted at any event goes on from the resume state writing only what is new: the SDK reads the whole conversation', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer(), async (seed) => {
      const list = events(seed)
      const before = new Conversation({ format: 'events' })
      const sent = []
      for (let cut = 0; cut <= list.length; cut++) {
        // What the first process sent and kept up to here; a second one goes on from it.
        const { messages, resume } = JSON.parse(JSON.stringify({ messages: before.messages, resume: before.resume }))
        const after = new Conversation({ format: 'events', messages, resume })
        const chunks = [...sent]
        for (const event of list.slice(cut)) {
          try {
            after.push(event)
          } catch {
            continue
          }
          chunks.push(...after.toUIMessageChunks())
        }
        after.end()
        chunks.push(...after.toUIMessageChunks())
        const responses = plain(aiSdk.fromMessages(after.messages)).filter((m) => m.role === 'assistant')
        const groups = chunks.reduce((all, chunk) => (chunk.type === 'start' && all.push([]), all.at(-1)?.push(chunk), all), [])
        assert.equal(groups.length, responses.length, `after event ${cut}: one UI message per response`)
        for (const [i, expected] of responses.entries()) {
          assert.deepEqual(await lastMessage(chunkStream(groups[i])), expected, `after event ${cut}, response ${i}`)
        }
        if (cut === list.length) break
        try {
          before.push(list[cut])
        } catch {
          continue
        }
        // Written sometimes, so that some states keep changes not written yet.
        if (cut % 3 !== 1) sent.push(...before.toUIMessageChunks())
      }
    }),
    { numRuns: Number(process.env.CONVERSATION_RUNS ?? 10), includeErrorInReport: true },
  )
})

test('a reconnect gets the response again from its start: replayed, the SDK reads what fromMessages gives', async () => {
  const list = events(7)
  const live = new Conversation({ format: 'events' })
  const half = Math.floor(list.length / 2)
  for (const event of list.slice(0, half)) {
    try {
      live.push(event)
    } catch {}
    live.toUIMessageChunks()
  }
  // The client that lost the connection gets this, then what follows.
  const chunks = live.toUIMessageChunks({ replay: true })
  for (const event of list.slice(half)) {
    try {
      live.push(event)
    } catch {}
    chunks.push(...live.toUIMessageChunks())
  }
  live.end()
  chunks.push(...live.toUIMessageChunks())
  const responses = plain(aiSdk.fromMessages(live.messages)).filter((m) => m.role === 'assistant')
  if (responses.length === 0) return
  assert.equal(chunks[0].type, 'start')
  assert.equal(chunks[0].messageId, live.messages.find((m) => m.role === 'assistant').id)
  assert.deepEqual(await lastMessage(chunkStream(chunks)), responses[0])
})

test("toUIMessageChunks' options are checked: a TypeError naming the field", () => {
  const live = new Conversation({ format: 'events' })
  assert.throws(() => live.toUIMessageChunks(5), { name: 'TypeError', message: /options must be an object, got number/ })
  assert.throws(() => live.toUIMessageStream({ replay: 'yes' }), { name: 'TypeError', message: /options\.replay must be a boolean/ })
  assert.deepEqual(live.toUIMessageChunks(Object.freeze({ replay: false })), [])
})

test('a UI state kept by an earlier version (no response in it) goes on with the message it was writing', async () => {
  const list = events(11)
  const first = new Conversation({ format: 'events' })
  const sent = []
  const half = Math.floor(list.length / 2)
  for (const event of list.slice(0, half)) {
    try {
      first.push(event)
    } catch {}
    sent.push(...first.toUIMessageChunks())
  }
  const kept = plain({ messages: first.messages, resume: first.resume })
  if (kept.resume.ui) {
    // As an earlier version wrote it: no response, no steps, no record of how calls went out.
    delete kept.resume.ui.response
    for (const m of kept.resume.ui.messages ?? []) for (const key of ['step', 'inputs']) delete m[key]
  }
  const next = new Conversation({ format: 'events', ...kept })
  for (const event of list.slice(half)) {
    try {
      next.push(event)
    } catch {}
    sent.push(...next.toUIMessageChunks())
  }
  next.end()
  sent.push(...next.toUIMessageChunks())
  const responses = plain(aiSdk.fromMessages(next.messages)).filter((m) => m.role === 'assistant')
  assert.equal(sent.filter((c) => c.type === 'start').length, responses.length)
  if (responses.length) assert.deepEqual(await lastMessage(chunkStream(sent)), responses[0])
})
