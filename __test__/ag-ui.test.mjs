// The `ag-ui` format held to the reference client: every sequence here is folded by
// agent-chunks and run through `@ag-ui/client` itself (its whole pipeline, as `HttpAgent`
// runs it after reading the SSE), and the client's messages must be `agUi.fromMessages` of
// ours — on sequences written from the protocol's events, on random sequences, after every
// event — except where the docs (docs/formats/ag-ui.md) say we read a sequence otherwise
// than the client, where the test states what we give instead. Also: the mapping's round
// trips, live == whole == resumed at every frame, and the writer (`toAGUIEvents`) read by
// the client after every push.
//
// Skipped while the package has no `agUi` (the format is being built).
//
// `AG_UI_HARNESS_CHECK=1` runs the client-side half alone (the sequences are accepted or
// refused as stated, the generator's sequences are valid, the snapshot reference is
// self-consistent): a check of this file, not of agent-chunks.
import test, { describe } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { AbstractAgent, CompatibilityBoundary, HttpAgent, defaultApplyEvents, enforceEvents, transformChunks } from '@ag-ui/client'
import { ReplaySubject, from, lastValueFrom, toArray } from 'rxjs'
import { createRng, randomEventStream } from './random-streams.mjs'
import { randomAgUiSequence, snapshotOf } from './random-ag-ui.mjs'
import { STREAM_EXAMPLES } from './table.mjs'

const require = createRequire(import.meta.url)
const pkg = require('agent-chunks')
const harnessOnly = process.env.AG_UI_HARNESS_CHECK === '1'
const skip = harnessOnly || pkg.agUi ? false : 'the package has no ag-ui format yet (no agUi export)'
const oursToo = !harnessOnly && Boolean(pkg.agUi)

// ─── agent-chunks: the API the format gives (one place to adjust) ────────────

const sse = (events) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')
const frames = (events) => events.map((event) => Buffer.from(`data: ${JSON.stringify(event)}\n\n`))

const ours = {
  /** The recording read whole. */
  whole: (events, options = {}) => pkg.foldStream(Buffer.from(sse(events)), { format: 'ag-ui', ...options }),
  /** A live conversation given the events one SSE frame per push. */
  live(events, options = {}) {
    const live = new pkg.Conversation({ format: 'ag-ui', ...options })
    for (const frame of frames(events)) live.push(frame)
    return live
  },
  toAgUi: (messages) => pkg.agUi.fromMessages(messages),
  fromAgUi: (messages) => pkg.agUi.toMessages(messages),
}

// ─── The reference client ────────────────────────────────────────────────────

class ReplayAgent extends AbstractAgent {
  constructor(events, initialMessages) {
    super({ threadId: 'thread-r', initialMessages })
    this.events = events
  }
  run() {
    return from(this.events)
  }
}

/** Runs `fn` with the client's console warnings kept out of the test output. */
async function quietly(fn) {
  const { warn, error } = console
  console.warn = () => {}
  console.error = () => {}
  try {
    return await fn()
  } finally {
    console.warn = warn
    console.error = error
  }
}

const plain = (value) => JSON.parse(JSON.stringify(value))

/** What the client ends with: `{ messages, error }` (its whole pipeline). */
function client(events, initial = []) {
  return quietly(async () => {
    const agent = new ReplayAgent(plain(events), plain(initial))
    try {
      await agent.runAgent()
      return { messages: plain(agent.messages) }
    } catch (e) {
      return { messages: plain(agent.messages), error: String(e?.message ?? e) }
    }
  })
}

/**
 * What the client's reducer makes of a sequence its verifier refuses: the same stages but
 * the verifier, an event enforcement refuses left out (docs: we fold such runs on).
 */
function clientReducer(events, initial = []) {
  return quietly(async () => {
    const input = { threadId: 'thread-r', runId: 'r', messages: plain(initial), state: {}, tools: [], context: [], forwardedProps: {} }
    const translated = await lastValueFrom(new CompatibilityBoundary().run(input, { run: () => from(plain(events)) }).pipe(toArray()))
    const kept = []
    for (const event of translated) {
      try {
        kept.push(...(await lastValueFrom(enforceEvents(false)(from([event])).pipe(toArray()))))
      } catch {}
    }
    let messages = plain(initial)
    const mutations = await lastValueFrom(defaultApplyEvents(input, transformChunks(false)(from(kept)), { messages: plain(initial) }, []).pipe(toArray()))
    for (const m of mutations) if (m.messages) messages = m.messages
    return { messages: plain(messages) }
  })
}

/**
 * What the one mapping keeps of AG-UI messages (docs/formats/ag-ui.md, "What the chunks do
 * not hold" and "Where we read otherwise"), applied to both sides of a comparison:
 * - a message's `name`, `metadata`, `subagentRunId`, and `encryptedValue` (but a reasoning
 *   message's and a tool message's) have no place in the chunks; `developer` reads as
 *   `system`;
 * - a content part's `id`, its `metadata` but `filename`, a file source's `provider` and a
 *   part type its media type does not say are not kept; one text part is a string;
 * - activities are not conversation (but those agent-chunks writes for the chunks AG-UI
 *   has no message for); an error of RUN_ERROR is a chunk the client keeps no message for;
 * - a result whose call no message before it holds is skipped; a second result for a call
 *   replaces the first, in its place.
 */
