/**
 * The peers in one process, on the same generated turn: the AI SDK's `readUIMessageStream`
 * and `AbstractChat` (the reducer `useChat` runs) and LangChain's `AIMessageChunk.concat`
 * fold, against agent-chunks, from SSE bytes and from objects to the final message.
 */
import { AbstractChat, DefaultChatTransport, readUIMessageStream } from 'ai'
import { AIMessageChunk } from '@langchain/core/messages'
import { createRequire } from 'node:module'
import { uiMessageTurn, textOnlyTurn, sseText, byteStream, chunkStream } from './ai-sdk-turn.mjs'

const require = createRequire(import.meta.url)
const sdkVersion = require('ai/package.json').version
const langChainVersion = require('@langchain/core/package.json').version

/**
 * The chat state `useChat` keeps, in memory. `snapshot` is the identity (React's state
 * clones each message): the reducer is timed, not a framework's copies.
 */
class MemoryState {
  status = 'ready'
  error = undefined
  messages = []
  pushMessage = (message) => { this.messages = this.messages.concat(message) }
  popMessage = () => { this.messages = this.messages.slice(0, -1) }
  replaceMessage = (index, message) => { this.messages[index] = this.snapshot(message) }
  snapshot = (value) => value
}

class MemoryChat extends AbstractChat {
  constructor(transport) {
    super({ transport, state: new MemoryState() })
  }
}

/** A transport that answers with the given SSE bytes, parsed as `DefaultChatTransport` parses a response. */
class SseTransport extends DefaultChatTransport {
  constructor(bytes) {
    super()
    this.bytes = bytes
  }
  async sendMessages() {
    return this.processResponseStream(byteStream(this.bytes))
  }
  async reconnectToStream() {
    return null
  }
}

/** A transport that answers with the chunk objects. */
class ObjectTransport {
  constructor(chunks) {
    this.chunks = chunks
  }
  async sendMessages() {
    return chunkStream(this.chunks)
  }
  async reconnectToStream() {
    return null
  }
}

async function chatMessage(transport) {
  const chat = new MemoryChat(transport)
  await chat.sendMessage({ text: 'go' })
  return chat.lastMessage
}

async function readMessage(stream) {
  let last
  for await (const message of readUIMessageStream({ stream })) last = message
  return last
}

function sseChunks(bytes) {
  return new SseTransport(bytes).processResponseStream(byteStream(bytes))
}

/** The turn as LangChain message chunks: text, reasoning and streamed tool calls. */
function langChainChunks(chunks) {
  const out = []
  const index = new Map()
  for (const chunk of chunks) {
    if (chunk.type === 'text-delta') out.push(new AIMessageChunk({ content: chunk.delta }))
    else if (chunk.type === 'reasoning-delta') out.push(new AIMessageChunk({ content: '', additional_kwargs: { reasoning_content: chunk.delta } }))
    else if (chunk.type === 'tool-input-start') {
      index.set(chunk.toolCallId, index.size)
      out.push(new AIMessageChunk({ content: '', tool_call_chunks: [{ id: chunk.toolCallId, name: chunk.toolName, args: '', index: index.get(chunk.toolCallId), type: 'tool_call_chunk' }] }))
    } else if (chunk.type === 'tool-input-delta') {
      out.push(new AIMessageChunk({ content: '', tool_call_chunks: [{ args: chunk.inputTextDelta, index: index.get(chunk.toolCallId), type: 'tool_call_chunk' }] }))
    }
  }
  return out
}

