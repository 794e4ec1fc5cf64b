//! The JavaScript shapes of the wire formats, declared in Rust so that `napi build`
//! generates their typings. The format functions move these values as JSON text (see
//! `json_bridge.rs`), so Rust never constructs these types.
#![allow(dead_code)]

use napi::bindgen_prelude::{Either4, Either6};
use napi_derive::napi;
use serde_json::Value;

// ── Pi / OpenClaw ────────────────────────────────────────────────────────────

/// A text block of a Pi message.
#[napi(object)]
pub struct PiTextContent {
    #[napi(ts_type = "'text'")]
    pub r#type: String,
    pub text: String,
}

/// An image block of a Pi message: read as a `file` chunk.
#[napi(object)]
pub struct PiImageContent {
    #[napi(ts_type = "'image'")]
    pub r#type: String,
    pub data: String,
    pub mime_type: String,
}

/// A thinking block; its signature seals the thinking chunk it becomes.
#[napi(object)]
pub struct PiThinkingContent {
    #[napi(ts_type = "'thinking'")]
    pub r#type: String,
    pub thinking: String,
    pub thinking_signature: Option<String>,
}

/// A tool call block.
#[napi(object)]
pub struct PiToolCallContent {
    #[napi(ts_type = "'toolCall'")]
    pub r#type: String,
    pub id: String,
    pub name: String,
    #[napi(ts_type = "unknown")]
    pub arguments: Value,
}

/// A user's message.
#[napi(object)]
pub struct PiUserMessage {
    #[napi(ts_type = "'user'")]
    pub role: String,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: Value,
    pub timestamp: Option<f64>,
}

/// One model response: its thinking, text and tool calls.
#[napi(object)]
pub struct PiAssistantMessage {
    #[napi(ts_type = "'assistant'")]
    pub role: String,
    #[napi(ts_type = "Array<PiTextContent | PiThinkingContent | PiToolCallContent | PiImageContent>")]
    pub content: Value,
    pub api: Option<String>,
    /// Names the provider of thinking signatures (`unknown` when absent).
    pub provider: Option<String>,
    pub model: Option<String>,
    #[napi(ts_type = "unknown")]
    pub usage: Option<Value>,
    /// `error` and `aborted` end the message with an `error` chunk.
    pub stop_reason: Option<String>,
    pub error_message: Option<String>,
    pub timestamp: Option<f64>,
}

/// The result of one tool call, a message of its own.
#[napi(object)]
pub struct PiToolResultMessage {
    #[napi(ts_type = "'toolResult'")]
    pub role: String,
    pub tool_call_id: String,
    pub tool_name: Option<String>,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: Value,
    #[napi(ts_type = "unknown")]
    pub details: Option<Value>,
    pub is_error: Option<bool>,
    pub timestamp: Option<f64>,
}

/// The user's own shell command (`!cmd`): read as a `user` message with one `bash` call.
#[napi(object)]
pub struct PiBashExecutionMessage {
    #[napi(ts_type = "'bashExecution'")]
    pub role: String,
    pub command: String,
    pub output: String,
    pub exit_code: Option<f64>,
    pub cancelled: bool,
    pub truncated: bool,
    pub full_output_path: Option<String>,
    pub exclude_from_context: Option<bool>,
    pub timestamp: Option<f64>,
}

/// A message an extension added (`hookMessage` before version 3): shown as a `custom`
/// system chunk when `display` is true.
#[napi(object)]
pub struct PiCustomMessage {
    #[napi(ts_type = "'custom' | 'hookMessage'")]
    pub role: String,
    pub custom_type: String,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: Value,
    pub display: bool,
    #[napi(ts_type = "unknown")]
    pub details: Option<Value>,
    pub timestamp: Option<f64>,
}

/// A summary message (`branchSummary` / `compactionSummary`): a system chunk.
#[napi(object)]
pub struct PiSummaryMessage {
    #[napi(ts_type = "'branchSummary' | 'compactionSummary'")]
    pub role: String,
    pub summary: String,
    pub from_id: Option<String>,
    pub tokens_before: Option<f64>,
    pub timestamp: Option<f64>,
}

