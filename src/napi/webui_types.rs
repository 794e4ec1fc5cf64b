//! The JavaScript shapes of the format adapters (the Qwen Code webui's and ACP v1's),
//! declared in Rust so that `napi build` generates their typings. The adapters read and
//! build these values directly (see `adapters.rs`); Rust never constructs these types.
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

/// The type of a ChatViewer transcript line.
#[napi(string_enum = "snake_case")]
pub enum ChatMessageDataType {
    User,
    Assistant,
    ToolCall,
}

/// A text part of a Qwen message.
#[napi(object)]
pub struct MessagePart {
    pub text: String,
}

/// A transcript line's message: Qwen `parts`, or Claude `content`.
#[napi(object)]
pub struct ChatMessageBody {
    /// `thinking` makes the row a thinking row.
    pub role: Option<String>,
    pub parts: Option<Vec<MessagePart>>,
    pub content: Option<String>,
}

/// One line of a ChatViewer transcript.
#[napi(object)]
pub struct ChatMessageData {
    pub uuid: String,
    /// An ISO date (local time without an offset), or milliseconds.
    #[napi(ts_type = "string | number")]
    pub timestamp: Value,
    pub r#type: ChatMessageDataType,
    pub message: Option<ChatMessageBody>,
    pub tool_call: Option<ToolCallData>,
}

// ─── ACP v1 session/update ──────────────────────────────────────────────────

/// A step of the agent's plan.
#[napi(object)]
pub struct PlanEntry {
    pub content: String,
    #[napi(ts_type = "'high' | 'medium' | 'low'")]
    pub priority: String,
    #[napi(ts_type = "'pending' | 'in_progress' | 'completed'")]
    pub status: String,
}

/// A slash command the agent offers.
#[napi(object)]
pub struct AvailableCommand {
    pub name: String,
    pub description: String,
    #[napi(ts_type = "unknown")]
    pub input: Option<Value>,
}

/// An ACP v1 `session/update`, discriminated by `sessionUpdate`.
#[napi(discriminant = "sessionUpdate", discriminant_case = "snake_case")]
pub enum SessionUpdate {
    UserMessageChunk {
        content: ContentBlock,
        /// Shared by the chunks of one message; a new id starts a new message.
        #[napi(ts_type = "string | null")]
        message_id: Option<String>,
    },
    AgentMessageChunk {
        content: ContentBlock,
        /// Shared by the chunks of one message; a new id starts a new message.
        #[napi(ts_type = "string | null")]
        message_id: Option<String>,
    },
    AgentThoughtChunk {
        content: ContentBlock,
        /// Shared by the chunks of one message; a new id starts a new message.
        #[napi(ts_type = "string | null")]
        message_id: Option<String>,
    },
    /// A new tool call.
    ToolCall {
        tool_call_id: String,
        title: String,
        kind: Option<ToolKind>,
        status: Option<ToolCallStatus>,
        content: Option<Vec<ToolCallContent>>,
        locations: Option<Vec<ToolCallLocation>>,
        #[napi(ts_type = "unknown")]
        raw_input: Option<Value>,
        #[napi(ts_type = "unknown")]
        raw_output: Option<Value>,
    },
    /// New values for the fields sent (absent or `null`: unchanged).
    ToolCallUpdate {
        tool_call_id: String,
        #[napi(ts_type = "string | null")]
        title: Option<String>,
        #[napi(ts_type = "ToolKind | null")]
        kind: Option<ToolKind>,
        #[napi(ts_type = "ToolCallStatus | null")]
        status: Option<ToolCallStatus>,
        #[napi(ts_type = "ToolCallContent[] | null")]
        content: Option<Vec<ToolCallContent>>,
        #[napi(ts_type = "ToolCallLocation[] | null")]
        locations: Option<Vec<ToolCallLocation>>,
        #[napi(ts_type = "unknown")]
        raw_input: Option<Value>,
        #[napi(ts_type = "unknown")]
        raw_output: Option<Value>,
    },
    Plan {
        entries: Vec<PlanEntry>,
    },
    AvailableCommandsUpdate {
        available_commands: Vec<AvailableCommand>,
    },
    CurrentModeUpdate {
        current_mode_id: String,
    },
    /// Session settings changed (not message content).
    ConfigOptionUpdate {
        #[napi(ts_type = "unknown[]")]
        config_options: Value,
    },
    /// The session's title or last activity changed (not message content).
    SessionInfoUpdate {
        #[napi(ts_type = "string | null")]
        title: Option<String>,
        #[napi(ts_type = "string | null")]
        updated_at: Option<String>,
    },
    /// Context window use and cost (not message content).
    UsageUpdate {
        used: f64,
        size: f64,
        #[napi(ts_type = "unknown")]
        cost: Option<Value>,
    },
}

/// The `session/update` notification's params.
#[napi(object)]
pub struct SessionNotification {
    pub session_id: String,
    pub update: SessionUpdate,
}
