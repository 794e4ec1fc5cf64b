//! The JavaScript shapes of the views (the webui's rows and tool calls, the webview
//! state, the timeline), declared in Rust so that `napi build` generates their typings.
//! The adapters read and build these values directly (see `adapters.rs`); Rust never
//! constructs these types.
#![allow(dead_code)]

use napi_derive::napi;
use serde_json::Value;

// ─── Adapter options ────────────────────────────────────────────────────────

/// Options of `adaptACPMessages` and `toUnifiedMessages`.
#[napi(object)]
pub struct AdaptOptions {
    /// Milliseconds since the epoch, used where the webui reads `Date.now()`.
    pub now: Option<f64>,
}

// ─── The webui's unified rows ───────────────────────────────────────────────

/// What a timeline row shows.
#[napi(string_enum = "snake_case")]
pub enum UnifiedMessageType {
    User,
    Assistant,
    ToolCall,
    Thinking,
    /// A system notice (from the chunk model).
    System,
    /// An error (from the chunk model).
    Error,
}

/// One row of the webui's chat timeline.
#[napi(object)]
pub struct UnifiedMessage {
    pub id: String,
    /// `adaptJSONLMessages` passes a transcript's own `type` through.
    pub r#type: UnifiedMessageType,
    /// Milliseconds since the epoch (`NaN` for a transcript line with an invalid date).
    pub timestamp: f64,
    pub content: Option<String>,
    pub tool_call: Option<ToolCallData>,
    /// No row of the sequence above: the timeline line starts here.
    pub is_first: bool,
    /// No row of the sequence below: the timeline line ends here.
    pub is_last: bool,
}

/// Where a tool call runs, as ACP names it.
#[napi(string_enum = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other,
}

/// How far a tool call has got.
#[napi(string_enum = "snake_case")]
pub enum ToolCallStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

/// A file a tool call works on.
#[napi(object)]
pub struct ToolCallLocation {
    pub path: String,
    #[napi(ts_type = "number | null")]
    pub line: Option<f64>,
}

/// A tool call as the webui renders it.
#[napi(object)]
pub struct ToolCallData {
    pub tool_call_id: String,
    /// A `ToolKind`, or a tool's own name (`bash`, `grep`, … from other sources).
    pub kind: String,
    #[napi(ts_type = "string | object")]
    pub title: Value,
    pub status: ToolCallStatus,
    #[napi(ts_type = "unknown")]
    pub raw_input: Option<Value>,
    pub content: Option<Vec<ToolCallContent>>,
    pub locations: Option<Vec<ToolCallLocation>>,
    #[napi(ts_type = "unknown")]
    pub raw_output: Option<Value>,
}

/// What a tool call produced, discriminated by `type`.
#[napi(discriminant = "type", discriminant_case = "lowercase")]
pub enum ToolCallContent {
    /// Ordinary content: text, an image, a resource …
    Content { content: ContentBlock },
    /// A file change; `oldText` is `null` or absent for a new file.
    Diff {
        path: String,
        #[napi(ts_type = "string | null")]
        old_text: Option<String>,
        new_text: String,
    },
    /// A terminal the client shows live.
    Terminal { terminal_id: String },
}

/// An ACP content block, discriminated by `type`.
#[napi(discriminant = "type", discriminant_case = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
        #[napi(ts_type = "unknown")]
        annotations: Option<Value>,
    },
    Image {
        data: String,
        mime_type: String,
        uri: Option<String>,
    },
    Audio {
        data: String,
        mime_type: String,
    },
    ResourceLink {
        uri: String,
        name: String,
        mime_type: Option<String>,
        title: Option<String>,
        description: Option<String>,
        size: Option<f64>,
    },
    Resource {
        resource: EmbeddedResourceContents,
    },
}

/// The contents of an embedded resource: `text` or base64 `blob`.
#[napi(object)]
pub struct EmbeddedResourceContents {
    pub uri: String,
    pub mime_type: Option<String>,
    pub text: Option<String>,
    pub blob: Option<String>,
}

// ─── The webview state (ACP) and the ChatViewer transcript ──────────────────

/// Who a webview text message is from (`thinking`: the agent's thoughts).
#[napi(string_enum = "lowercase")]
pub enum AcpMessageRole {
    User,
    Assistant,
    Thinking,
}

/// A webview text message.
#[napi(object)]
pub struct AcpMessageData {
    pub role: AcpMessageRole,
    pub content: String,
    pub timestamp: Option<f64>,
}

/// One entry of the vscode companion's webview state, discriminated by `type`.
#[napi(
    js_name = "ACPMessage",
    discriminant = "type",
    discriminant_case = "kebab-case"
)]
pub enum AcpMessage {
    Message { data: AcpMessageData },
    InProgressToolCall { data: ToolCallData },
    CompletedToolCall { data: ToolCallData },
}

// ─── The timeline view ──────────────────────────────────────────────────────

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
