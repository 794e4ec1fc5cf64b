/**
 * AG-UI rows of `npm run bench` (`--only ag-ui`): `@ag-ui/client`'s own pipeline — what
 * `HttpAgent.runAgent` runs on every event after reading it: the compatibility boundary,
 * schema enforcement, chunk expansion, the verifier, `defaultApplyEvents` and the
 * subscribers' `onMessagesChanged` — on a long conversation (200 messages streamed token
 * by token, tool calls included), with one and with three subscribers, and the cost of
 * one more streamed event after 10 and after 200 earlier messages.
 *
 * agent-chunks is timed on the same streams beside it: a `Conversation({ format: 'ag-ui' })`
 * given one SSE frame per push, checked first to end with the client's messages
 * (`agUi.fromMessages`); and the same with `toAGUIEvents` after every push, what a backend
 * serving a CopilotKit frontend from a live conversation does (what it wrote, fed to the
 * client, checked to end as the conversation). `--ag-ui-stand-in` adds a plain-JS reducer that keeps the messages
 * in a Map and appends in place: not agent-chunks, only a check that the harness times a
 * flat-cost fold as flat.
 *
 * The client's stages are asynchronous (rxjs, a promise per event), so the timings are the
 * process's CPU time per run (user + system: on shared cores wall time would also count
 * other processes), each side sampled in turn with the others so that load falls on all
 * alike; figures are medians.
 */
import http from 'node:http'
import { createRequire } from 'node:module'
import { isDeepStrictEqual } from 'node:util'
import { AbstractAgent, HttpAgent } from '@ag-ui/client'
import { from } from 'rxjs'
import { conversation, streamedAnswer, streamedCall, sseText } from './ag-ui-conversation.mjs'

const require = createRequire(import.meta.url)
const clientVersion = require('@ag-ui/client/package.json').version

// ─── The client's pipeline ───────────────────────────────────────────────────

/** An agent whose run is the given events, as `HttpAgent` has them once it read the SSE. */
class ReplayAgent extends AbstractAgent {
  constructor(events, initialMessages) {
    super({ threadId: 'thread-bench', initialMessages })
    this.events = events
  }
  run() {
    return from(this.events)
  }
}

/** A subscriber as a chat view has one: it takes each new message list (React state). */
function viewSubscriber() {
  const view = { messages: [] }
  return { onMessagesChanged: ({ messages }) => { view.messages = messages } }
}

async function clientFold(agent, subscribers) {
  for (let i = 0; i < subscribers; i++) agent.subscribe(viewSubscriber())
  await agent.runAgent()
  return agent.messages
}

/** A server on 127.0.0.1 answering every run with `bytes`, for `HttpAgent`. */
async function sseServer(bytes) {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      // A connection per run: the client cancels its read once the stream ends, and a
      // kept-alive socket would then be reset under the next run.
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' })
      res.end(bytes)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() }
}

// ─── agent-chunks, where the package has the format ──────────────────────────

/**
 * agent-chunks' side, or why there is none. A push per SSE frame, as a frontend gets them
 * from `fetch`; the messages compared in AG-UI's shape through `agUi.fromMessages`.
 */
function oursOf(native) {
  if (!native) return { missing: 'the native addon is not built' }
  if (!native.agUi) return { missing: 'this build has no ag-ui format yet' }
  return {
    fold(frames, messages) {
      const live = new native.Conversation({ format: 'ag-ui', ...(messages && { messages }) })
      for (const frame of frames) live.push(frame)
      live.end()
      return live.messages
    },
    /**
     * The same pushes, and after each the events a backend sends its AG-UI client
     * (`toAGUIEvents`), as a server folding any stream for a CopilotKit frontend does.
     * With `keep`, the events written, for the check.
     */
    serve(frames, messages, keep = null) {
      const live = new native.Conversation({ format: 'ag-ui', ...(messages && { messages }) })
      let events = live.toAGUIEvents({ threadId: 'thread-bench', runId: 'run-served' })
      keep?.push(...events)
      for (const frame of frames) {
        live.push(frame)
        events = live.toAGUIEvents()
        keep?.push(...events)
      }
      live.end()
      keep?.push(...live.toAGUIEvents())
      return live.messages
    },
    toAgUi: (messages) => native.agUi.fromMessages(messages),
    fromAgUi: (messages) => native.agUi.toMessages(messages),
  }
}

