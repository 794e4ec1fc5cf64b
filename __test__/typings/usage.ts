// Compiled by `tsc --noEmit` in `npm test`: the typings as the original helper's callers
// use them, and misuse that must not compile (`@ts-expect-error`).
import {
  aiSdk,
  appendEventToChunks,
  appendEventsToChunks,
  applySystemEvent,
  loadHistory,
  loadHistorySync,
  type HistoryFormatName,
  type AgentEvent,
  type ChatMessage,
  type Chunk,
  type HistoryChunk,
  type HistoryMessage,
  type HistorySystemChunkKind,
  type IdentifiedMessage,
  type MessageRole,
  type ProviderMetadata,
  type SystemChunk,
  type SystemChunkKind,
  type SystemEventLike,
  type ToolBatchChunk,
  type ToolCallEntry,
  detectFormat,
  foldStream,
  formats,
  lockstep,
  readHistory,
  writeMessages,
  type Detection,
  type FormatHome,
  type Lockstep,
  type FoldedStream,
  type FormatInfo,
  type FormatName,
  type HistoryRead,
  type PiLeaf,
} from '../../index.js'

// A backend folding a stream into the in-flight message.
const message: ChatMessage = { id: 'm1', role: 'assistant', chunks: [] }
const stream: AgentEvent[] = [
  { type: 'text-delta', delta: 'Hello' },
  { type: 'reasoning-delta', delta: 'thinking' },
  { type: 'reasoning-end', metadata: { anthropic: { signature: 'sig' } } },
  { type: 'reasoning-end' },
  { type: 'tool-call', toolCall: { id: 't1', name: 'bash', arguments: { cmd: 'ls' } } },
  { type: 'tool-result', toolResult: { toolCallId: 't1', result: ['a', 'b'], isError: false } },
  { type: 'shell-output', stream: 'stderr', data: 'warn' },
  { type: 'error', error: 'overloaded', statusCode: 529 },
  { type: 'error', error: 'no code' },
  { type: 'notice', message: 'heads up' },
  { type: 'model-changed', modelId: 'claude', keyId: 'key-1' },
  { type: 'config-reload' },
  { type: 'usage', inputTokens: 10, outputTokens: 20 },
  { type: 'status', status: 'running' },
  { type: 'done' },
]
for (const event of stream) appendEventToChunks(message.chunks, event)

// Narrowing on `type`, as a renderer of loaded histories does, with an exhaustiveness
// check: a history's chunks are the drop-in's and files and other tools' notices.
function describe(chunk: HistoryChunk): string {
  switch (chunk.type) {
    case 'text':
      return chunk.text
    case 'thinking': {
      const sealed: ProviderMetadata | undefined = chunk.metadata
      return sealed ? `[sealed] ${chunk.text}` : chunk.text
    }
    case 'tool-batch':
      return chunk.calls.map((call: ToolCallEntry) => `${call.name}(${call.id}) ${call.isError ? 'failed' : 'ok'} ${call.shellOutput?.stdout ?? ''}`).join('\n')
    case 'error':
      return `${chunk.message} ${chunk.statusCode ?? ''}`
    case 'system': {
      const kind: HistorySystemChunkKind = chunk.kind
      return `${kind}: ${chunk.text}`
    }
    case 'file':
      return `${chunk.mediaType} ${chunk.filename ?? ''} ${chunk.url ?? `${chunk.data?.length ?? 0} bytes of base64`}`
    default: {
      const unreachable: never = chunk
      return unreachable
    }
  }
}
describe(message.chunks[0])

function onEvent(event: AgentEvent): string {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return event.delta
    case 'tool-call':
      return event.toolCall.name
    case 'tool-result':
      return event.toolResult.toolCallId
    case 'shell-output':
      return event.stream === 'stdout' ? event.data : ''
    case 'model-changed':
      return `${event.modelId} ${event.keyId}`
    default:
      return event.type
  }
}
onEvent(stream[0])