function project(messages) {
  const partType = (mime = '') => (/^(image|audio|video)\//.exec(mime)?.[1] ?? 'document')
  const part = (p) => {
    if (p.type === 'text') return { type: 'text', text: p.text }
    if (p.type === 'binary') {
      // A legacy part reads as the file it names, as the client converts one.
      const source = p.data ? { type: 'data', value: p.data, mimeType: p.mimeType } : { type: 'url', value: p.url, mimeType: p.mimeType }
      return { type: partType(p.mimeType), source, ...(p.filename && { metadata: { filename: p.filename } }) }
    }
    const source = { ...p.source }
    delete source.provider
    const out = { type: partType(source.mimeType), source: source.type === 'file' ? { type: 'url', value: source.value, ...(source.mimeType !== undefined && { mimeType: source.mimeType }) } : source }
    if (typeof p.metadata?.filename === 'string') out.metadata = { filename: p.metadata.filename }
    return out
  }
  const kept = []
  for (const m of messages) {
    if (m.role === 'activity' && (!m.activityType.startsWith('agent-chunks.') || m.activityType === 'agent-chunks.error')) continue
    const { name, subagentRunId, ...rest } = m
    if (m.role !== 'tool' && m.role !== 'activity') delete rest.metadata
    if (m.role !== 'tool' && m.role !== 'reasoning') delete rest.encryptedValue
    if (rest.role === 'developer') rest.role = 'system'
    if (rest.role === 'user' && Array.isArray(rest.content)) {
      rest.content = rest.content.map(part)
      if (rest.content.length === 1 && rest.content[0].type === 'text') rest.content = rest.content[0].text
    }
    if (rest.role === 'tool') {
      const owner = kept.find((k) => k.role === 'assistant' && k.toolCalls?.some((c) => c.id === rest.toolCallId))
      if (!owner) continue
      const first = kept.findIndex((k) => k.role === 'tool' && k.toolCallId === rest.toolCallId && kept.indexOf(owner) < kept.indexOf(k))
      if (first !== -1) {
        kept[first] = rest
        continue
      }
    }
    kept.push(rest)
  }
  return plain(kept)
}

/** The client's messages but activities (not conversation: docs, "What is not a message"). */
const conversationOf = (messages) => messages.filter((m) => m.role !== 'activity' || m.activityType.startsWith('agent-chunks.'))

/**
 * Messages with the ids neither side was given (the client mints UUIDs for the retired
 * THINKING_* events, we mint `thinking-<line>`) renamed by order of appearance.
 */
function canonical(messages, events) {
  const given = new Set()
  JSON.stringify(events, (_, v) => (typeof v === 'string' && given.add(v), v))
  const renamed = new Map()
  const rename = (id) => (given.has(id) ? id : (renamed.has(id) || renamed.set(id, `minted-${renamed.size}`), renamed.get(id)))
  return messages.map((m) => ({ ...m, id: rename(m.id) }))
}

function assertSameMessages(actual, expected, events, what) {
  assert.deepEqual(canonical(project(actual), events), canonical(project(expected), events), what)
}

/**
 * The results after each assistant message in the order of its calls: the writer writes a
 * result when it lands, and the client keeps them in the order they came, which for
 * parallel calls need not be the calls' (docs: "Writing").
 */
function resultsInCallOrder(messages) {
  const out = []
  for (const m of messages) {
    if (m.role !== 'tool' || !out.length) {
      out.push(m)
      continue
    }
    let owner = out.length - 1
    while (owner >= 0 && out[owner].role === 'tool') owner--
    const calls = out[owner]?.toolCalls?.map((c) => c.id) ?? []
    let at = out.length
    while (at > owner + 1 && calls.indexOf(out[at - 1].toolCallId) > calls.indexOf(m.toolCallId)) at--
    out.splice(at, 0, m)
  }
  return out
}

// ─── The snapshot as we read it (docs: the snapshot's order and ids) ─────────

/**
 * A MESSAGES_SNAPSHOT read the way the format reads it, in AG-UI terms: the snapshot's
 * messages in its order, one per id (the last one's content at the first one's place),
 * each tool message right after the assistant message holding its call (the nearest before
 * it, else the first after it), and the messages the client keeps although the snapshot
 * leaves them out (reasoning when it has none, activities when it has none) put back
 * before the first message that followed them and is still there.
 */
function snapshotAsRead(before, snapshot) {
  const byId = new Map()
  for (const m of snapshot) byId.set(m.id, m)
  const order = []
  for (const m of snapshot) if (!order.includes(m.id)) order.push(m.id)
  const listed = order.map((id) => byId.get(id))
  const hasReasoning = listed.some((m) => m.role === 'reasoning')
  const hasActivity = listed.some((m) => m.role === 'activity')
  const rest = listed.filter((m) => m.role !== 'tool')
  for (const tool of listed.filter((m) => m.role === 'tool')) {
    const at = listed.indexOf(tool)
    const holds = (m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === tool.toolCallId)
    const owner = listed.slice(0, at).reverse().find(holds) ?? listed.slice(at).find(holds)
    // A result for no call stays where the snapshot has it: after the message before it.
    const anchor = owner ?? listed.slice(0, at).reverse().find((m) => rest.includes(m))
    let insert = anchor ? rest.indexOf(anchor) + 1 : 0
    while (owner && insert < rest.length && rest[insert].role === 'tool') insert++
    rest.splice(insert, 0, tool)
  }
  const kept = before.filter((m) => (m.role === 'reasoning' && !hasReasoning) || (m.role === 'activity' && !hasActivity))
  for (const m of kept) {
    if (byId.has(m.id)) continue
    const after = before.slice(before.indexOf(m) + 1).find((n) => rest.some((r) => r.id === n.id))
    rest.splice(after ? rest.findIndex((r) => r.id === after.id) : rest.length, 0, m)
  }
  return plain(rest)
}

/**
 * A sequence with its snapshot placeholders filled from what the client holds there, and
 * what we promise for it: the client's messages, or where a snapshot's order or ids differ
 * from the client's list, the client's reducer going on from the snapshot as we read it.
 */
async function resolveSnapshots(events, seed) {
  const rng = createRng(seed ^ 0x5eed)
  const out = []
  let promised = null // the messages we promise just after the last snapshot read otherwise
  let since = 0
  for (const event of events) {
    if (event.type !== 'MESSAGES_SNAPSHOT' || !event.restate) {
      out.push(event)
      continue
    }
    const held = promised
      ? (await clientReducer(out.slice(since), promised)).messages
      : (await clientReducer(out)).messages
    const snapshot = snapshotOf(event.restate, held, rng)
    out.push(snapshot)
    const theirs = (await clientReducer([snapshot], held)).messages
    const mine = snapshotAsRead(held, snapshot.messages)
    if (promised || JSON.stringify(theirs) !== JSON.stringify(mine)) {
      promised = mine
      since = out.length
    }
  }
  if (!promised) return { events: out }
  return { events: out, expected: (await clientReducer(out.slice(since), promised)).messages }
}

// ─── Sequences written from the protocol ─────────────────────────────────────

const RS = { type: 'RUN_STARTED', threadId: 't', runId: 'r' }
const RF = { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }
const text = (id, delta, role) => [
  { type: 'TEXT_MESSAGE_START', messageId: id, ...(role && { role }) },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta },
  { type: 'TEXT_MESSAGE_END', messageId: id },
]
const call = (id, name, parent, args = '{}') => [
  { type: 'TOOL_CALL_START', toolCallId: id, toolCallName: name, ...(parent && { parentMessageId: parent }) },
  { type: 'TOOL_CALL_ARGS', toolCallId: id, delta: args },
  { type: 'TOOL_CALL_END', toolCallId: id },
]
const result = (messageId, toolCallId, content) => ({ type: 'TOOL_CALL_RESULT', messageId, toolCallId, content })
const reasoning = (id, delta) => [
  { type: 'REASONING_START', messageId: id },
  { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: id, delta },
  { type: 'REASONING_MESSAGE_END', messageId: id },
  { type: 'REASONING_END', messageId: id },
]
const assistantWithCall = (id, content, callId, args = '{}') => ({
  id,
  role: 'assistant',
  ...(content !== undefined && { content }),
  toolCalls: [{ id: callId, type: 'function', function: { name: 'f', arguments: args } }],
})

