//! The canonical types: agent events in, message chunks out.
//!
//! Both are generic over the text type `S` and the opaque payload type `V`, so that
//! the same rules run on Rust-owned data (`String`, `serde_json::Value`) and on values
//! that live elsewhere (JavaScript strings and objects, behind the Node binding).

use serde::{Deserialize, Serialize};

/// One event of an agent's stream, after its fields have been checked.
///
/// Payloads the rules never look into (`arguments`, `result`, `isError`, `metadata`) are
/// carried as `V` and stored as given.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent<S = String, V = serde_json::Value> {
    TextDelta {
        delta: S,
    },
    ReasoningDelta {
        delta: S,
    },
    /// `metadata: None` is an absent (`undefined`) metadata: the event does nothing.
    ReasoningEnd {
        metadata: Option<V>,
    },
    ToolCall {
        id: S,
        name: S,
        arguments: V,
    },
    ToolResult {
        tool_call_id: S,
        result: V,
        is_error: V,
    },
    ShellOutput {
        stream: ShellStream,
        data: S,
    },
    Error {
        error: S,
        status_code: Option<f64>,
    },
    Notice {
        message: S,
    },
    ModelChanged {
        model_id: S,
        key_id: S,
    },
    ConfigReload,
    /// A control event (`status`, `turn-start`, `done`, …): accepted, produces nothing.
    Lifecycle(LifecycleKind),
    /// A `type` this version does not know: ignored, for forward compatibility.
    Unknown,
}

impl<S, V> AgentEvent<S, V> {
    /// The same event with each payload (`arguments`, `result`, `isError`, `metadata`)
    /// converted by `f`.
    pub fn map_payloads<W>(self, mut f: impl FnMut(V) -> W) -> AgentEvent<S, W> {
        match self {
            AgentEvent::TextDelta { delta } => AgentEvent::TextDelta { delta },
            AgentEvent::ReasoningDelta { delta } => AgentEvent::ReasoningDelta { delta },
            AgentEvent::ReasoningEnd { metadata } => AgentEvent::ReasoningEnd {
                metadata: metadata.map(f),
            },
            AgentEvent::ToolCall { id, name, arguments } => AgentEvent::ToolCall {
                id,
                name,
                arguments: f(arguments),
            },
            AgentEvent::ToolResult {
                tool_call_id,
                result,
                is_error,
            } => AgentEvent::ToolResult {
                tool_call_id,
                result: f(result),
                is_error: f(is_error),
            },
            AgentEvent::ShellOutput { stream, data } => AgentEvent::ShellOutput { stream, data },
            AgentEvent::Error { error, status_code } => AgentEvent::Error { error, status_code },
            AgentEvent::Notice { message } => AgentEvent::Notice { message },
            AgentEvent::ModelChanged { model_id, key_id } => AgentEvent::ModelChanged { model_id, key_id },
            AgentEvent::ConfigReload => AgentEvent::ConfigReload,
            AgentEvent::Lifecycle(kind) => AgentEvent::Lifecycle(kind),
            AgentEvent::Unknown => AgentEvent::Unknown,
        }
    }
}

/// Which output stream a `shell-output` event appends to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellStream {
    Stdout,
    Stderr,
    /// Any other stream name: the helper appends nothing, but still rebuilds `shellOutput`.
    Other,
}

impl ShellStream {
    pub fn from_name(name: &str) -> Self {
        match name {
            "stdout" => ShellStream::Stdout,
            "stderr" => ShellStream::Stderr,
            _ => ShellStream::Other,
        }
    }
}

/// The lifecycle and control events: message content never comes from them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifecycleKind {
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

/// What an event's `type` string means, before any other field is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    TextDelta,
    ReasoningDelta,
    ReasoningEnd,
    ToolCall,
    ToolResult,
    ShellOutput,
    Error,
    Notice,
    ModelChanged,
    ConfigReload,
    Lifecycle(LifecycleKind),
    Unknown,
}

impl EventType {
    /// Every tag [`EventType::from_tag`] knows, each once.
    pub const TAGS: [&'static str; 23] = [
        "text-delta",
        "reasoning-delta",
        "reasoning-end",
        "tool-call",
        "tool-result",
        "shell-output",
        "error",
        "notice",
        "model-changed",
        "config-reload",
        "status",
        "turn-start",
        "turn-sealed",
        "done",
        "usage",
        "task-list-update",
        "tab-created",
        "message-queued",
        "message-consumed",
        "message-cancelled",
        "compaction-started",
        "compaction-complete",
        "compaction-error",
    ];

    /// Classifies an event `type` tag; unknown tags are [`EventType::Unknown`], never an error.
    pub fn from_tag(tag: &[u8]) -> Self {
        use LifecycleKind::*;
        match tag {
            b"text-delta" => EventType::TextDelta,
            b"reasoning-delta" => EventType::ReasoningDelta,
            b"reasoning-end" => EventType::ReasoningEnd,
            b"tool-call" => EventType::ToolCall,
            b"tool-result" => EventType::ToolResult,
            b"shell-output" => EventType::ShellOutput,
            b"error" => EventType::Error,
            b"notice" => EventType::Notice,
            b"model-changed" => EventType::ModelChanged,
            b"config-reload" => EventType::ConfigReload,
            b"status" => EventType::Lifecycle(Status),
            b"turn-start" => EventType::Lifecycle(TurnStart),
            b"turn-sealed" => EventType::Lifecycle(TurnSealed),
            b"done" => EventType::Lifecycle(Done),
            b"usage" => EventType::Lifecycle(Usage),
            b"task-list-update" => EventType::Lifecycle(TaskListUpdate),
            b"tab-created" => EventType::Lifecycle(TabCreated),
            b"message-queued" => EventType::Lifecycle(MessageQueued),
            b"message-consumed" => EventType::Lifecycle(MessageConsumed),
            b"message-cancelled" => EventType::Lifecycle(MessageCancelled),
            b"compaction-started" => EventType::Lifecycle(CompactionStarted),
            b"compaction-complete" => EventType::Lifecycle(CompactionComplete),
            b"compaction-error" => EventType::Lifecycle(CompactionError),
            _ => EventType::Unknown,
        }
    }
}