// The caller's own message type survives applySystemEvent.
interface StoredMessage extends IdentifiedMessage {
  createdAt: number
}
const stored: StoredMessage[] = []
const notice: SystemEventLike = { kind: 'cancelled', text: 'Stopped by user' }
const { messageId } = applySystemEvent(stored, notice, () => crypto.randomUUID())
const id: string = messageId
applySystemEvent(stored, { kind: 'notice', text: 'x' })
const first: StoredMessage | undefined = stored[0]
void [id, first?.createdAt]

const role: MessageRole = 'system'
const batch: ToolBatchChunk = { type: 'tool-batch', calls: [{ id: 'a', name: 'b', arguments: undefined }] }
const system: SystemChunk = { type: 'system', kind: 'notice', text: 'n' }
void [role, batch, system]

declare const crypto: { randomUUID(): string }

// ── Misuse that must not compile ──────────────────────────────────────────────
// @ts-expect-error an unknown event type
appendEventToChunks([], { type: 'text-delete', delta: 'x' })
// @ts-expect-error a numeric delta
appendEventToChunks([], { type: 'text-delta', delta: 5 })
// @ts-expect-error a tool call without an id
appendEventToChunks([], { type: 'tool-call', toolCall: { name: 'bash', arguments: {} } })
// @ts-expect-error a tool result without isError
appendEventToChunks([], { type: 'tool-result', toolResult: { toolCallId: 'x', result: 1 } })
// @ts-expect-error a stream that is neither stdout nor stderr
appendEventToChunks([], { type: 'shell-output', stream: 'stdin', data: 'x' })
// @ts-expect-error a bad SystemChunkKind
applySystemEvent([], { kind: 'warning', text: 'x' })
// @ts-expect-error an idFactory that does not return a string
applySystemEvent([], { kind: 'notice', text: 'x' }, () => 42)
const kinds: HistorySystemChunkKind[] = ['compaction', 'branch-summary', 'thinking-level-changed', 'custom']
const fileChunk: HistoryChunk = { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' }
// @ts-expect-error a file chunk needs its mediaType
const untyped: HistoryChunk = { type: 'file', data: 'iVBORw0KGgo=' }
// @ts-expect-error the drop-in never makes a file chunk: not in the helper's union
const dropInFile: Chunk = { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' }
// @ts-expect-error the drop-in's system kinds are the helper's four
const dropInKind: SystemChunkKind = 'compaction'
// @ts-expect-error a history's messages are not all the helper's ChatMessage
const dropInMessages: ChatMessage[] = loadHistorySync(new Uint8Array(0), 'pi')
// A helper-typed message is a history message: it goes where those go.
const asHistory: HistoryMessage[] = [message]
void [dropInFile, dropInKind, dropInMessages, asHistory]
// @ts-expect-error a chunk with an unknown type
const badChunk: Chunk = { type: 'image', text: 'x' }
// @ts-expect-error metadata must be keyed by provider
const badMetadata: ProviderMetadata = { signature: 'sig' }
// @ts-expect-error chunks is an array of chunks
appendEventToChunks([{ type: 'text' }], { type: 'done' })
// @ts-expect-error an error event needs its message
appendEventToChunks([], { type: 'error', statusCode: 500 })
// @ts-expect-error a message role outside the union
const badRole: MessageRole = 'tool'
// @ts-expect-error the result is not void-returning data
const nothing: string = appendEventToChunks([], { type: 'done' })
void [badChunk, badMetadata, badRole, nothing]

// ── The webui adapters and ACP ───────────────────────────────────────────────
import {
  acp,
  adaptACPMessages,
  adaptJSONLMessages,
  toUnifiedMessages,
  type ACPMessage,
  type ChatMessageData,
  type ContentBlock,
  type SessionNotification,
  type SessionUpdate,
  type ToolCallContent,
  type ToolCallData,
  type UnifiedMessage,
} from '../../index.js'

const edit: ToolCallData = {
  toolCallId: 'c1',
  kind: 'edit',
  title: 'Edit a.ts',
  status: 'completed',
  content: [{ type: 'diff', path: 'a.ts', oldText: null, newText: 'x' }],
  locations: [{ path: 'a.ts', line: null }],
}
const webview: ACPMessage[] = [
  { type: 'message', data: { role: 'user', content: 'hi' } },
  { type: 'completed-tool-call', data: edit },
]
const rows: UnifiedMessage[] = adaptACPMessages(webview, { now: 0 })
const transcript: ChatMessageData[] = [
  { uuid: 'u', timestamp: '2025-01-01T00:00:00Z', type: 'user', message: { parts: [{ text: 'q' }] } },
  { uuid: 't', timestamp: 1735689600000, type: 'tool_call', toolCall: edit },
]
adaptJSONLMessages(transcript)
toUnifiedMessages([message])

function render(row: UnifiedMessage): string {
  return row.type === 'tool_call' ? `${row.toolCall?.kind}: ${row.toolCall?.status}` : (row.content ?? '')
}
rows.map(render)

function contentText(block: ToolCallContent): string {
  switch (block.type) {
    case 'content':
      return block.content.type === 'text' ? block.content.text : block.content.type
    case 'diff':
      return `${block.path}: ${block.oldText ?? '(new)'} → ${block.newText}`
    case 'terminal':
      return block.terminalId
  }
}
void contentText

const updates: Array<SessionNotification | SessionUpdate> = [
  { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } } },
  { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Read', kind: 'read', rawInput: { path: 'a' } },
  { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed', title: null },
  { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status: 'pending' }] },
]
for (const update of updates) {
  for (const event of acp.toAgentEvents(update)) appendEventToChunks(message.chunks, event)
}
const state: ACPMessage[] = acp.toWebviewMessages(updates)
// Message ids, replayed user messages and session state updates; the whole fold.
const replay: Array<SessionNotification | SessionUpdate> = [
  { sessionUpdate: 'user_message_chunk', messageId: 'u1', content: { type: 'text', text: 'Hi' } },
  { sessionUpdate: 'agent_message_chunk', messageId: null, content: { type: 'text', text: 'Hello' } },
  { sessionUpdate: 'session_info_update', title: 'Greeting' },
  { sessionUpdate: 'usage_update', used: 10, size: 100 },
  { sessionUpdate: 'config_option_update', configOptions: [] },
]
const acpFolded: HistoryMessage[] = acp.toMessages(replay)
const planKind: HistorySystemChunkKind = 'plan'
void [acpFolded, planKind]
for (const entry of state) {
  if (entry.type === 'message') void entry.data.role
  else void entry.data.toolCallId
}
const image: ContentBlock = { type: 'image', data: '', mimeType: 'image/png' }
void image