/**
 * Not agent-chunks: the smallest flat-cost fold of these streams (messages in a Map by id,
 * text appended in place), in plain JS, to check that the harness shows flat as flat.
 * It knows only the events the generated conversations use.
 */
function standInFold(events, initial = []) {
  const messages = initial.map((m) => ({ ...m }))
  const byId = new Map(messages.map((m, i) => [m.id, i]))
  const calls = new Map()
  for (const m of messages) for (const call of m.toolCalls ?? []) calls.set(call.id, call)
  const push = (m) => {
    byId.set(m.id, messages.length)
    messages.push(m)
  }
  for (const e of events) {
    switch (e.type) {
      case 'TEXT_MESSAGE_START':
        if (!byId.has(e.messageId)) push({ id: e.messageId, role: e.role ?? 'assistant', content: '' })
        break
      case 'TEXT_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CONTENT':
        messages[byId.get(e.messageId)].content += e.delta
        break
      case 'REASONING_MESSAGE_START':
        if (!byId.has(e.messageId)) push({ id: e.messageId, role: 'reasoning', content: '' })
        break
      case 'TOOL_CALL_START': {
        const owner = messages[byId.get(e.parentMessageId)]
        const call = { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } }
        ;(owner.toolCalls ??= []).push(call)
        calls.set(e.toolCallId, call)
        break
      }
      case 'TOOL_CALL_ARGS':
        calls.get(e.toolCallId).function.arguments += e.delta
        break
      case 'TOOL_CALL_RESULT':
        push({ id: e.messageId, toolCallId: e.toolCallId, role: 'tool', content: e.content })
        break
    }
  }
  return messages
}

// ─── Timing ──────────────────────────────────────────────────────────────────

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** CPU nanoseconds per awaited call of `fn`, `repeat` calls in a row from a collected heap. */
async function cpuNs(fn, repeat) {
  globalThis.gc()
  const start = process.cpuUsage()
  for (let i = 0; i < repeat; i++) await fn()
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / repeat
}

/**
 * Samples each of `fns` in turn, `runs` rounds (the order rotating each round), each
 * sample repeating its function for at least `minNs`. Returns per name the median ns per
 * call and the median of its ratios to the first function's sample of the same round.
 */
async function inTurn(fns, { runs, minNs }) {
  const entries = Object.entries(fns)
  const repeats = new Map()
  for (const [name, fn] of entries) {
    await fn()
    const first = await cpuNs(fn, 1)
    repeats.set(name, Math.max(1, Math.ceil(minNs / Math.max(first, 1))))
  }
  const samples = new Map(entries.map(([name]) => [name, []]))
  const ratios = new Map(entries.map(([name]) => [name, []]))
  for (let round = 0; round < runs; round++) {
    const order = entries.map((_, i) => entries[(i + round) % entries.length])
    const taken = {}
    for (const [name, fn] of order) taken[name] = await cpuNs(fn, repeats.get(name))
    for (const [name] of entries) {
      samples.get(name).push(taken[name])
      ratios.get(name).push(taken[name] / taken[entries[0][0]])
    }
  }
  return Object.fromEntries(entries.map(([name]) => [name, { ns: median(samples.get(name)), ratio: median(ratios.get(name)) }]))
}

// ─── Rows ────────────────────────────────────────────────────────────────────

const same = (a, b) => isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)))
const frames = (events) => events.map((event) => Buffer.from(`data: ${JSON.stringify(event)}\n\n`))