/// A Pi message, discriminated by `role`.
#[napi]
pub type PiMessage = Either6<
    PiUserMessage,
    PiAssistantMessage,
    PiToolResultMessage,
    PiBashExecutionMessage,
    PiCustomMessage,
    PiSummaryMessage,
>;

/// An entry of a session file that is not a message (`model_change`,
/// `thinking_level_change`, `compaction`, `branch_summary`, `custom`, `custom_message`,
/// `label`, `session_info`); what each is read as is listed in docs/formats/pi.md.
#[napi(object)]
pub struct PiOtherEntry {
    #[napi(
        ts_type = "'model_change' | 'thinking_level_change' | 'compaction' | 'branch_summary' | 'custom' | 'custom_message' | 'label' | 'session_info'"
    )]
    pub r#type: String,
    pub id: Option<String>,
    #[napi(ts_type = "string | null")]
    pub parent_id: Option<Value>,
    pub timestamp: Option<String>,
    pub provider: Option<String>,
    pub model_id: Option<String>,
    pub thinking_level: Option<String>,
    pub summary: Option<String>,
    pub custom_type: Option<String>,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: Option<Value>,
    pub display: Option<bool>,
}

/// A leaf of a session's tree, as `pi.leaves` lists it.
#[napi(object)]
pub struct PiLeaf {
    /// The entry id; `pi.toMessages(history, { leaf: id })` reads its conversation.
    pub id: String,
    /// Entries on its path, itself included.
    pub depth: u32,
    /// The 1-based line of the entry.
    pub line: u32,
    /// The last entry of the file: the conversation pi shows.
    pub current: bool,
}

/// Options of `pi.toMessages`.
#[napi(object)]
pub struct PiReadOptions {
    /// The leaf to read (an entry id); default the last entry.
    pub leaf: Option<String>,
    /// Refuse unknown entry types, roles and content blocks instead of skipping them.
    pub strict: Option<bool>,
}

/// The first line of a versioned session file.
#[napi(object)]
pub struct PiSessionHeader {
    #[napi(ts_type = "'session'")]
    pub r#type: String,
    pub version: Option<f64>,
    pub id: Option<String>,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
}

/// A message entry of a versioned session file.
#[napi(object)]
pub struct PiMessageEntry {
    #[napi(ts_type = "'message'")]
    pub r#type: String,
    pub id: String,
    #[napi(ts_type = "string | null")]
    pub parent_id: Value,
    pub timestamp: Option<String>,
    pub message: PiMessage,
}

/// One line of a session file: a bare message, the header, a message entry or another
/// entry.
#[napi]
pub type PiSessionLine = Either4<PiMessage, PiSessionHeader, PiMessageEntry, PiOtherEntry>;

/// One event of the OpenClaw gateway's chat stream.
#[napi(discriminant = "type", discriminant_case = "kebab-case")]
pub enum PiGatewayEvent {
    /// Answer text → `text-delta`.
    Delta { text: String },
    /// Reasoning text → `reasoning-delta`.
    ThinkingDelta { text: String },
    /// The end of a thinking block → `reasoning-end` with `{ [provider]: { signature } }`
    /// (nothing without a signature).
    ThinkingEnd {
        signature: Option<String>,
        provider: Option<String>,
    },
    /// A tool call starts → `tool-call`.
    ToolStart {
        tool_call_id: String,
        name: String,
        #[napi(ts_type = "unknown")]
        args: Value,
    },
    /// A tool call ends → `tool-result` (`isError` false when absent).
    ToolEnd {
        tool_call_id: String,
        name: String,
        #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
        result: Value,
        is_error: Option<bool>,
    },
    /// The turn is complete → nothing.
    Final,
}

// ── Solar Network ────────────────────────────────────────────────────────────

/// What a part of a thought is.
#[napi]
pub enum ThinkingMessagePartType {
    Text = 0,
    FunctionCall = 1,
    FunctionResult = 2,
}

/// The names `ThinkingMessagePartType` values may also be given by.
#[napi(string_enum)]
pub enum ThinkingMessagePartTypeName {
    Text,
    FunctionCall,
    FunctionResult,
}