// @ts-expect-error an ACP message type the webview does not have
adaptACPMessages([{ type: 'tool-call', data: edit }])
// @ts-expect-error a tool call status outside ACP's four
const badStatus: ToolCallData = { ...edit, status: 'done' }
// @ts-expect-error a transcript line without a uuid
adaptJSONLMessages([{ timestamp: '2025', type: 'user' }])
// @ts-expect-error options.now is a number
adaptACPMessages(webview, { now: '2025' })
// @ts-expect-error a diff needs its new text
const badDiff: ToolCallContent = { type: 'diff', path: 'a' }
// @ts-expect-error an unknown sessionUpdate
acp.toAgentEvents({ sessionUpdate: 'agent_message', content: { type: 'text', text: 'x' } })
// @ts-expect-error toWebviewMessages takes a list
acp.toWebviewMessages(updates[0])
void [badStatus, badDiff]
// ── Formats and views ────────────────────────────────────────────────────────
import {
  buildTimeline,
  pi,
  sn,
  SnThinkingRole,
  ThinkingMessagePartType,
  type PiGatewayEvent,
  type PiSessionLine,
  type SnGatewayThought,
  type SnReconciled,
  type SnStreamEvent,
  type SnThinkingThought,
  type TimelineGroup,
  type TimelineItem,
  type ToolCallItem,
} from '../../index.js'

