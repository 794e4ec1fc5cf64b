//! The JavaScript-facing shapes, declared in Rust so that `napi build` generates
//! `index.d.ts` from them. They describe the values the drop-in reads and writes; the
//! hot paths in `entry.rs` work on those values directly rather than converting them, so
//! Rust never constructs most of these types.
#![allow(dead_code)]

use std::collections::HashMap;

use napi::bindgen_prelude::{Either5, Either6, Env, Result, Status, Unknown};
use napi::JsValue;
use napi_derive::napi;
use serde_json::Value;

use super::raw::call;
use super::raw::entry;

/// Provider-specific data attached to a thinking block when it ends, keyed by provider,
/// e.g. `{ anthropic: { signature } }`. Its presence seals the block.
#[napi]
pub type ProviderMetadata = HashMap<String, HashMap<String, Unknown<'static>>>;

/// The kind of a `system` chunk the drop-in makes: exactly the helper's four.
#[napi(string_enum = "kebab-case")]
pub enum SystemChunkKind {
    Notice,
    ModelChanged,
    ConfigReload,
    Cancelled,
}

/// The kind of a `system` chunk in a message read from a history or a recorded stream:
/// the drop-in's four and the notices other tools store.
#[napi(string_enum = "kebab-case")]
pub enum HistorySystemChunkKind {
    Notice,
    ModelChanged,
    ConfigReload,
    Cancelled,
    /// Older messages were summarised to free the context; the text is the summary.
    Compaction,
    /// A summary of a conversation branch the user left.
    BranchSummary,
    /// The reasoning effort changed.
    ThinkingLevelChanged,
    /// A message an extension of the agent showed to the user.
    Custom,
    /// The agent's plan of work, one entry a line.
    Plan,
    /// The agent stopped its turn before it was done; the text is the reason
    /// (`max_tokens`, `max_turn_requests`, `refusal`, …).
    Stopped,
}

/// Who a message is from.
#[napi(string_enum = "lowercase")]
pub enum MessageRole {
    User,
    Assistant,
    System,
}

/// The output stream a `shell-output` event belongs to.
#[napi(string_enum = "lowercase")]
pub enum ShellStreamName {
    Stdout,
    Stderr,
}

/// The lifecycle and control event types: accepted, and they produce nothing.
#[napi(string_enum = "kebab-case")]
pub enum LifecycleEventType {
    Status,
    TurnStart,
    TurnSealed,
    Done,
    Usage,
    TaskListUpdate,
    TabCreated,
    MessageQueued,
    MessageConsumed,
    MessageCancelled,
    CompactionStarted,
    CompactionComplete,
    CompactionError,
}

/// The tool call carried by a `tool-call` event.
#[napi(object)]
pub struct ToolCallPayload {
    pub id: String,
    pub name: String,
    /// Stored by reference, whatever it is.
    #[napi(ts_type = "unknown")]
    pub arguments: Value,
}

/// The result carried by a `tool-result` event.
#[napi(object)]
pub struct ToolResultPayload {
    pub tool_call_id: String,
    /// Stored by reference, whatever it is (`undefined` included).
    #[napi(ts_type = "unknown")]
    pub result: Value,
    pub is_error: bool,
}

/// The events that shape a message's chunks.
#[napi(discriminant = "type", discriminant_case = "kebab-case")]
pub enum AgentContentEvent {
    /// Extends the last `text` chunk, or opens one.
    TextDelta { delta: String },
    /// Extends the last unsealed `thinking` chunk, or opens one.
    ReasoningDelta { delta: String },
    /// Seals the newest `thinking` chunk with `metadata` (nothing when it is absent).
    ReasoningEnd {
        #[napi(ts_type = "ProviderMetadata")]
        metadata: Option<Value>,
    },
    /// Joins the last `tool-batch` chunk, or opens one.
    ToolCall { tool_call: ToolCallPayload },
    /// Lands on the newest call with `toolResult.toolCallId`.
    ToolResult { tool_result: ToolResultPayload },
    /// Appends to the newest batch's last call's `shellOutput`.
    ShellOutput { stream: ShellStreamName, data: String },
    /// Always a new `error` chunk.
    Error { error: String, status_code: Option<f64> },
    /// Always a new `system` chunk of kind `notice`.
    Notice { message: String },
    /// Always a new `system` chunk: `Switched to ${modelId} (${keyId})`.
    ModelChanged { model_id: String, key_id: String },
    /// Always a new `system` chunk: `Configuration reloaded`.
    ConfigReload,
}

