// Compiled by `tsc --noEmit` in `npm test`: code written against the original helper's own
// types compiles unchanged against the package's. The helper's types are written out
// below as its code reads and writes them (the drop-in contract), and each is checked to
// be the package's type exactly, in both directions; then a consumer written against
// them, with exhaustive switches that have no `default` (strict mode refuses such a
// function, "Function lacks ending return statement", when the package's union is wider).
import {
  appendEventToChunks,
  applySystemEvent,
  type AgentEvent,
  type ChatMessage,
  type Chunk,
  type IdentifiedMessage,
  type MessageRole,
  type ProviderMetadata,
  type SystemChunk,
  type SystemChunkKind,
  type SystemEventLike,
  type ToolCallEntry,
} from '../../index.js'

namespace Helper {
  export type ProviderMetadata = Record<string, Record<string, unknown>>
  export type AgentEvent =
    | { type: 'text-delta'; delta: string }
    | { type: 'reasoning-delta'; delta: string }
    | { type: 'reasoning-end'; metadata?: ProviderMetadata }
    | { type: 'tool-call'; toolCall: { id: string; name: string; arguments: unknown } }
    | { type: 'tool-result'; toolResult: { toolCallId: string; result: unknown; isError: boolean } }
    | { type: 'shell-output'; stream: 'stdout' | 'stderr'; data: string }
    | { type: 'error'; error: string; statusCode?: number }
    | { type: 'notice'; message: string }
    | { type: 'model-changed'; modelId: string; keyId: string }
    | { type: 'config-reload' }
    | {
        type:
          | 'status' | 'turn-start' | 'turn-sealed' | 'done' | 'usage' | 'task-list-update'
          | 'tab-created' | 'message-queued' | 'message-consumed' | 'message-cancelled'
          | 'compaction-started' | 'compaction-complete' | 'compaction-error'
        [key: string]: unknown
      }
  export interface ToolCallEntry {
    id: string
    name: string
    arguments: unknown
    result?: unknown
    isError?: boolean
    shellOutput?: { stdout: string; stderr: string }
  }
  export type SystemChunkKind = 'notice' | 'model-changed' | 'config-reload' | 'cancelled'
  export interface SystemChunk { type: 'system'; kind: SystemChunkKind; text: string }
  export type Chunk =
    | { type: 'text'; text: string }
    | { type: 'thinking'; text: string; metadata?: ProviderMetadata }
    | { type: 'tool-batch'; calls: ToolCallEntry[] }
    | { type: 'error'; message: string; statusCode?: number }
    | SystemChunk
  export type MessageRole = 'user' | 'assistant' | 'system'
  export interface ChatMessage { id: string; role: MessageRole; chunks: Chunk[] }
  export interface IdentifiedMessage { id: string; role: MessageRole; chunks: Chunk[] }
  export interface SystemEventLike { kind: SystemChunkKind; text: string }
  export declare function appendEventToChunks(chunks: Chunk[], event: AgentEvent): void
  export declare function applySystemEvent<M extends IdentifiedMessage>(
    messages: M[], event: SystemEventLike, idFactory?: () => string): { messageId: string }
}

// `Same<A, B>` is `true` only when each is assignable to the other and, for object
// types, both have the same keys: an optional field one side lacks is assignable both
// ways, yet it is a field the helper's type does not have.
type Keys<T> = T extends object ? keyof T : never
type Assignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Same<A, B> = Assignable<A, B> extends true ? Assignable<Keys<A>, Keys<B>> : false
const exact: [
  Same<Chunk, Helper.Chunk>,
  Same<Chunk['type'], Helper.Chunk['type']>,
  Same<SystemChunk, Helper.SystemChunk>,
  Same<SystemChunkKind, Helper.SystemChunkKind>,
  Same<ToolCallEntry, Helper.ToolCallEntry>,
  Same<ChatMessage, Helper.ChatMessage>,
  Same<IdentifiedMessage, Helper.IdentifiedMessage>,
  Same<MessageRole, Helper.MessageRole>,
  Same<SystemEventLike, Helper.SystemEventLike>,
  Same<ProviderMetadata, Helper.ProviderMetadata>,
  Same<AgentEvent['type'], Helper.AgentEvent['type']>,
] = [true, true, true, true, true, true, true, true, true, true, true]
void exact
// The package's functions take whatever the helper's took.
const append: typeof Helper.appendEventToChunks = appendEventToChunks
const apply: typeof Helper.applySystemEvent = applySystemEvent
void [append, apply]

// A consumer written against the helper's types, unchanged but for the module name.
function render(chunk: Chunk): string {
  switch (chunk.type) {
    case 'text':
      return chunk.text
    case 'thinking':
      return chunk.metadata ? `[sealed] ${chunk.text}` : chunk.text
    case 'tool-batch':
      return chunk.calls.map((call) => call.name).join(', ')
    case 'error':
      return `${chunk.message} ${chunk.statusCode ?? ''}`
    case 'system':
      return `${label(chunk.kind)}: ${chunk.text}`
  }
}
function label(kind: SystemChunkKind): string {
  switch (kind) {
    case 'notice':
      return 'Notice'
    case 'model-changed':
      return 'Model'
    case 'config-reload':
      return 'Configuration'
    case 'cancelled':
      return 'Cancelled'
  }
}
const message: ChatMessage = { id: 'm', role: 'assistant', chunks: [] }
appendEventToChunks(message.chunks, { type: 'text-delta', delta: 'hi' })
const messages: ChatMessage[] = [message]
applySystemEvent(messages, { kind: 'notice', text: 'n' })
message.chunks.map(render)