declare const sessionFile: Uint8Array
const lines: PiSessionLine[] = [
  { type: 'session', version: 3, id: 's', cwd: '/tmp' },
  { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 },
  { type: 'message', id: 'e1', parentId: null, message: { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 's' }, { type: 'toolCall', id: 'c', name: 'exec', arguments: {} }], provider: 'anthropic' } },
  { role: 'toolResult', toolCallId: 'c', toolName: 'exec', content: [{ type: 'text', text: 'ok' }], isError: false },
]
const fromPi: HistoryMessage[] = [...pi.toMessages(lines), ...pi.toMessages(sessionFile), ...pi.toMessages('{"role":"user","content":"x"}')]
const persisted: string = pi.fromMessages(fromPi)
const gateway: PiGatewayEvent[] = [
  { type: 'delta', text: 'a' },
  { type: 'thinking-delta', text: 'b' },
  { type: 'thinking-end', signature: 's', provider: 'anthropic' },
  { type: 'tool-start', toolCallId: 'c', name: 'exec', args: { cmd: 'ls' } },
  { type: 'tool-end', toolCallId: 'c', name: 'exec', result: 'ok', isError: false },
  { type: 'final' },
]
for (const event of gateway) for (const agentEvent of pi.toAgentEvents(event)) appendEventToChunks(message.chunks, agentEvent)

const thought: SnThinkingThought = {
  id: 't',
  role: SnThinkingRole.Assistant,
  parts: [
    { type: ThinkingMessagePartType.Text, text: 'hi' },
    { type: 'FunctionCall', functionCall: { id: 'c', name: 'f', arguments: '{}' } },
    { type: 2, functionResult: { callId: 'c', result: null, isError: false } },
  ],
  createdAt: '2026-01-01T00:00:00Z',
}
const gatewayThought: SnGatewayThought = { id: 'g', role: 'User', parts: [{ type: 0, text: 'q' }], created_at: 'x' }
const snMessage: HistoryMessage = sn.toMessage(gatewayThought)
const written: SnThinkingThought = sn.fromMessage(snMessage, { createdAt: 'now' })
const sse: SnStreamEvent[] = [
  { type: 'text', data: 'a' },
  { type: 'function_call_update', data: { partial: true } },
  { type: 'function_call', data: { id: 'c', name: 'f', arguments: '{}' } },
  { type: 'function_result', data: { call_id: 'c', result: 1, is_error: false } },
  { type: 'topic', data: 'Title' },
  { type: 'thought', data: thought },
]
const streamed: Chunk[] = []
for (const event of sse) for (const agentEvent of sn.toAgentEvents(event)) appendEventToChunks(streamed, agentEvent)
const reconciled: SnReconciled = sn.reconcile(streamed, thought)
const firstDifference: string | undefined = reconciled.difference?.path
const many: HistoryMessage[] = sn.toMessages([thought, gatewayThought])
void [persisted, written, firstDifference, many]

const groups: TimelineGroup[] = buildTimeline(
  [...message.chunks, { type: 'tool-batch', calls: [{ id: 'k', name: 'task', arguments: { subagent_type: 'notion_agent' }, spanId: 'span' }] }],
  { finished: true },
)
function label(item: TimelineItem): string {
  switch (item.kind) {
    case 'reasoning':
      return `${item.id} ${item.text} ${item.status}`
    case 'tool-call': {
      const call: ToolCallItem = item
      return `${call.title} (${call.toolName}) ${call.status} ${call.spanId ?? ''}`
    }
    default: {
      const unreachable: never = item
      return unreachable
    }
  }
}
groups.map((group) => [label(group.parent), ...group.children.map(label)])

// @ts-expect-error a Pi history is text, bytes or lines, not a number
pi.toMessages(42)
// @ts-expect-error an unknown gateway event type
pi.toAgentEvents({ type: 'tool-begin', toolCallId: 'c' })
// @ts-expect-error tool-start needs its toolCallId
pi.toAgentEvents({ type: 'tool-start', name: 'exec', args: {} })
// @ts-expect-error a Pi user message has role 'user', not 'human'
const badLine: PiSessionLine = { role: 'human', content: 'x' }
// @ts-expect-error Solar Network arguments are a JSON string
const badCall: SnThinkingThought = { id: 't', role: 0, parts: [{ type: 1, functionCall: { id: 'c', name: 'f', arguments: {} } }] }
// @ts-expect-error an unknown part type name
const badPart: SnThinkingThought = { id: 't', role: 0, parts: [{ type: 'Image' }] }
// @ts-expect-error an unknown SSE event type
sn.toAgentEvents({ type: 'delta', data: 'x' })
// @ts-expect-error fromMessage returns a thought, not a message
const notAMessage: ChatMessage = sn.fromMessage(snMessage)
// @ts-expect-error finished is a boolean
buildTimeline([], { finished: 'yes' })
// @ts-expect-error a timeline item has no 'text' kind
const badItem: TimelineItem = { kind: 'text', id: 'x', text: 'y', status: 'completed' }
void [badLine, badCall, badPart, notAMessage, badItem]