/**
 * `reads`: 'client' (the client accepts it, and we end where it ends), 'reducer' (the
 * client refuses it; we fold on, as its reducer does), or the messages we give instead,
 * with `because` naming the docs' reason.
 */
const SPEC = [
  { name: 'a text message streamed in deltas', events: [RS, { type: 'TEXT_MESSAGE_START', messageId: 'a' }, ...['Hel', 'lo', '', ' world'].map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta })), { type: 'TEXT_MESSAGE_END', messageId: 'a' }, RF], reads: 'client' },
  { name: 'role user, system, developer, and a name', events: [RS, ...text('u', 'hi', 'user'), ...text('s', 'be brief', 'system'), ...text('d', 'use tools', 'developer'), { type: 'TEXT_MESSAGE_START', messageId: 'n', name: 'helper' }, { type: 'TEXT_MESSAGE_END', messageId: 'n' }, RF], reads: 'client' },
  { name: 'a message reopened by a second START goes on', events: [RS, ...text('a', 'First.'), ...text('a', ' Second.'), RF], reads: 'client' },
  { name: 'an empty message keeps its empty content', events: [RS, { type: 'TEXT_MESSAGE_START', messageId: 'a' }, { type: 'TEXT_MESSAGE_END', messageId: 'a' }, RF], reads: 'client' },
  { name: 'characters split across deltas', events: [RS, { type: 'TEXT_MESSAGE_START', messageId: 'a' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'a\ud83d' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: '\ude00b e\u0301 👩' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: '\u200d💻' }, { type: 'TEXT_MESSAGE_END', messageId: 'a' }, RF], reads: 'client' },
  { name: 'two messages streaming at once', events: [RS, { type: 'TEXT_MESSAGE_START', messageId: 'a' }, { type: 'TEXT_MESSAGE_START', messageId: 'b' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'b', delta: 'B' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'A' }, { type: 'TEXT_MESSAGE_END', messageId: 'a' }, { type: 'TEXT_MESSAGE_END', messageId: 'b' }, RF], reads: 'client' },
  { name: 'event metadata merges into the message, last write wins', events: [RS, { type: 'TEXT_MESSAGE_START', messageId: 'a', metadata: { k: 1, arr: [1, 2] } }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'x', metadata: { arr: [3] } }, { type: 'TEXT_MESSAGE_END', messageId: 'a', metadata: { usage: 5 } }, RF], reads: 'client' },
  { name: 'a tool call on its text message, arguments streamed', events: [RS, ...text('a', 'Let me look.'), { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'read', parentMessageId: 'a' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"path":' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"src/a.ts"}' }, { type: 'TOOL_CALL_END', toolCallId: 'c1' }, result('t1', 'c1', 'file text'), ...text('b', 'Done.'), RF], reads: 'client' },
  { name: 'arguments kept exactly (spaces, 1.0, escapes, not JSON, none)', events: [RS, ...call('c1', 'f', 'a', '{ "x" : 1.0, "s": "\\u0041" }'), ...call('c2', 'f', 'a', 'not json'), { type: 'TOOL_CALL_START', toolCallId: 'c3', toolCallName: 'f', parentMessageId: 'a' }, { type: 'TOOL_CALL_END', toolCallId: 'c3' }, RF], reads: 'client' },
  { name: 'a call without a parent makes a message of its own id', events: [RS, ...call('c1', 'f'), result('t1', 'c1', 'ok'), RF], reads: 'client' },
  { name: 'a call whose parent is a user message takes the call id', events: [RS, ...text('u', 'hi', 'user'), ...call('c1', 'f', 'u'), RF], reads: 'client' },
  { name: 'text after the calls on the same message', events: [RS, ...call('c1', 'f', 'a', '{"x":1}'), ...text('a', 'text after the call'), RF], reads: 'client' },
  { name: 'a call started again is renamed, not doubled', events: [RS, ...call('c1', 'first', 'a'), { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'second', parentMessageId: 'a' }, { type: 'TOOL_CALL_END', toolCallId: 'c1' }, RF], reads: 'client' },
  { name: 'parallel results land in the order they came', events: [RS, ...call('c1', 'f', 'a'), ...call('c2', 'g', 'a'), result('t2', 'c2', 'two'), result('t1', 'c1', 'one'), RF], reads: 'client' },
  { name: 'a result after the follow-up text lands after its call', events: [RS, ...call('c1', 'f', 'a'), ...text('b', 'next'), result('t1', 'c1', 'one'), RF], reads: 'client' },
  { name: 'a result in a later run lands on its call', events: [RS, ...text('a', 'calling'), ...call('c1', 'f', 'a'), RF, { ...RS, runId: 'r2' }, result('t1', 'c1', 'late'), ...text('b', 'thanks'), { ...RF, runId: 'r2' }], reads: 'client' },
  { name: 'a result with content parts', events: [RS, ...call('c1', 'f', 'a'), result('t1', 'c1', [{ type: 'text', text: 'see' }, { type: 'document', id: 'd', source: { type: 'url', value: 'https://example.com/x.pdf', mimeType: 'application/pdf' }, metadata: { title: 'x' } }]), RF], reads: 'client' },
  { name: 'a result for a call never made', events: [RS, ...text('a', 'x'), result('t9', 'c9', 'orphan'), RF], reads: [{ id: 'a', role: 'assistant', content: 'x' }], because: 'a result with no call is skipped and counted, as the ai-sdk format skips one' },
  { name: 'reasoning, sealed by an encrypted value that comes late', events: [RS, ...reasoning('r1', 'think'), { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r1', encryptedValue: 'e1' }, { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r1', encryptedValue: 'e2' }, ...text('a', 'answer'), RF], reads: 'client' },
  { name: 'an encrypted value before its message is lost', events: [RS, { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r1', encryptedValue: 'early' }, ...reasoning('r1', 'think'), RF], reads: 'client' },
  { name: 'an encrypted value on a call and on an assistant message', events: [RS, ...text('a', 'x'), ...call('c1', 'f', 'a'), { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: 'c1', encryptedValue: 'ec' }, { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'a', encryptedValue: 'em' }, RF], reads: 'client' },
  { name: 'reasoning content on an assistant id appends to its text', events: [RS, ...text('a', 'text'), { type: 'REASONING_MESSAGE_START', messageId: 'a', role: 'reasoning' }, { type: 'REASONING_MESSAGE_CONTENT', messageId: 'a', delta: '+thought' }, { type: 'REASONING_MESSAGE_END', messageId: 'a' }, RF], reads: 'client' },
  { name: 'text content on a tool message id grows the result', events: [RS, ...call('c1', 'f', 'a'), result('t1', 'c1', 'ok'), ...text('t1', '+more'), RF], reads: 'client' },
  { name: 'the retired THINKING events become reasoning', events: [RS, { type: 'THINKING_START', title: 'Working' }, { type: 'THINKING_TEXT_MESSAGE_START' }, { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'Let me check.' }, { type: 'THINKING_TEXT_MESSAGE_END' }, { type: 'THINKING_END' }, ...text('a', 'Checked.'), RF], reads: 'client' },
  { name: 'TEXT_MESSAGE_CHUNK and TOOL_CALL_CHUNK expand', events: [RS, { type: 'TEXT_MESSAGE_CHUNK', messageId: 'a', delta: 'he' }, { type: 'TEXT_MESSAGE_CHUNK', delta: 'llo' }, { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'f', parentMessageId: 'a', delta: '{"a"' }, { type: 'TOOL_CALL_CHUNK', delta: ':1}' }, { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r', delta: 'hm' }, RF], reads: 'client' },
  { name: 'a chunk with a new id ends the open chunked message', events: [RS, { type: 'TEXT_MESSAGE_CHUNK', messageId: 'a', delta: 'one' }, { type: 'TEXT_MESSAGE_CHUNK', messageId: 'b', delta: 'two', role: 'user' }, { type: 'RAW', event: {} }, { type: 'TEXT_MESSAGE_CHUNK', delta: ' more' }, RF], reads: 'client' },
  { name: 'RUN_STARTED input messages are added once', events: [{ ...RS, input: { threadId: 't', runId: 'r', messages: [{ id: 'u1', role: 'user', content: 'hi' }, { id: 'u2', role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { type: 'data', value: 'aGk=', mimeType: 'image/png' } }] }], tools: [], context: [], forwardedProps: {} } }, ...text('a', 'x'), RF, { ...RS, runId: 'r2', input: { threadId: 't', runId: 'r2', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [], forwardedProps: {} } }, { ...RF, runId: 'r2' }], reads: 'client' },
  { name: 'state, steps, custom, raw and unknown events keep no message', events: [RS, { type: 'STEP_STARTED', stepName: 's' }, { type: 'STATE_SNAPSHOT', snapshot: { a: 1 } }, { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/b', value: 2 }] }, { type: 'CUSTOM', name: 'x', value: 1 }, { type: 'RAW', event: { any: true } }, { type: 'SOMETHING_NEW', x: 1 }, ...text('a', 'x'), { type: 'STEP_FINISHED', stepName: 's' }, RF], reads: 'client' },
  { name: 'activities are not conversation', events: [RS, { type: 'ACTIVITY_SNAPSHOT', messageId: 'p', activityType: 'PLAN', content: { steps: [] } }, { type: 'ACTIVITY_DELTA', messageId: 'p', activityType: 'PLAN', patch: [{ op: 'add', path: '/steps/-', value: 'a' }] }, ...text('a', 'x'), RF], reads: 'client' },
  { name: 'an activity that takes a message id leaves the message', events: [RS, ...text('a', 'x'), { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { steps: [] } }, RF], reads: [{ id: 'a', role: 'assistant', content: 'x' }], because: 'an activity is not conversation: it does not take a message\'s place' },
  { name: 'a second result for a call replaces the first in its place', events: [RS, ...call('c1', 'f', 'a'), ...call('c2', 'f', 'a'), result('t1', 'c1', 'one'), result('t2', 'c2', 'two'), result('t1b', 'c1', 'again'), RF], reads: [{ id: 'a', role: 'assistant', toolCalls: ['c1', 'c2'].map((id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })) }, { id: 't1b', role: 'tool', content: 'again', toolCallId: 'c1' }, { id: 't2', role: 'tool', content: 'two', toolCallId: 'c2' }], because: 'a call has one result' },
  { name: 'a snapshot restating what streamed', events: [RS, ...text('a', 'draft'), ...call('c1', 'f', 'a'), result('t1', 'c1', 'ok'), { type: 'MESSAGES_SNAPSHOT', messages: [assistantWithCall('a', 'draft', 'c1'), { id: 't1', role: 'tool', toolCallId: 'c1', content: 'ok' }] }, RF], reads: 'client' },
  { name: 'a snapshot correcting a message and dropping another', events: [RS, ...text('a', 'first draft'), ...text('b', 'retracted'), { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'a', role: 'assistant', content: 'first draft, corrected' }] }, RF], reads: 'client' },
  { name: 'a snapshot keeps streamed reasoning it does not carry', events: [RS, ...reasoning('r1', 'think'), ...text('a', 'x'), { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'a', role: 'assistant', content: 'x' }] }, RF], reads: 'client' },
  {
    name: 'a snapshot giving a tool result after the follow-up text (#2767)',
    events: [RS, ...text('a1', 'calling'), ...call('c1', 'f', 'a1'), ...text('a2', 'after'), { type: 'MESSAGES_SNAPSHOT', messages: [assistantWithCall('a1', 'calling', 'c1'), { id: 't1', role: 'tool', toolCallId: 'c1', content: 'ok' }, { id: 'a2', role: 'assistant', content: 'after' }] }, RF],
    reads: [assistantWithCall('a1', 'calling', 'c1'), { id: 't1', role: 'tool', toolCallId: 'c1', content: 'ok' }, { id: 'a2', role: 'assistant', content: 'after' }],
    because: 'the snapshot\'s order, not the client\'s list with the new message appended',
  },
  {
    name: 'a snapshot re-keying a streamed tool result (#2707)',
    events: [RS, ...text('a1', 'calling'), ...call('c1', 'f', 'a1'), result('t-stream', 'c1', 'ok'), ...text('a2', 'done'), { type: 'MESSAGES_SNAPSHOT', messages: [assistantWithCall('a1', 'calling', 'c1'), { id: 't-canon', role: 'tool', toolCallId: 'c1', content: 'ok' }, { id: 'a2', role: 'assistant', content: 'done' }] }, RF],
    reads: [assistantWithCall('a1', 'calling', 'c1'), { id: 't-canon', role: 'tool', toolCallId: 'c1', content: 'ok' }, { id: 'a2', role: 'assistant', content: 'done' }],
    because: 'the re-keyed result stays after its call instead of after the answer',
  },
  {
    name: 'a snapshot repeating an id (#2707)',
    events: [RS, ...text('a', 'x'), { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'u', role: 'user', content: 'q' }, { id: 'n', role: 'assistant', content: '1' }, { id: 'n', role: 'assistant', content: '2' }] }, RF],
    reads: [{ id: 'u', role: 'user', content: 'q' }, { id: 'n', role: 'assistant', content: '2' }],
    because: 'one message per id: the last copy\'s content at the first copy\'s place',
  },
  { name: 'events after RUN_ERROR', events: [RS, ...text('a', 'x'), { type: 'RUN_ERROR', message: 'boom' }, ...text('b', 'y')], reads: 'reducer' },
  { name: 'a step started twice (as LangGraph streams do)', events: [RS, { type: 'STEP_STARTED', stepName: 'agent' }, ...text('a', 'x'), { type: 'STEP_STARTED', stepName: 'agent' }, RF], reads: 'reducer' },
  { name: 'arguments after the call ended', events: [RS, ...call('c1', 'f', 'a', '{"a":'), { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '1}' }, RF], reads: 'reducer' },
  { name: 'no RUN_STARTED, and RUN_STARTED without ids', events: [...text('a', 'x'), { type: 'RUN_STARTED' }, ...text('b', 'y')], reads: 'reducer' },
  { name: 'a stream cut inside a message', events: [RS, { type: 'TEXT_MESSAGE_START', messageId: 'a' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'x' }, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'f', parentMessageId: 'a' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"par' }], reads: 'client' },
]

describe('ag-ui: the client accepts or refuses each written sequence as stated', { skip }, () => {
  for (const c of SPEC) {
    test(c.name, async () => {
      const theirs = await client(c.events)
      if (c.reads === 'reducer') assert.ok(theirs.error, 'the client refuses it')
      else assert.equal(theirs.error, undefined, 'the client accepts it')
    })
  }
})

describe('ag-ui: written sequences read as the client reads them', { skip: skip || !oursToo }, () => {
  for (const c of SPEC) {
    test(c.name, async () => {
      const expected = Array.isArray(c.reads) ? c.reads : c.reads === 'reducer' ? (await clientReducer(c.events)).messages : (await client(c.events)).messages
      const whole = ours.whole(c.events)
      assertSameMessages(ours.toAgUi(whole.messages), expected, c.events, c.because ?? 'whole')
      assertSameMessages(ours.toAgUi(ours.live(c.events).messages), expected, c.events, 'live, one frame per push')
    })
  }
})

// ─── Random sequences ────────────────────────────────────────────────────────

const SEEDS = Number(process.env.AG_UI_SEEDS ?? 150)

describe('ag-ui: random sequences', { skip }, () => {
  test('valid sequences: the client accepts them, and we end where it ends', async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const events = randomAgUiSequence(seed)
      const theirs = await client(events)
      assert.equal(theirs.error, undefined, `seed ${seed}: the generator keeps to what the client accepts`)
      if (oursToo) assertSameMessages(ours.toAgUi(ours.whole(events).messages), theirs.messages, events, `seed ${seed}`)
    }
  })

  test('after every event, the live conversation is where the client is', async () => {
    for (let seed = 1; seed <= Math.ceil(SEEDS / 15); seed++) {
      const events = randomAgUiSequence(seed, { maxRuns: 2 })
      const live = oursToo ? new pkg.Conversation({ format: 'ag-ui' }) : null
      for (let k = 1; k <= events.length; k++) {
        live?.push(Buffer.from(sse([events[k - 1]])))
        const theirs = await client(events.slice(0, k))
        assert.equal(theirs.error, undefined, `seed ${seed}, event ${k}`)
        if (live) assertSameMessages(ours.toAgUi(live.messages), theirs.messages, events, `seed ${seed}, after event ${k}`)
      }
    }
  })

  test('order violations: we fold on as the client\'s reducer does', async () => {
    let refused = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const events = randomAgUiSequence(seed, { valid: false })
      const theirs = await client(events)
      if (theirs.error) refused++
      const expected = theirs.error ? (await clientReducer(events)).messages : theirs.messages
      if (oursToo) assertSameMessages(ours.toAgUi(ours.whole(events).messages), expected, events, `seed ${seed}`)
    }
    assert.ok(refused > SEEDS / 10, `the generator makes sequences the client refuses (${refused})`)
  })

  test('snapshots: the client\'s merge where it keeps the snapshot\'s order, the snapshot\'s order where it does not', async () => {
    let differing = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const raw = randomAgUiSequence(seed, { maxRuns: 3, snapshots: ['same', 'edit', 'drop', 'reorder', 'rekey', 'duplicate'] })
      const { events, expected } = await resolveSnapshots(raw, seed)
      if (expected) differing++
      const promised = expected ?? (await clientReducer(events)).messages
      if (oursToo) assertSameMessages(ours.toAgUi(ours.whole(events).messages), promised, events, `seed ${seed}`)
    }
    assert.ok(differing > 0, 'some snapshots hit the client\'s order defects')
  })
})