/// Output of a shell tool call so far.
#[napi(object)]
pub struct ShellOutput {
    pub stdout: String,
    pub stderr: String,
}

/// One call of a `tool-batch` chunk.
#[napi(object)]
pub struct ToolCallEntry {
    pub id: String,
    pub name: String,
    #[napi(ts_type = "unknown")]
    pub arguments: Value,
    #[napi(ts_type = "unknown")]
    pub result: Option<Value>,
    pub is_error: Option<bool>,
    pub shell_output: Option<ShellOutput>,
}

/// One call of a `tool-batch` chunk read from a history or a recorded stream: a
/// `ToolCallEntry`, and what the source format says of the call beyond it.
#[napi(object)]
pub struct HistoryToolCallEntry {
    pub id: String,
    pub name: String,
    #[napi(ts_type = "unknown")]
    pub arguments: Value,
    #[napi(ts_type = "unknown")]
    pub result: Option<Value>,
    pub is_error: Option<bool>,
    pub shell_output: Option<ShellOutput>,
    /// The AI SDK's `dynamic`, `title`, `providerExecuted`, `toolMetadata`,
    /// `callProviderMetadata` and `resultProviderMetadata`. Only format readers make it.
    #[napi(ts_type = "Record<string, unknown>")]
    pub meta: Option<Value>,
}

/// Streamed answer text.
#[napi(object)]
pub struct TextChunk {
    #[napi(ts_type = "'text'")]
    pub r#type: String,
    pub text: String,
}

/// Streamed reasoning; `metadata` present means the block is sealed.
#[napi(object)]
pub struct ThinkingChunk {
    #[napi(ts_type = "'thinking'")]
    pub r#type: String,
    pub text: String,
    #[napi(ts_type = "ProviderMetadata")]
    pub metadata: Option<Value>,
}

/// Consecutive tool calls.
#[napi(object)]
pub struct ToolBatchChunk {
    #[napi(ts_type = "'tool-batch'")]
    pub r#type: String,
    pub calls: Vec<ToolCallEntry>,
}

/// Consecutive tool calls in a message read from a history or a recorded stream.
#[napi(object)]
pub struct HistoryToolBatchChunk {
    #[napi(ts_type = "'tool-batch'")]
    pub r#type: String,
    pub calls: Vec<HistoryToolCallEntry>,
}

/// An error reported by the agent or its provider.
#[napi(object)]
pub struct ErrorChunk {
    #[napi(ts_type = "'error'")]
    pub r#type: String,
    pub message: String,
    pub status_code: Option<f64>,
}

/// A notice from the system (model switch, configuration reload, cancellation).
#[napi(object)]
pub struct SystemChunk {
    #[napi(ts_type = "'system'")]
    pub r#type: String,
    pub kind: SystemChunkKind,
    pub text: String,
}

/// A notice from the system in a message read from a history: a compaction summary, a
/// plan, a change of reasoning effort … as well as the drop-in's kinds.
#[napi(object)]
pub struct HistorySystemChunk {
    #[napi(ts_type = "'system'")]
    pub r#type: String,
    pub kind: HistorySystemChunkKind,
    pub text: String,
}

/// An image or other file a stored message holds. Only history readers and live-stream
/// folds of formats that carry files make it; the drop-in's events never do.
#[napi(object)]
pub struct FileChunk {
    #[napi(ts_type = "'file'")]
    pub r#type: String,
    /// The MIME type, e.g. `image/png`.
    pub media_type: String,
    /// The content, base64 exactly as the source stored it.
    pub data: Option<String>,
    /// A reference to the content (an http(s) or `data:` URL) as the source stored it.
    pub url: Option<String>,
    pub filename: Option<String>,
}

/// One ordered piece of a message, discriminated by `type`: the five chunks the drop-in
/// (`appendEventToChunks`, `applySystemEvent`, `ChunkStream`, `reduceEvents`) makes,
/// exactly the helper's union, so code written against the helper's types compiles
/// unchanged, an exhaustive `switch` included.
#[napi]
pub type Chunk = Either5<TextChunk, ThinkingChunk, ToolBatchChunk, ErrorChunk, SystemChunk>;

/// One ordered piece of a message read from a history or folded from a recorded stream:
/// a `Chunk`, a `system` chunk of any kind other tools store, or a `file`.
#[napi]
pub type HistoryChunk =
    Either6<TextChunk, ThinkingChunk, HistoryToolBatchChunk, ErrorChunk, HistorySystemChunk, FileChunk>;