// History loading: a path or bytes and a format name; a promise of messages, or messages.
async function loadAll(): Promise<HistoryMessage[]> {
  const format: HistoryFormatName = 'pi'
  const fromBytes: HistoryMessage[] = loadHistorySync(new Uint8Array(0), 'events')
  const fromPath: Promise<HistoryMessage[]> = loadHistory('session.jsonl', format)
  const transcripts: HistoryMessage[] = [...loadHistorySync('session.jsonl', 'claude'), ...loadHistorySync('chat.jsonl', 'qwen')]
  void transcripts
  // @ts-expect-error an unknown format
  loadHistorySync('session.jsonl', 'gemini')
  // @ts-expect-error the format is required
  loadHistory('session.jsonl')
  // @ts-expect-error the async load returns a promise, not messages
  const notYet: HistoryMessage[] = loadHistory('session.jsonl', 'acp')
  void notYet
  return [...fromBytes, ...(await fromPath)]
}
void loadAll

// The AI SDK: its chunks and messages in, agent events and messages out; a batch of events.
const fromUi: AgentEvent[] = aiSdk.fromUIMessageChunks([{ type: 'text-delta', id: 't', delta: 'a' }])
const fromParts: AgentEvent[] = aiSdk.fromFullStreamParts([{ type: 'text-delta', id: 't', text: 'a' }])
appendEventsToChunks([], [...fromUi, ...fromParts])
const uiHistory: HistoryMessage[] = aiSdk.toMessages([{ id: 'm', role: 'assistant', parts: [{ type: 'text', text: 'a' }] }])
const uiMessage: { id: string; parts: Array<{ type: string }> } = aiSdk.fromMessage(uiHistory[0])
void uiMessage
void aiSdk.fromMessages(uiHistory)
// @ts-expect-error a chunk has a type
aiSdk.fromUIMessageChunks([{ id: 't' }])
// @ts-expect-error the events are an array
appendEventsToChunks([], { type: 'done' })

// The table of formats.
const detection: Detection = detectFormat(Buffer.from('{"type":"session","version":3}'))
const detectedName: FormatName | undefined = detection.format
const read: HistoryRead = readHistory('{"role":"user","content":"hi"}', { format: 'pi', strict: true, leaf: 'a1' })
const readMessages: HistoryMessage[] = read.messages
const skippedCount: number = read.skipped.count
const folded: FoldedStream = foldStream('{"type":"delta","text":"a"}', { format: 'pi-stream' })
const firstLines: [number, number] = folded.origins[0].lines
const table: FormatInfo[] = formats()
const codexHomes: FormatHome[] = table[0].homes
const homeVariable: string | undefined = codexHomes[0]?.variable
const compared: Lockstep | null = lockstep('codex-exec', folded.messages, read.messages)
// Codex's app server: its traffic folded live, a thread/read answer read as a history.
const appServer = new Conversation({ format: 'codex-app-server' })
appServer.push({ method: 'turn/started', params: { threadId: 't', turn: { id: 'u' } } })
const reread: HistoryRead = readHistory('{"id":2,"result":{"thread":{"id":"t","turns":[]}}}', { format: 'codex-app-server' })
const againstReread: Lockstep | null = lockstep('codex-app-server', appServer.messages, reread.messages)
const setAside: string[] = compared ? compared.notes : []
// @ts-expect-error lockstep takes a format of the table
lockstep('codex-cli', [], [])
const writtenText: string = writeMessages(table.find((format) => format.write)?.name ?? 'pi', read.messages)
const held: Array<'user' | 'assistant' | 'system'> = table[0].holds
// @ts-expect-error writeMessages takes a format of the table
writeMessages('yaml', [])
const leafList: PiLeaf[] = pi.leaves('{"type":"session","version":3}')
const branch: HistoryMessage[] = pi.toMessages('', { leaf: leafList[0]?.id, strict: false })
// @ts-expect-error not a format name
readHistory('', { format: 'yaml' })