// ─── The mapping ─────────────────────────────────────────────────────────────

describe('ag-ui: agUi.toMessages and agUi.fromMessages round-trip', { skip: skip || !oursToo }, () => {
  test('the messages the client holds come back as the mapping keeps them', async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const events = randomAgUiSequence(seed)
      const { messages } = await client(events)
      const held = conversationOf(messages)
      assert.deepEqual(project(ours.toAgUi(ours.fromAgUi(held))), project(held), `seed ${seed}`)
    }
  })

  test('any conversation comes back exactly as it was', () => {
    let compared = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const events = randomEventStream(createRng(seed), { maxEvents: 40 }).filter((e) => e && typeof e === 'object')
      let messages
      try {
        messages = pkg.foldStream(Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n'), { format: 'events' }).messages
      } catch {
        continue
      }
      compared++
      assert.deepEqual(plain(ours.fromAgUi(plain(ours.toAgUi(messages)))), plain(messages), `seed ${seed}`)
    }
    assert.ok(compared > SEEDS / 2, `${compared} conversations compared`)
  })
})

// ─── Live, whole and resumed ─────────────────────────────────────────────────

describe('ag-ui: live == whole == resumed at every frame', { skip: skip || !oursToo }, () => {
  test('random sequences, cut at every frame', () => {
    for (let seed = 1; seed <= Math.ceil(SEEDS / 5); seed++) {
      const events = randomAgUiSequence(seed, { valid: seed % 2 === 0 })
      const whole = ours.whole(events)
      for (let cut = 0; cut <= events.length; cut++) {
        const first = ours.live(events.slice(0, cut))
        const state = JSON.parse(JSON.stringify({ messages: first.messages, resume: first.resume }))
        const resumed = ours.live(events.slice(cut), state)
        resumed.end()
        assert.deepEqual(plain(resumed.messages), plain(whole.messages), `seed ${seed}, cut at ${cut}`)
        assert.deepEqual(resumed.skipped, whole.skipped, `seed ${seed}, cut at ${cut}: skipped`)
      }
    }
  })
})