function langChainFold(parts) {
  let message = parts[0]
  for (let i = 1; i < parts.length; i++) message = message.concat(parts[i])
  // Reading the calls collapses their chunks, as a consumer does.
  return message.tool_calls.length
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

/**
 * Nanoseconds of CPU time (user + system) per awaited run of `fn`, `repeat` runs in a row
 * from a collected heap. CPU time, not wall time: on shared cores a short run is either
 * not interrupted or loses its core for a whole time slice, while a run of seconds shares
 * it evenly, so wall times would compare the two sides at different loads. Every reducer
 * here runs on the main thread; the collection's background sweeping, which the process's
 * CPU time also counts, is spread over runs of at least `minNs` together.
 */
async function once(fn, repeat = 1) {
  globalThis.gc()
  const start = process.cpuUsage()
  for (let i = 0; i < repeat; i++) await fn()
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / repeat
}

/** Median ns of `runs` samples of `fn`, each repeated to take at least `minNs`. */
async function time(fn, { warmups = 1, runs = 3, minNs = 200e6 } = {}) {
  for (let i = 0; i < warmups; i++) await fn()
  const first = await once(fn)
  // A run that long is a sample of its own.
  if (first >= minNs && runs === 1) return first
  const repeat = Math.max(1, Math.ceil(minNs / Math.max(first, 1)))
  const samples = []
  for (let i = 0; i < runs; i++) samples.push(await once(fn, repeat))
  return median(samples)
}

/**
 * Times each reducer of `fns` against the first, in rounds: in each round the first is
 * timed (median of three runs) right before each of the others, and the ratio is taken
 * between those neighbours, so that load from other processes on the shared cores falls
 * on both alike. A peer whose run takes over `longNs` runs in the first round only (its
 * one run is its own warm-up). Returns `[name, ns per run, median ratio to the first]`.
 */
async function compare(fns, rounds, longNs = 5e9) {
  const [ours, ...others] = Object.entries(fns)
  const oursRun = ours[1]
  for (let i = 0; i < 2; i++) await oursRun()
  const rows = new Map([[ours[0], { times: [], ratios: [1] }], ...others.map(([name]) => [name, { times: [], ratios: [] }])])
  const long = new Set()
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of others) {
      if (long.has(name)) continue
      if (round === 0) {
        const first = await once(fn)
        if (first > longNs) {
          const base = await time(oursRun, { warmups: 0 })
          rows.get(ours[0]).times.push(base)
          rows.get(name).times.push(first)
          rows.get(name).ratios.push(first / base)
          long.add(name)
          continue
        }
      }
      const base = await time(oursRun, { warmups: 0 })
      const t = await time(fn, { warmups: 0, runs: 1 })
      rows.get(ours[0]).times.push(base)
      rows.get(name).times.push(t)
      rows.get(name).ratios.push(t / base)
    }
  }
  return [...rows].map(([name, { times, ratios }]) => [name, median(times), median(ratios), times.length])
}

/** The sides of each comparison; `null` when the side does not apply. */
function sides(native, chunks) {
  const sse = Buffer.from(sseText(chunks))
  const events = native.aiSdk.fromUIMessageChunks(chunks)
  const lc = langChainChunks(chunks)
  const bytesPath = () => {
    const stream = new native.ChunkStream()
    for (let at = 0; at < sse.length; at += 16 * 1024) stream.push(sse.subarray(at, at + 16 * 1024))
    stream.end()
    return stream.chunks()
  }
  const dropIn = () => {
    const out = []
    for (const event of events) native.appendEventToChunks(out, event)
    return out
  }
  const batch = native.appendEventsToChunks
    ? () => {
        const out = []
        native.appendEventsToChunks(out, events)
        return out
      }
    : null
  // A live conversation as a UI holds it: each SSE frame pushed as it arrives.
  const frames = sseText(chunks).split(/(?<=\n\n)/).map((frame) => Buffer.from(frame))
  const conversation = () => {
    const live = new native.Conversation({ format: 'ai-sdk' })
    for (const frame of frames) live.push(frame)
    live.end()
    return live.messages[0].chunks
  }
  return {
    sse,
    events,
    bytes: {
      'agent-chunks ChunkStream': bytesPath,
      'agent-chunks Conversation (a push per frame)': conversation,
      'readUIMessageStream': () => readMessage(sseChunks(sse)),
      'AbstractChat': () => chatMessage(new SseTransport(sse)),
    },
    objects: {
      'agent-chunks appendEventToChunks': dropIn,
      ...(batch ? { 'agent-chunks appendEventsToChunks': batch } : {}),
      'readUIMessageStream': () => readMessage(chunkStream(chunks)),
      'AbstractChat': () => chatMessage(new ObjectTransport(chunks)),
      'LangChain AIMessageChunk.concat': () => langChainFold(lc),
    },
  }
}