// ── Session files of other tools ─────────────────────────────────────────────
import { claude, qwen, type ClaudeTranscriptLine, type QwenChatRecord } from '../../index.js'
const claudeLines: ClaudeTranscriptLine[] = [
  { type: 'summary' },
  { type: 'user', uuid: 'u', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'hi' } },
  { type: 'assistant', uuid: 'a', parentUuid: 'u', isSidechain: false, message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'hello' }] } },
]
const qwenRecords: QwenChatRecord[] = [
  { uuid: 'u', parentUuid: null, sessionId: 's', timestamp: 't', type: 'user', message: { role: 'user', parts: [{ text: 'hi' }] } },
  { uuid: 'a', parentUuid: 'u', sessionId: 's', timestamp: 't', type: 'assistant', message: { role: 'model', parts: [{ text: 'hm', thought: true }, { functionCall: { id: 'c', name: 'read_file', args: {} } }] } },
]
const fromTools: HistoryMessage[] = [...claude.toMessages(claudeLines), ...qwen.toMessages(qwenRecords)]
// @ts-expect-error a Qwen record's type is one of four
const badRecord: QwenChatRecord = { uuid: 'u', parentUuid: null, sessionId: 's', timestamp: 't', type: 'tool_call' }
void [fromTools, badRecord]

// ─── A live conversation ─────────────────────────────────────────────────────────
import { Conversation, type ConversationChanges, type ConversationResume } from '../../index.js'
{
  const live = new Conversation({ format: 'acp', mode: 'immutable', strict: true, limit: 1 << 20 })
  const changes: ConversationChanges = live.push(new Uint8Array())
  live.push('{"type":"text-delta","delta":"a"}\n')
  live.push({ jsonrpc: '2.0', method: 'session/update', params: {} })
  const added: number[] = changes.added
  const chunkIndexes: number[] = changes.changed[0]?.chunks ?? []
  const messages: ChatMessage[] = live.messages
  const sse: string = live.toUIMessageStream()
  const ui: Array<{ type: string }> = live.toUIMessageChunks()
  const resumed = new Conversation({ format: 'events', messages, line: 12 })
  // A resume state kept as JSON goes back in as it came out.
  const kept: { messages: ChatMessage[]; resume: ConversationResume } = JSON.parse(JSON.stringify({ messages, resume: live.resume }))
  const exact = new Conversation({ format: 'acp', ...kept })
  const pending: number = exact.resume.pending
  // What was skipped so far goes on with the state.
  const skippedSoFar: number | undefined = exact.resume.skipped?.count
  const folded = foldStream('', { format: 'acp' })
  const fromFile = new Conversation({ format: 'acp', messages: folded.messages, resume: folded.resume })
  const one: ChatMessage | undefined = live.at(-1)
  const count: number = live.length
  void [added, chunkIndexes, sse, ui, resumed, live.skipped.count, live.end(), pending, skippedSoFar, fromFile, one, count]
  // @ts-expect-error the format is required
  new Conversation({})
  // @ts-expect-error a resume state is an object
  new Conversation({ format: 'acp', resume: 'state' })
  // @ts-expect-error push takes bytes, text or a parsed value
  live.push(42)
  // @ts-expect-error messages is read-only
  live.messages = []
}

// A store of many sessions (a tool's database, a folder), read a session at a time.
import { storeSessions, type StoreSessions, type StoredSession } from '../../index.js'
{
  const listed: StoreSessions = storeSessions('/data/opencode/opencode.db')
  const first: StoredSession | undefined = listed.sessions[0]
  const parent: string | undefined = first?.parentId
  const updated: number | undefined = first?.updated
  void [parent, updated]
  const messages: HistoryMessage[] = loadHistorySync('/data/opencode/opencode.db', listed.format, { session: first?.id })
  void messages
  const stores: boolean[] = formats().map((f) => f.store)
  void stores
}