// ─── Bad input ───────────────────────────────────────────────────────────────

describe('ag-ui: bad input', { skip: skip || !oursToo }, () => {
  test('a malformed field refuses its frame alone, with its line', () => {
    const live = new pkg.Conversation({ format: 'ag-ui' })
    live.push(Buffer.from(sse([RS, { type: 'TEXT_MESSAGE_START', messageId: 'a' }])))
    assert.throws(() => live.push(Buffer.from(sse([{ type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 5 }]))), /line 5.*delta/)
    live.push(Buffer.from(sse([{ type: 'TEXT_MESSAGE_CONTENT', messageId: 'a', delta: 'ok' }])))
    assert.deepEqual(ours.toAgUi(live.messages), [{ id: 'a', role: 'assistant', content: 'ok' }])
  })

  test('an unknown event is skipped and counted; strict refuses it', () => {
    const events = [RS, { type: 'SOMETHING_NEW' }, ...text('a', 'x'), RF]
    assert.equal(ours.whole(events).skipped.count, 1)
    assert.throws(() => ours.whole(events, { strict: true }), /SOMETHING_NEW/)
  })
})

// ─── AG-UI out ───────────────────────────────────────────────────────────────

/** Agent event streams as a backend serves them (JSON values only). */
function agentEvents(seed) {
  return randomEventStream(createRng(seed), { maxEvents: 30 }).flatMap((raw) => {
    try {
      return [JSON.parse(JSON.stringify(raw, (_, v) => (typeof v === 'bigint' ? String(v) : v)))]
    } catch {
      return []
    }
  })
}