/// A chat message as the helper's callers store it.
#[napi(object)]
pub struct ChatMessage {
    pub id: String,
    pub role: MessageRole,
    pub chunks: Vec<Chunk>,
}

/// A message read from a history or folded from a recorded stream: a `ChatMessage` whose
/// chunks may also be files and other tools' notices. A `ChatMessage` is one too.
#[napi(object)]
pub struct HistoryMessage {
    pub id: String,
    pub role: MessageRole,
    pub chunks: Vec<HistoryChunk>,
}

/// The least a message needs for `applySystemEvent`; callers' own message types extend it.
#[napi(object)]
pub struct IdentifiedMessage {
    pub id: String,
    pub role: MessageRole,
    pub chunks: Vec<Chunk>,
}

/// A system notice in the caller's terms: its kind and its (formatted, localised) text.
#[napi(object)]
pub struct SystemEventLike {
    pub kind: SystemChunkKind,
    pub text: String,
}

/// `None` from `entry::with_state` means the exception is already thrown.
fn pending() -> napi::Error {
    napi::Error::new(Status::PendingException, "exception pending")
}

/// Folds one agent event into `chunks`, in place: extends the last chunk or pushes a new
/// one, as the open/close rules say. Existing chunk objects are kept; payloads are stored
/// by reference. Throws a `TypeError` naming the field, leaving `chunks` untouched, when
/// the event is malformed.
// `install` replaces this export with a raw callback of the same behaviour (see
// `entry.rs`); this wrapper gives the typings and the loader their signature.
#[napi(
    js_name = "appendEventToChunks",
    ts_args_type = "chunks: HistoryChunk[], event: AgentEvent"
)]
pub fn append_event_to_chunks(env: &Env, chunks: Unknown, event: Unknown) -> Result<()> {
    let outcome = unsafe {
        call::with_state(env.raw(), entry::APPEND, |js| {
            entry::append(js, chunks.raw(), event.raw(), None)?;
            js.undefined()
        })
    };
    outcome.map(|_| ()).ok_or_else(pending)
}

/// Routes a system notice: into the newest message when it is a `system` message, else
/// into a new `system` message whose id comes from `idFactory` (called once, only then;
/// default: a random v4 UUID). Returns the id of the message used.
// Replaced by a raw callback at load, as `appendEventToChunks` is.
#[napi(
    js_name = "applySystemEvent",
    ts_generic_types = "M extends HistoryMessage",
    ts_args_type = "messages: M[], event: SystemEventLike, idFactory?: () => string",
    ts_return_type = "{ messageId: string }"
)]
pub fn apply_system_event(
    env: &Env,
    messages: Unknown,
    event: Unknown,
    id_factory: Unknown,
) -> Result<Unknown<'static>> {
    let outcome = unsafe {
        call::with_state(env.raw(), entry::APPLY, |js| {
            entry::apply(js, messages.raw(), event.raw(), id_factory.raw())
        })
    };
    let value = outcome.ok_or_else(pending)?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

/// A conversation's state beyond its messages (`Conversation.resume`): plain JSON, to
/// keep next to the messages it goes with. Only `pending` and `skipped` are for the
/// application; the rest is the format's and the UI writer's, read back as written.
#[allow(dead_code)]
#[napi(object)]
pub struct ConversationResume {
    /// The layout's version (1).
    pub version: u32,
    #[napi(ts_type = "FormatName")]
    pub format: String,
    /// The line number the next value pushed gets.
    pub line: u32,
    /// How many messages it goes with.
    pub messages: u32,
    /// The last message still takes what the stream adds.
    pub open: bool,
    /// Bytes pushed after the last whole frame, not in this state: push them again.
    pub pending: u32,
    /// The last byte pushed was the CR of a CRLF line break: an LF pushed next completes
    /// it. Absent: it was not.
    pub cr: Option<bool>,
    /// What the format's fold remembers.
    #[napi(ts_type = "unknown")]
    pub fold: serde_json::Value,
    /// What was skipped so far (as `skipped` reports it): a conversation gone on from the
    /// state counts what reading the whole recording counts. Absent: nothing.
    #[napi(ts_type = "SkippedLines")]
    pub skipped: Option<serde_json::Value>,
    /// What `toUIMessageChunks` / `toUIMessageStream` wrote so far: a conversation gone on
    /// from the state writes only what is new. Absent: nothing.
    #[napi(ts_type = "unknown")]
    pub ui: Option<serde_json::Value>,
}
