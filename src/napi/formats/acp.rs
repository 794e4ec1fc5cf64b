//! The `acp` namespace: ACP v1 `session/update` notifications as agent events, as the
//! webview state, and folded into messages; and their shapes, for the typings.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;
use serde_json::Value;

use crate::formats::acp::fold;
use crate::formats::acp::updates as acp;
use crate::history::HistoryFormat;
use crate::reading::source::{Reader, Source, Step};

use super::super::raw::call::caught;
use super::super::transcripts::read_transcript;
use super::super::views::adapters::run_adapter;
use super::super::views::render;
use super::super::views::source::JsSource;
use super::super::views::types::{ContentBlock, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind};

/// The agent events one ACP `session/update` stands for, ready for `appendEventToChunks`:
/// agent text → `text-delta`, thoughts → `reasoning-delta`, `tool_call` → `tool-call`,
/// a call reaching `completed` / `failed` → `tool-result`. Every other update (user text,
/// plans, commands, modes, variants added later) → `[]`.
#[napi(
    namespace = "acp",
    js_name = "toAgentEvents",
    ts_args_type = "update: SessionNotification | SessionUpdate",
    ts_return_type = "Array<Extract<AgentContentEvent, { type: 'text-delta' | 'reasoning-delta' | 'tool-call' | 'tool-result' }>>"
)]
pub fn to_agent_events(env: &Env, update: Unknown) -> Result<Unknown<'static>> {
    run_adapter(env, "acp.toAgentEvents", |js| {
        let source = JsSource { js };
        let reader = Reader {
            source: &source,
            root: "update",
        };
        let update = acp::read_update(&reader, update.raw(), &[])?;
        Ok(render::events(js, &acp::to_agent_events(&update))?)
    })
}

/// The webview state (`ACPMessage[]`) after a recorded stream of ACP `session/update`s:
/// consecutive text of one role as one message (thoughts as `thinking`), each tool call
/// one entry that `tool_call_update`s replace field by field (`content` and `locations`
/// whole); an update before its call creates the entry.
#[napi(
    namespace = "acp",
    js_name = "toWebviewMessages",
    ts_args_type = "updates: Array<SessionNotification | SessionUpdate>",
    ts_return_type = "ACPMessage[]"
)]
pub fn to_webview_messages(env: &Env, updates: Unknown) -> Result<Unknown<'static>> {
    run_adapter(env, "acp.toWebviewMessages", |js| {
        let source = JsSource { js };
        let reader = Reader {
            source: &source,
            root: "updates",
        };
        let (updates, count) = reader.array(updates.raw(), &[])?;
        let mut decoded = Vec::with_capacity(count);
        for index in 0..count {
            let update = source.element(updates, index)?;
            decoded.push(acp::read_update(&reader, update, &[Step::Index(index)])?);
        }
        let messages = acp::webview_messages(&decoded, |id| source.units(id))?;
        Ok(render::webview(js, &messages)?)
    })
}

/// Folds ACP `session/update` notifications (a recording, or all a client received so
/// far) into messages as an ACP client shows them: a new `messageId` starts a new
/// message, a tool call is one entry named by its `title` and kept as its latest updates
/// say, a `plan` is a `plan` system chunk where it came. `loadHistory(…, 'acp')` reads
/// files by the same rules.
#[napi(
    namespace = "acp",
    js_name = "toMessages",
    ts_args_type = "history: string | Uint8Array | Array<SessionNotification | SessionUpdate>",
    ts_return_type = "HistoryMessage[]"
)]
pub fn acp_to_messages(env: &Env, history: Unknown) -> Result<Unknown<'static>> {
    caught("acp.toMessages", || {
        read_transcript(env, "acp.toMessages", history, HistoryFormat::Acp, |items| {
            fold::to_messages(items).map_err(|e| format!("history{e}"))
        })
    })
}

// ─── ACP v1 session/update ──────────────────────────────────────────────────

/// A step of the agent's plan.
#[allow(dead_code)]
#[napi(object)]
pub struct PlanEntry {
    pub content: String,
    #[napi(ts_type = "'high' | 'medium' | 'low'")]
    pub priority: String,
    #[napi(ts_type = "'pending' | 'in_progress' | 'completed'")]
    pub status: String,
}

/// A slash command the agent offers.
#[allow(dead_code)]
#[napi(object)]
pub struct AvailableCommand {
    pub name: String,
    pub description: String,
    #[napi(ts_type = "unknown")]
    pub input: Option<Value>,
}

/// An ACP v1 `session/update`, discriminated by `sessionUpdate`.
#[allow(dead_code)]
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
#[allow(dead_code)]
#[napi(object)]
pub struct SessionNotification {
    pub session_id: String,
    pub update: SessionUpdate,
}