/** Pushes an event as a backend does: one the format refuses changes nothing, and is passed over. */
function pushed(live, event) {
  try {
    live.push(event)
    return true
  } catch {
    return false
  }
}

async function serveTo(body) {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' })
      res.end(body)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const agent = new HttpAgent({ url: `http://127.0.0.1:${server.address().port}/`, threadId: 'thread-w' })
    await quietly(() => agent.runAgent())
    return plain(agent.messages)
  } finally {
    server.close()
  }
}

describe('ag-ui: toAGUIEvents, read by the client after every push', { skip: skip || !oursToo }, () => {
  test("a call's input streamed delta by delta, a surrogate pair cut between two, is written as it grows", async () => {
    const input = ['{"path":"a', '.txt \uD83D', '\uDE00', '', '"}']
    const events = [
      { type: 'RUN_STARTED', threadId: 'thread-w', runId: 'run-w' },
      ...text('a', 'Reading.'),
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'read', parentMessageId: 'a' },
      ...input.map((delta) => ({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta })),
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      result('r1', 'c1', 'text'),
      { type: 'RUN_FINISHED', threadId: 'thread-w', runId: 'run-w' },
    ]
    const live = new pkg.Conversation({ format: 'ag-ui' })
    const written = []
    for (const frame of frames(events)) {
      live.push(frame)
      written.push(...live.toAGUIEvents(written.length ? undefined : { threadId: 'thread-w', runId: 'run-w' }))
      const theirs = await client(written)
      assert.equal(theirs.error, undefined)
      assert.deepEqual(theirs.messages, plain(ours.toAgUi(live.messages)))
    }
    const deltas = written.filter((e) => e.type === 'TOOL_CALL_ARGS').map((e) => e.delta)
    assert.equal(deltas.join(''), '{"path":"a.txt \u{1F600}"}')
    assert.ok(deltas.length >= 3, `the input is written as it grows: ${JSON.stringify(deltas)}`)
  })

  test('random agent event streams', async () => {
    for (let seed = 1; seed <= Math.ceil(SEEDS / 5); seed++) {
      const live = new pkg.Conversation({ format: 'events' })
      const written = []
      for (const event of agentEvents(seed)) {
        if (!pushed(live, event)) continue
        written.push(...live.toAGUIEvents({ threadId: 'thread-w', runId: 'run-w' }))
        const theirs = await client(written)
        assert.equal(theirs.error, undefined, `seed ${seed}: the client accepts what we write`)
        assert.deepEqual(resultsInCallOrder(theirs.messages), resultsInCallOrder(plain(ours.toAgUi(live.messages))), `seed ${seed}`)
      }
      live.end()
      written.push(...live.toAGUIEvents())
      const theirs = await client(written)
      assert.equal(theirs.error, undefined)
      assert.deepEqual(resultsInCallOrder(theirs.messages), resultsInCallOrder(plain(ours.toAgUi(live.messages))))
    }
  })

  test('cut anywhere and resumed from `resume`, the two halves make one stream', async () => {
    for (let seed = 1; seed <= Math.ceil(SEEDS / 10); seed++) {
      const events = agentEvents(seed)
      for (let cut = 0; cut <= events.length; cut += Math.max(1, events.length >> 2)) {
        const first = new pkg.Conversation({ format: 'events' })
        const written = []
        for (const event of events.slice(0, cut)) {
          if (!pushed(first, event)) continue
          written.push(...first.toAGUIEvents({ threadId: 'thread-w', runId: 'run-w' }))
        }
        const state = JSON.parse(JSON.stringify({ messages: first.messages, resume: first.resume }))
        const second = new pkg.Conversation({ format: 'events', ...state })
        for (const event of events.slice(cut)) {
          if (!pushed(second, event)) continue
          written.push(...second.toAGUIEvents({ threadId: 'thread-w', runId: 'run-w' }))
        }
        second.end()
        written.push(...second.toAGUIEvents())
        const theirs = await client(written)
        assert.equal(theirs.error, undefined, `seed ${seed}, cut ${cut}`)
        assert.deepEqual(resultsInCallOrder(theirs.messages), resultsInCallOrder(plain(ours.toAgUi(second.messages))), `seed ${seed}, cut ${cut}`)
      }
    }
  })

  test('the SSE text, served to HttpAgent on 127.0.0.1', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const live = new pkg.Conversation({ format: 'events' })
      let body = ''
      for (const event of agentEvents(seed)) {
        if (!pushed(live, event)) continue
        body += live.toAGUIStream({ threadId: 'thread-w', runId: 'run-w' })
      }
      live.end()
      body += live.toAGUIStream()
      assert.deepEqual(resultsInCallOrder(await serveTo(body)), resultsInCallOrder(plain(ours.toAgUi(live.messages))), `seed ${seed}`)
    }
  })
})