/** Checks that the peers build the message agent-chunks builds, before timing them. */
async function check(native, chunks, side) {
  const wanted = JSON.stringify(side.bytes['agent-chunks ChunkStream']())
  const fromSdk = (message) => JSON.stringify(native.aiSdk.toMessages([message])[0].chunks)
  const problems = []
  if (JSON.stringify(side.objects['agent-chunks appendEventToChunks']()) !== wanted) problems.push('appendEventToChunks')
  const batch = side.objects['agent-chunks appendEventsToChunks']
  if (batch && JSON.stringify(batch()) !== wanted) problems.push('appendEventsToChunks')
  if (fromSdk(await side.bytes.readUIMessageStream()) !== wanted) problems.push('readUIMessageStream')
  if (fromSdk(await side.bytes.AbstractChat()) !== wanted) problems.push('AbstractChat')
  if (JSON.stringify(side.bytes['agent-chunks Conversation (a push per frame)']()) !== wanted) problems.push('Conversation')
  return problems
}

export async function runPeerCases({ native, settings, printTable, ratio, quick }) {
  const turns = [
    ['~20,000 events, 140 calls', uiMessageTurn({ seed: 11, events: 20_000, calls: 140 })],
    ['~20,000 events, 700 calls', uiMessageTurn({ seed: 12, events: 20_000, calls: 700 })],
  ]
  const rounds = quick ? 1 : 5
  console.log(`\nPeers: ai ${sdkVersion}, @langchain/core ${langChainVersion}. ${rounds} round(s); a peer whose run takes over 5 s runs once.`)
  console.log('ratio: the reducer\'s CPU time over the first row\'s, timed right before it in the same round (median of the rounds).')
  for (const [label, chunks] of turns) {
    const side = sides(native, chunks)
    const problems = await check(native, chunks, side)
    if (problems.length) {
      console.log(`\nWARNING: ${problems.join(', ')} built a different message on "${label}"`)
      process.exitCode = 1
    }
    for (const [kind, fns] of Object.entries({ 'bytes (SSE) → final message': side.bytes, 'objects → final message': side.objects })) {
      const results = await compare(fns, rounds)
      printTable(`Peers, ${kind}: ${label} (${chunks.length} chunks)`, ['reducer', 'CPU ns/chunk', 'runs', 'ratio to first row'], results.map(([name, ns, r, runs]) => [name, (ns / chunks.length).toFixed(0), runs, ratio(r)]))
    }
  }
  // Growth: one message of N text deltas, from objects, each reducer.
  const rows = []
  const budgetNs = (quick ? 10 : 150) * 1e9
  const sizes = [20_000, 160_000]
  const inputs = sizes.map((count) => textOnlyTurn({ count }))
  const growthSides = inputs.map((chunks) => sides(native, chunks))
  for (const name of ['agent-chunks ChunkStream', 'agent-chunks appendEventToChunks', 'agent-chunks appendEventsToChunks', 'readUIMessageStream', 'AbstractChat', 'LangChain AIMessageChunk.concat']) {
    const fnOf = (s) => s.bytes[name] ?? s.objects[name]
    const small = await time(fnOf(growthSides[0]), { warmups: 1, runs: quick ? 1 : 3 })
    const perSmall = small / inputs[0].length
    // A quadratic cost (a copy of the message per chunk) grows 8× per event from 20k to 160k.
    const projected = small * (sizes[1] / sizes[0]) ** 2
    if (projected > budgetNs) {
      rows.push([name, (small / 1e6).toFixed(1), `skipped (≈${(projected / 1e9).toFixed(0)} s if quadratic)`, 'n/a'])
      continue
    }
    const large = await time(fnOf(growthSides[1]), { warmups: 0, runs: quick ? 1 : 3 })
    rows.push([name, (small / 1e6).toFixed(1), (large / 1e6).toFixed(1), ratio(large / inputs[1].length / perSmall)])
  }
  printTable('Peers, growth: one message of N text deltas (total CPU ms)', ['reducer', 'N=20,000 ms', 'N=160,000 ms', 'per-event ratio'], rows)
}
