// A CopilotKit-style page: `@ag-ui/client` and agent-chunks (its WebAssembly build) in
// one bundle, both ways. In: an AG-UI stream, pushed into a live conversation in pieces
// split anywhere, reads as what the client makes of the same events. Out: a conversation
// written out as AG-UI events after every push is, read by the client, what
// `agUi.fromMessages` says of the conversation, and `agUi.toMessages` of what the client
// holds is the conversation again. Leaves what it saw on `aguiReport`.
import { Conversation, agUi } from 'agent-chunks'
import { AbstractAgent } from '@ag-ui/client'
import { from } from 'rxjs'

class ReplayAgent extends AbstractAgent {
  constructor(events) {
    super({ threadId: 'thread-page' })
    this.events = events
  }
  run() {
    return from(this.events)
  }
}

const plain = (value) => JSON.parse(JSON.stringify(value))

/** What `@ag-ui/client` ends with for `events` (its whole pipeline). */
async function client(events) {
  const agent = new ReplayAgent(plain(events))
  await agent.runAgent()
  return plain(agent.messages)
}

const RUN = { type: 'RUN_STARTED', threadId: 'thread-page', runId: 'run-1' }
const STREAM = [
  { ...RUN, input: { threadId: 'thread-page', runId: 'run-1', messages: [{ id: 'u1', role: 'user', content: 'What is 6 × 7?' }], tools: [], context: [] } },
  { type: 'REASONING_START', messageId: 'r1' },
  { type: 'REASONING_MESSAGE_START', messageId: 'r1', role: 'reasoning' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r1', delta: 'Multiply \uD83E' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r1', delta: '\uDDEE it.' },
  { type: 'REASONING_MESSAGE_END', messageId: 'r1' },
  { type: 'REASONING_END', messageId: 'r1' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'a1', delta: 'Using the ' },
  { type: 'TEXT_MESSAGE_CHUNK', delta: 'calculator.' },
  { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'calc', parentMessageId: 'a1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"expr":' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"6*7"}' },
  { type: 'TOOL_CALL_END', toolCallId: 'c1' },
  { type: 'STATE_SNAPSHOT', snapshot: { steps: 1 } },
  { type: 'TOOL_CALL_RESULT', messageId: 't1', toolCallId: 'c1', content: '42' },
  { type: 'TEXT_MESSAGE_START', messageId: 'a2', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a2', delta: '6 × 7 = 42.' },
  { type: 'TEXT_MESSAGE_END', messageId: 'a2' },
  { type: 'RUN_FINISHED', threadId: 'thread-page', runId: 'run-1' },
]

/** Agent events a backend turns into AG-UI as they come. */
const AGENT = [
  { type: 'turn-start', turnId: 'turn-1' },
  { type: 'reasoning-delta', delta: 'Look it ' },
  { type: 'reasoning-delta', delta: 'up.' },
  { type: 'reasoning-end', metadata: { anthropic: { signature: 'sig' } } },
  { type: 'text-delta', delta: 'Searching \uD83D' },
  { type: 'text-delta', delta: '\uDD0D' },
  { type: 'tool-call', toolCall: { id: 'call-1', name: 'search', arguments: { q: 'ag-ui' } } },
  { type: 'tool-call', toolCall: { id: 'call-2', name: 'fetch', arguments: { url: 'https://example.com' } } },
  { type: 'tool-result', toolResult: { toolCallId: 'call-1', result: { hits: 3 }, isError: false } },
  { type: 'notice', message: 'Retrying the fetch' },
  { type: 'tool-result', toolResult: { toolCallId: 'call-2', result: 'timeout', isError: true } },
  { type: 'error', error: 'rate limited', statusCode: 429 },
  { type: 'text-delta', delta: 'Found 3 hits.' },
]

async function report() {
  // In: the SSE bytes, in pieces of 7 bytes (characters cut across pieces).
  const bytes = new TextEncoder().encode(STREAM.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''))
  const live = new Conversation({ format: 'ag-ui', mode: 'immutable' })
  for (let at = 0; at < bytes.length; at += 7) live.push(bytes.subarray(at, at + 7))
  live.end()
  const read = { ours: plain(agUi.fromMessages(live.messages)), theirs: await client(STREAM), skipped: plain(live.skipped) }

  // Out: written after every push, read by the client after every push.
  const out = new Conversation({ format: 'events' })
  const written = []
  const steps = []
  for (const event of AGENT) {
    out.push(event)
    written.push(...out.toAGUIEvents({ threadId: 'thread-page', runId: 'run-w' }))
    steps.push({ ours: plain(agUi.fromMessages(out.messages)), theirs: await client(written) })
  }
  out.end()
  written.push(...out.toAGUIEvents())
  const theirs = await client(written)
  const final = { ours: plain(agUi.fromMessages(out.messages)), theirs }
  const back = { conversation: plain(out.messages), fromClient: plain(agUi.toMessages(theirs)) }
  let typeError = null
  try {
    new Conversation({ format: 'events' }).toAGUIEvents({ runId: 'r' })
  } catch (error) {
    typeError = { name: error.name, message: error.message }
  }
  return { read, steps, final, back, typeError, types: [...new Set(written.map((e) => e.type))] }
}

globalThis.aguiReport = report().catch((error) => ({ failed: String(error?.stack ?? error) }))