/// Who a thought is from.
#[napi]
pub enum SnThinkingRole {
    Assistant = 0,
    User = 1,
}

/// The names `SnThinkingRole` values may also be given by.
#[napi(string_enum)]
pub enum SnThinkingRoleName {
    Assistant,
    User,
}

/// A function call the assistant made.
#[napi(object)]
pub struct SnFunctionCall {
    pub id: String,
    pub name: String,
    /// The arguments as a JSON string (parsed when read, if it is valid JSON).
    pub arguments: String,
}

/// The result of a function call.
#[napi(object)]
pub struct SnFunctionResult {
    pub call_id: String,
    #[napi(ts_type = "unknown")]
    pub result: Value,
    pub is_error: bool,
}

/// `SnFunctionResult` as the gateway spells it.
#[napi(object, js_name = "SnGatewayFunctionResult")]
pub struct SnGatewayFunctionResult {
    #[napi(js_name = "call_id")]
    pub call_id: String,
    #[napi(ts_type = "unknown")]
    pub result: Value,
    #[napi(js_name = "is_error")]
    pub is_error: bool,
}

/// `SnFunctionCall` as the server's own `data:` frames spell it (.NET's default names).
#[napi(object, js_name = "SnServerFunctionCall")]
pub struct SnServerFunctionCall {
    #[napi(js_name = "Id")]
    pub id: String,
    #[napi(js_name = "Name")]
    pub name: String,
    /// The arguments as a JSON string (parsed when read, if it is valid JSON).
    #[napi(js_name = "Arguments")]
    pub arguments: String,
}

/// `SnFunctionResult` as the server's own `data:` frames spell it (.NET's default names).
#[napi(object, js_name = "SnServerFunctionResult")]
pub struct SnServerFunctionResult {
    #[napi(js_name = "CallId")]
    pub call_id: String,
    #[napi(js_name = "Result", ts_type = "unknown")]
    pub result: Value,
    #[napi(js_name = "IsError")]
    pub is_error: bool,
}

/// One part of a thought.
#[napi(object)]
pub struct SnThinkingMessagePart {
    #[napi(ts_type = "ThinkingMessagePartType | ThinkingMessagePartTypeName")]
    pub r#type: Value,
    pub text: Option<String>,
    pub function_call: Option<SnFunctionCall>,
    pub function_result: Option<SnFunctionResult>,
}

/// `SnThinkingMessagePart` as the gateway spells it.
#[napi(object)]
pub struct SnGatewayMessagePart {
    #[napi(ts_type = "ThinkingMessagePartType | ThinkingMessagePartTypeName")]
    pub r#type: Value,
    pub text: Option<String>,
    #[napi(js_name = "function_call")]
    pub function_call: Option<SnFunctionCall>,
    #[napi(js_name = "function_result")]
    pub function_result: Option<SnGatewayFunctionResult>,
}

/// A complete message (a "thought"). `sn.fromMessage` writes numeric enums.
#[napi(object)]
pub struct SnThinkingThought {
    pub id: String,
    pub parts: Vec<SnThinkingMessagePart>,
    #[napi(ts_type = "SnThinkingRole | SnThinkingRoleName")]
    pub role: Value,
    /// ISO 8601.
    pub created_at: Option<String>,
}

/// `SnThinkingThought` as the gateway spells it.
#[napi(object)]
pub struct SnGatewayThought {
    pub id: String,
    pub parts: Vec<SnGatewayMessagePart>,
    #[napi(ts_type = "SnThinkingRole | SnThinkingRoleName")]
    pub role: Value,
    #[napi(js_name = "created_at")]
    pub created_at: Option<String>,
}