/// The kind of a `system` chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SystemChunkKind {
    Notice,
    ModelChanged,
    ConfigReload,
    Cancelled,
    /// Older messages were summarised to free the context (the summary is the text).
    Compaction,
    /// A summary of a conversation branch the user left.
    BranchSummary,
    /// The reasoning effort changed (`Thinking level: high`).
    ThinkingLevelChanged,
    /// A message an extension of the agent showed to the user.
    Custom,
    /// The agent's plan of work, each entry a line (`[completed] Write the tests (high)`).
    Plan,
    /// The agent stopped its turn before it was done: the text is the reason as the
    /// protocol names it (`max_tokens`, `max_turn_requests`, `refusal`, …).
    Stopped,
}

impl SystemChunkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SystemChunkKind::Notice => "notice",
            SystemChunkKind::ModelChanged => "model-changed",
            SystemChunkKind::ConfigReload => "config-reload",
            SystemChunkKind::Cancelled => "cancelled",
            SystemChunkKind::Compaction => "compaction",
            SystemChunkKind::BranchSummary => "branch-summary",
            SystemChunkKind::ThinkingLevelChanged => "thinking-level-changed",
            SystemChunkKind::Custom => "custom",
            SystemChunkKind::Plan => "plan",
            SystemChunkKind::Stopped => "stopped",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "notice" => SystemChunkKind::Notice,
            "model-changed" => SystemChunkKind::ModelChanged,
            "config-reload" => SystemChunkKind::ConfigReload,
            "cancelled" => SystemChunkKind::Cancelled,
            "compaction" => SystemChunkKind::Compaction,
            "branch-summary" => SystemChunkKind::BranchSummary,
            "thinking-level-changed" => SystemChunkKind::ThinkingLevelChanged,
            "custom" => SystemChunkKind::Custom,
            "plan" => SystemChunkKind::Plan,
            "stopped" => SystemChunkKind::Stopped,
            _ => return None,
        })
    }
}

/// Who a message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    User,
    Assistant,
    System,
}

/// Accumulated output of a shell tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShellOutput<S = String> {
    pub stdout: S,
    pub stderr: S,
}

/// One call inside a `tool-batch` chunk.
///
/// `result`/`isError` and `shellOutput` are serialized in the order they first arrived,
/// as a JavaScript object would list them.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallEntry<S = String, V = serde_json::Value> {
    pub id: S,
    pub name: S,
    pub arguments: V,
    /// `(result, isError)` once a `tool-result` landed on this call.
    pub result: Option<(V, V)>,
    pub shell_output: Option<ShellOutput<S>>,
    /// True when `shellOutput` was set before `result`.
    pub shell_output_first: bool,
    /// What the source format says of the call beyond its id, name, arguments and result
    /// (a dynamic tool, its title, provider execution and metadata), an object
    /// written after `arguments`. Made only by format readers: no agent event carries one.
    pub meta: Option<V>,
}

impl<S, V> ToolCallEntry<S, V> {
    pub fn new(id: S, name: S, arguments: V) -> Self {
        ToolCallEntry {
            id,
            name,
            arguments,
            result: None,
            shell_output: None,
            shell_output_first: false,
            meta: None,
        }
    }
}

/// One ordered piece of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk<S = String, V = serde_json::Value> {
    Text {
        text: S,
    },
    /// `metadata: Some(_)` marks the block as sealed.
    Thinking {
        text: S,
        metadata: Option<V>,
    },
    ToolBatch {
        calls: Vec<ToolCallEntry<S, V>>,
    },
    Error {
        message: S,
        status_code: Option<f64>,
    },
    System {
        kind: SystemChunkKind,
        text: S,
    },
    /// An image or other file a stored message holds, made only by format readers (the
    /// drop-in's events never carry one). `data` is base64 exactly as the source stored
    /// it; `url` a reference (http(s) or a `data:` URL) as stored.
    File {
        media_type: S,
        data: Option<S>,
        url: Option<S>,
        filename: Option<S>,
    },
}

impl<S, V> Chunk<S, V> {
    /// The calls of a tool batch; `None` for other chunks.
    pub fn calls(&self) -> Option<&[ToolCallEntry<S, V>]> {
        match self {
            Chunk::ToolBatch { calls } => Some(calls),
            _ => None,
        }
    }
}

/// A message: an id, a role and its chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage<S = String, V = serde_json::Value> {
    pub id: String,
    pub role: MessageRole,
    pub chunks: Vec<Chunk<S, V>>,
}

#[cfg(test)]
mod tests {
    use super::EventType;

    #[test]
    fn every_listed_tag_is_known_and_listed_once() {
        let mut seen = Vec::new();
        for tag in EventType::TAGS {
            let ty = EventType::from_tag(tag.as_bytes());
            assert_ne!(ty, EventType::Unknown, "{tag}");
            assert!(!seen.contains(&ty), "{tag} twice");
            seen.push(ty);
        }
    }
}