/** The example recordings of every stream format (one per format at least). */
const RECORDINGS = STREAM_EXAMPLES

/** The JSON values of a recording (NDJSON lines or SSE data), in order. */
function recorded(bytes) {
  const text = bytes.toString('utf8')
  if (/^(data|event|id|retry):|^:/.test(text.trimStart())) {
    return text.split(/\r?\n\r?\n/).map((frame) =>
      frame.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n'),
    ).filter((data) => data && data !== '[DONE]').map((data) => JSON.parse(data))
  }
  return text.split(/\r?\n/).filter((l) => l.trim()).map((l) => JSON.parse(l))
}

/**
 * The client as a frontend holds it while a response streams: one run fed events as they
 * are written, its messages read after each batch (the pipeline has no timers: once the
 * event loop turns, every event given has been applied).
 */
function streamingClient() {
  // Events given before the run subscribes wait for it.
  const subject = new ReplaySubject()
  class LiveAgent extends AbstractAgent {
    run() {
      return subject.asObservable()
    }
  }
  const agent = new LiveAgent({ threadId: 'thread-w' })
  let given = 0
  let seen = 0
  agent.subscribe({ onEvent: () => void seen++ })
  let error
  const { warn, error: err } = console
  console.warn = () => {}
  console.error = () => {}
  const done = agent.runAgent().catch((e) => (error = String(e?.message ?? e)))
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  return {
    async feed(events) {
      for (const event of plain(events)) subject.next(event)
      given += events.length
      // Every event reached the subscribers (what the writer writes has no chunks to
      // expand), then the loop turns once more for the last one's messages to land.
      for (let turns = 0; seen < given && error === undefined; turns++) {
        assert.ok(turns < 1000, `the client took ${seen} of ${given} events`)
        await turn()
      }
      await turn()
      return { messages: plain(agent.messages), error }
    },
    async end() {
      subject.complete()
      await done
      console.warn = warn
      console.error = err
      return { messages: plain(agent.messages), error }
    },
  }
}