/// One event of the SSE stream.
#[napi(discriminant = "type", discriminant_case = "snake_case")]
pub enum SnStreamEvent {
    /// Answer text → `text-delta`.
    Text { data: String },
    /// Progress while a call is being decided → nothing.
    FunctionCallUpdate {
        #[napi(ts_type = "unknown")]
        data: Value,
    },
    /// → `tool-call`.
    FunctionCall {
        #[napi(ts_type = "SnFunctionCall | SnServerFunctionCall")]
        data: Value,
    },
    /// → `tool-result`.
    FunctionResult {
        #[napi(ts_type = "SnFunctionResult | SnGatewayFunctionResult | SnServerFunctionResult")]
        data: Value,
    },
    /// The conversation's title → nothing.
    Topic { data: String },
    /// The persisted message, last (the server writes it as a `thought:` field of its own)
    /// → nothing; check it with `sn.reconcile`. A live `sn-stream` conversation ends the
    /// turn as it holds it.
    Thought {
        #[napi(ts_type = "SnThinkingThought | SnGatewayThought")]
        data: Value,
    },
}

/// Options of `sn.fromMessage`.
#[napi(object)]
pub struct SnFromMessageOptions {
    /// Written as `createdAt` (ISO 8601); left out when absent.
    pub created_at: Option<String>,
}

/// Where the streamed chunks and the persisted thought first differ.
#[napi(object)]
pub struct SnDifference {
    /// e.g. `chunks[1].calls[0].result`.
    pub path: String,
    /// What the stream built there (absent: nothing).
    #[napi(ts_type = "unknown")]
    pub streamed: Option<Value>,
    /// What the thought has there (absent: nothing).
    #[napi(ts_type = "unknown")]
    pub persisted: Option<Value>,
}

/// The outcome of `sn.reconcile`.
#[napi(object)]
pub struct SnReconciled {
    /// The persisted thought's message: it replaces the streamed one.
    #[napi(ts_type = "HistoryMessage")]
    pub message: Value,
    /// Absent when the stream built exactly the thought's chunks.
    pub difference: Option<SnDifference>,
}

// ── Timeline ─────────────────────────────────────────────────────────────────

/// A timeline item's status, derived from the chunks.
#[napi(string_enum = "lowercase")]
pub enum TimelineItemStatus {
    Pending,
    Running,
    Completed,
    Cancelled,
    Error,
}

/// A thinking chunk on the timeline.
#[napi(object)]
pub struct ReasoningItem {
    #[napi(ts_type = "'reasoning'")]
    pub kind: String,
    /// `reasoning-<chunk index>`.
    pub id: String,
    pub text: String,
    pub status: TimelineItemStatus,
}

/// A tool call on the timeline.
#[napi(object)]
pub struct ToolCallItem {
    #[napi(ts_type = "'tool-call'")]
    pub kind: String,
    /// The call's id.
    pub id: String,
    pub tool_name: String,
    /// The tool name; for a `task` call, its `args.subagent_type` title-cased, or `Task`.
    pub title: String,
    /// The call's `arguments`, the very value.
    #[napi(ts_type = "unknown")]
    pub args: Value,
    /// The call's `result`, the very value (`undefined` while there is none).
    #[napi(ts_type = "unknown")]
    pub result: Value,
    pub status: TimelineItemStatus,
    pub span_id: Option<String>,
}

/// One item of the timeline, discriminated by `kind`.
#[napi]
pub type TimelineItem = napi::bindgen_prelude::Either<ReasoningItem, ToolCallItem>;

/// A parent item and the items of its delegation span.
#[napi(object)]
pub struct TimelineGroup {
    pub parent: TimelineItem,
    pub children: Vec<TimelineItem>,
}

/// Options of `buildTimeline`.
#[napi(object)]
pub struct TimelineOptions {
    /// The message is complete: calls without a result are `cancelled`, reasoning is done.
    pub finished: Option<bool>,
}

/// A tool call entry that belongs to a delegation span.
#[napi(object)]
pub struct SpannedToolCallEntry {
    pub id: String,
    pub name: String,
    #[napi(ts_type = "unknown")]
    pub arguments: Value,
    #[napi(ts_type = "unknown")]
    pub result: Option<Value>,
    pub is_error: Option<bool>,
    /// Groups the call with the other items of its span (set by the caller or an adapter).
    pub span_id: Option<String>,
}

/// A tool batch whose calls may carry span ids.
#[napi(object)]
pub struct SpannedToolBatchChunk {
    #[napi(ts_type = "'tool-batch'")]
    pub r#type: String,
    pub calls: Vec<SpannedToolCallEntry>,
}
