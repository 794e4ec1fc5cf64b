// Every UI message stream chunk a `Conversation` writes passes the AI SDK's own schema
// (`uiMessageChunkSchema`, which `DefaultChatTransport` checks each chunk against: one
// that fails puts `useChat` in 'error' and loses the rest of the response). Random
// conversations of every stream format — the recordings' frames dropped, repeated,
// swapped and mixed with another recording's, random agent event streams with calls and
// results that have no input or output — pushed in random pieces, the stream written
// after some pushes, ended in the middle and gone on, replayed for a reconnect, and the
// whole SSE read by the SDK's transport.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { DefaultChatTransport } from 'ai'
import { Conversation, detectFormat, formats } from 'agent-chunks'
import { createRng, randomEventStream } from './random-streams.mjs'
import { RECORDINGS, framesOf, pieces } from './usechat/serve.mjs'

const RUNS = Number(process.env.CONVERSATION_RUNS ?? 25)

class Transport extends DefaultChatTransport {
  parse(bytes) {
    return this.processResponseStream(new Response(bytes).body)
  }
}

/** Reads `sse` with the SDK's transport: every chunk checked by its schema. */
async function read(sse) {
  const reader = new Transport().parse(new TextEncoder().encode(sse)).getReader()
  const chunks = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return chunks
    chunks.push(value)
  }
}

/** Pushes each value (bytes or a parsed value) and writes as a backend may. */
function serve(format, values, rng) {
  const live = new Conversation({ format })
  let sse = ''
  for (const value of values) {
    try {
      live.push(value)
    } catch {
      continue
    }
    const roll = rng.int(20)
    if (roll === 0) {
      try {
        live.end()
      } catch {
        // Cut inside a frame: refused, and the stream goes on.
      }
      sse += live.toUIMessageStream()
    } else if (roll === 1) {
      sse += live.toUIMessageStream({ replay: true })
    } else if (roll < 15) {
      sse += live.toUIMessageStream()
    }
  }
  try {
    live.end()
  } catch {
    // A last frame cut short.
  }
  return sse + live.toUIMessageStream()
}

const byFormat = {}
for (const file of RECORDINGS) {
  const bytes = readFileSync(new URL(`../${file}`, import.meta.url))
  ;(byFormat[detectFormat(bytes).format] ??= []).push(framesOf(bytes))
}

test('every stream format has recordings to write from', () => {
  assert.deepEqual(Object.keys(byFormat).sort(), formats().filter((f) => f.stream).map((f) => f.name).sort())
})

for (const [format, recordings] of Object.entries(byFormat)) {
  test(`${format}: every chunk written of random conversations passes the SDK's schema`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const rng = createRng(seed)
        const all = recordings.flat()
        const frames = []
        for (const frame of rng.pick(recordings)) {
          const roll = rng.int(10)
          if (roll === 0) continue
          if (roll === 1 && frames.length) frames.splice(frames.length - 1, 0, frame)
          else frames.push(frame)
          if (roll === 2) frames.push(frame)
          if (roll === 3) frames.push(rng.pick(all))
        }
        const sse = serve(format, pieces(Buffer.concat(frames), rng), rng)
        const chunks = await read(sse)
        assert.ok(chunks.every((chunk) => typeof chunk.type === 'string'))
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    )
  })
}

test('events: random agent event streams, calls and results without input or output, pass the SDK schema', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer(), async (seed) => {
      const rng = createRng(seed)
      const values = randomEventStream(rng, { maxEvents: 40 }).flatMap((event, i) => {
        let value
        try {
          // As JSON carries them: `arguments: undefined` is no key at all.
          value = JSON.parse(JSON.stringify(event, (_, v) => (typeof v === 'bigint' ? String(v) : v)))
        } catch {
          return []
        }
        if (value.type === 'tool-call' && rng.chance(0.3)) delete value.toolCall?.arguments
        if (value.type === 'tool-result' && rng.chance(0.3)) delete value.toolResult?.result
        return i % 9 === 4 ? [{ type: 'turn-start', turnId: `t${i}` }, value] : [value]
      })
      await read(serve('events', values, rng))
    }),
    { numRuns: RUNS * 2, includeErrorInReport: true },
  )
})

test('a call without input and a result without output are written with both keys, null', () => {
  const live = new Conversation({ format: 'events' })
  live.push({ type: 'tool-call', toolCall: { id: 'c', name: 'ls' } })
  live.push({ type: 'tool-result', toolResult: { toolCallId: 'c', isError: false } })
  const chunks = live.toUIMessageChunks()
  assert.deepEqual(chunks.find((c) => c.type === 'tool-input-available'), { type: 'tool-input-available', toolCallId: 'c', toolName: 'ls', input: null })
  assert.deepEqual(chunks.find((c) => c.type === 'tool-output-available'), { type: 'tool-output-available', toolCallId: 'c', output: null })
})