describe('ag-ui: toAGUIEvents over the example recordings of every stream format', { skip: skip || !oursToo }, () => {
  test('every stream format has a recording here', () => {
    const named = new Set(RECORDINGS.map((path) => pkg.detectFormat(readFileSync(new URL(`../${path}`, import.meta.url))).format))
    assert.deepEqual([...named].sort(), pkg.formats().filter((f) => f.stream).map((f) => f.name).sort())
  })

  for (const path of RECORDINGS) {
    test(`${path}: after every push the client holds agUi.fromMessages of the conversation reloaded`, async () => {
      const bytes = readFileSync(new URL(`../${path}`, import.meta.url))
      const { format } = pkg.detectFormat(bytes)
      const values = recorded(bytes)
      const ndjson = (list) => Buffer.from(list.map((v) => JSON.stringify(v) + '\n').join(''))
      const live = new pkg.Conversation({ format })
      const theirs = streamingClient()
      const accepted = []
      // Cut halfway and resumed from what was kept, as a backend restarted mid-response.
      const cut = Math.floor(values.length / 2)
      let writer = live
      let written = 0
      for (const [k, value] of values.entries()) {
        if (k === cut) {
          const kept = plain({ messages: writer.messages, resume: writer.resume })
          writer = new pkg.Conversation({ format, ...kept })
        }
        try {
          writer.push(ndjson([value]))
        } catch {
          continue
        }
        accepted.push(value)
        const events = writer.toAGUIEvents({ threadId: 'thread-w', runId: 'run-w' })
        written += events.length
        const held = await theirs.feed(events)
        assert.equal(held.error, undefined, `after line ${k + 1}: the client accepts what is written`)
        const reloaded = pkg.foldStream(ndjson(accepted), { format }).messages
        assert.deepEqual(resultsInCallOrder(held.messages), resultsInCallOrder(plain(ours.toAgUi(reloaded))), `after line ${k + 1}`)
      }
      writer.end()
      await theirs.feed(writer.toAGUIEvents())
      const held = await theirs.end()
      assert.equal(held.error, undefined)
      const reloaded = pkg.foldStream(ndjson(accepted), { format }).messages
      assert.deepEqual(resultsInCallOrder(held.messages), resultsInCallOrder(plain(ours.toAgUi(reloaded))))
      assert.ok(written > 0 && accepted.length > values.length / 2, `${accepted.length} of ${values.length} lines read`)
    })
  }
})

// ─── The harness itself ──────────────────────────────────────────────────────

describe('ag-ui: the snapshot reference', { skip }, () => {
  test('restating the client\'s own list changes nothing', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const events = randomAgUiSequence(seed)
      const held = (await client(events)).messages.filter((m) => m.role !== 'activity')
      assert.deepEqual(snapshotAsRead(held, held), held, `seed ${seed}`)
    }
  })
})