export async function runAgUiCases({ native, settings, printTable, ratio, quick, standIn = process.argv.includes('--ag-ui-stand-in') }) {
  const ours = oursOf(native)
  const runs = quick ? 3 : settings.runs
  const minNs = (quick ? 20 : 150) * 1e6
  console.log(`\nAG-UI: @ag-ui/client ${clientVersion}, production mode (NODE_ENV=${process.env.NODE_ENV ?? 'unset'}). CPU time per run, ${runs} rounds, sides sampled in turn; medians.`)
  if (ours.missing) console.log(`agent-chunks: not timed — ${ours.missing}.`)
  if (standIn) console.log('stand-in: a plain-JS Map-and-append fold, NOT agent-chunks (checks that the harness shows a flat-cost fold as flat).')

  // The whole conversation, from events to the final messages: of 201 messages, and of
  // about twice as many (the client's cost per event grows with the conversation).
  for (const size of quick ? [200] : [200, 400]) await wholeConversation(size)
  async function wholeConversation(size) {
    const { events, messages: count } = conversation({ messages: size, tokens: quick ? 12 : 40 })
    const bytes = Buffer.from(sseText(events))
    const expected = await clientFold(new ReplayAgent(events), 0)
    const server = await sseServer(bytes)
    const problems = []
    try {
      const sides = {
        '@ag-ui/client, 1 subscriber': () => clientFold(new ReplayAgent(events), 1),
        '@ag-ui/client, 3 subscribers': () => clientFold(new ReplayAgent(events), 3),
        '@ag-ui/client HttpAgent (SSE over 127.0.0.1), 1 subscriber': () => clientFold(new HttpAgent({ url: server.url, threadId: 'thread-bench' }), 1),
      }
      if (!same(await sides['@ag-ui/client HttpAgent (SSE over 127.0.0.1), 1 subscriber'](), expected)) problems.push('HttpAgent')
      const streamFrames = frames(events)
      if (!ours.missing) {
        sides['agent-chunks Conversation (a push per SSE frame)'] = () => ours.fold(streamFrames)
        sides['agent-chunks Conversation, toAGUIEvents after every push'] = () => ours.serve(streamFrames)
        if (!same(ours.toAgUi(ours.fold(streamFrames)), expected)) problems.push('agent-chunks')
        // What the backend wrote, fed to the client, ends as the conversation.
        const written = []
        const served = ours.toAgUi(ours.serve(streamFrames, undefined, written))
        if (!same(await clientFold(new ReplayAgent(written), 0), served)) problems.push('agent-chunks toAGUIEvents')
      }
      if (standIn) {
        sides['stand-in (plain JS, not agent-chunks)'] = () => standInFold(events)
        if (!same(standInFold(events), expected)) problems.push('stand-in')
      }
      if (problems.length) {
        console.log(`\nWARNING: ${problems.join(', ')} ended with other messages than @ag-ui/client; the timings compare different work.`)
        process.exitCode = 1
      }
      const results = await inTurn(sides, { runs, minNs })
      printTable(
        `AG-UI: a conversation of ${count} messages, ${events.length.toLocaleString('en-US')} events (${bytes.length.toLocaleString('en-US')} bytes of SSE) → the final messages`,
        ['reducer', 'CPU ns/event', 'ratio to first row', 'first row / this'],
        Object.entries(results).map(([name, { ns, ratio: r }]) => [name, (ns / events.length).toFixed(0), ratio(r), `${(1 / r).toFixed(r < 0.1 ? 0 : 2)}×`]),
      )
    } finally {
      server.close()
  }
  }

  // One more answer streamed after 10 and after 200 earlier messages: the cost per event
  // is the difference between a run with `tokens` deltas and a run with none, over `tokens`
  // (what a run costs whatever its length — a conversation made, an agent set up — cancels
  // out). The client streams an answer of a usual length; a flat-cost fold streams a longer
  // one, so that its set-up (the earlier messages taken in) does not drown its events.
  const tokens = quick ? 100 : 400
  const flatTokens = quick ? 1_000 : 4_000
  const rows = []
  const perEvent = {}
  for (const earlier of [10, 200]) {
    const before = await clientFold(new ReplayAgent(conversation({ messages: earlier, tokens: 12, seed: 7 }).events), 0)
    const answer = (count) => ({ long: streamedAnswer({ tokens: count }), empty: streamedAnswer({ tokens: 0 }) })
    const client = answer(tokens)
    const flat = answer(flatTokens)
    const sides = {}
    for (const subscribers of [1, 3]) {
      sides[`@ag-ui/client, ${subscribers} subscriber${subscribers > 1 ? 's' : ''}`] = {
        tokens,
        long: () => clientFold(new ReplayAgent(client.long, before), subscribers),
        empty: () => clientFold(new ReplayAgent(client.empty, before), subscribers),
      }
    }
    if (!ours.missing) {
      const history = ours.fromAgUi(before)
      const longFrames = frames(flat.long)
      const emptyFrames = frames(flat.empty)
      sides['agent-chunks Conversation (a push per SSE frame)'] = {
        tokens: flatTokens,
        long: () => ours.fold(longFrames, history),
        empty: () => ours.fold(emptyFrames, history),
      }
      sides['agent-chunks Conversation, toAGUIEvents after every push'] = {
        tokens: flatTokens,
        long: () => ours.serve(longFrames, history),
        empty: () => ours.serve(emptyFrames, history),
      }
      const theirs = await clientFold(new ReplayAgent(flat.long, before), 0)
      if (!same(ours.toAgUi(ours.fold(longFrames, history)), theirs)) {
        console.log(`\nWARNING: agent-chunks ended with other messages than @ag-ui/client after ${earlier} messages.`)
        process.exitCode = 1
      }
    }
    if (standIn) {
      sides['stand-in (plain JS, not agent-chunks)'] = { tokens: flatTokens, long: () => standInFold(flat.long, before), empty: () => standInFold(flat.empty, before) }
    }
    const fns = {}
    for (const [name, { long: l, empty: e }] of Object.entries(sides)) {
      fns[`${name}|long`] = l
      fns[`${name}|empty`] = e
    }
    const results = await inTurn(fns, { runs, minNs })
    for (const [name, side] of Object.entries(sides)) {
      const ns = (results[`${name}|long`].ns - results[`${name}|empty`].ns) / side.tokens
      ;(perEvent[name] ??= {})[earlier] = ns
    }
  }
  for (const [name, at] of Object.entries(perEvent)) rows.push([name, at[10].toFixed(0), at[200].toFixed(0), ratio(at[200] / at[10])])
  printTable(
    `AG-UI: one more answer streamed token by token (${tokens} TEXT_MESSAGE_CONTENT for the client, ${flatTokens.toLocaleString('en-US')} for the others) after 10 and 200 earlier messages`,
    ['reducer', 'CPU ns/event after 10', 'after 200', '200 / 10'],
    rows,
  )

  // One call's input streamed in many deltas (a file a tool writes): the cost per delta
  // of a short input and of one ten times as long, the difference of runs with and
  // without the deltas over their number, as above. Equal costs: linear in the input.
  if (!ours.missing) {
    const counts = quick ? [200, 2_000] : [400, 4_000]
    const perDelta = {}
    const fns = {}
    for (const count of counts) {
      const long = frames(streamedCall({ deltas: count }))
      const empty = frames(streamedCall({ deltas: 0 }))
      const theirs = await clientFold(new ReplayAgent(streamedCall({ deltas: count })), 0)
      if (!same(ours.toAgUi(ours.fold(long)), theirs)) {
        console.log(`\nWARNING: agent-chunks ended with other messages than @ag-ui/client for a call of ${count} deltas.`)
        process.exitCode = 1
      }
      fns[`push|${count}|long`] = () => ours.fold(long)
      fns[`push|${count}|empty`] = () => ours.fold(empty)
      fns[`serve|${count}|long`] = () => ours.serve(long)
      fns[`serve|${count}|empty`] = () => ours.serve(empty)
    }
    const results = await inTurn(fns, { runs, minNs })
    for (const side of ['push', 'serve']) {
      for (const count of counts) (perDelta[side] ??= []).push((results[`${side}|${count}|long`].ns - results[`${side}|${count}|empty`].ns) / count)
    }
    printTable(
      `AG-UI: one call's input streamed in ${counts[0].toLocaleString('en-US')} and in ${counts[1].toLocaleString('en-US')} TOOL_CALL_ARGS of 12 characters`,
      ['reducer', `CPU ns/delta of ${counts[0].toLocaleString('en-US')}`, `of ${counts[1].toLocaleString('en-US')}`, 'ratio'],
      [
        ['agent-chunks Conversation (a push per SSE frame)', ...perDelta.push.map((ns) => ns.toFixed(0)), ratio(perDelta.push[1] / perDelta.push[0])],
        ['agent-chunks Conversation, toAGUIEvents after every push', ...perDelta.serve.map((ns) => ns.toFixed(0)), ratio(perDelta.serve[1] / perDelta.serve[0])],
      ],
    )
  }
}
