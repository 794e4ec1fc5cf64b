//! The `pi` namespace: Pi / OpenClaw session files read as messages and written from them,
//! their leaves, pi's and OpenClaw's stream events as agent events; and their shapes, for
//! the typings. Each function reads the caller's value as JSON text, runs the format's
//! rules, and hands the result back through `JSON.parse`. Bad input is a `TypeError`
//! naming the line and path.

use napi::bindgen_prelude::{Either4, Either6, Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;
use serde_json::Value as JsonValue;

use crate::bytes::value::Json;
use crate::decode::ValueType;
use crate::formats::pi::session as pi;
use crate::reading::model_json::messages_from_json;

use super::super::json_bridge::{
    array_of, give, give_events, give_messages, history, object_of, within, Bridge, History, Value,
};
use super::super::raw::call::caught;

/// `options` of `pi.toMessages`: the leaf to read and whether to refuse unknown lines.
fn pi_options(b: &Bridge, value: Value) -> Result<pi::SessionOptions> {
    match b.value_type(value)? {
        ValueType::Undefined => return Ok(pi::SessionOptions::default()),
        ValueType::Object => {}
        got => return Err(b.type_error(format!("\"options\" must be an object, got {}", got.name()))),
    }
    let leaf = b.get(value, c"leaf")?;
    let leaf = match b.value_type(leaf)? {
        ValueType::Undefined => None,
        ValueType::String => Some(b.text(leaf)?.to_string_lossy().into_owned()),
        got => return Err(b.type_error(format!("\"options.leaf\" must be a string, got {}", got.name()))),
    };
    let strict = b.get(value, c"strict")?;
    let strict = match b.value_type(strict)? {
        ValueType::Undefined => false,
        ValueType::Boolean => b.truthy(strict)?,
        got => {
            return Err(b.type_error(format!(
                "\"options.strict\" must be a boolean, got {}",
                got.name()
            )))
        }
    };
    Ok(pi::SessionOptions {
        leaf,
        strict,
        ..pi::SessionOptions::default()
    })
}

/// Reads a Pi / OpenClaw session (v1–v3): JSONL text (a string or a Buffer: a session
/// file with its header and entries, or bare message lines) or its lines already parsed.
/// The conversation is the path from the root to the last entry, or to `options.leaf`
/// (`pi.leaves` lists them); each stored message is its own message (tool results land on
/// their calls). Unknown entry types, roles and blocks are skipped, or refused with
/// `options.strict`. Throws a `TypeError` naming the line and path of a malformed line,
/// or the line number of a truncated last line.
#[napi(
    namespace = "pi",
    js_name = "toMessages",
    ts_args_type = "history: string | Uint8Array | PiSessionLine[], options?: PiReadOptions",
    ts_return_type = "HistoryMessage[]"
)]
pub fn pi_to_messages(env: &Env, history_value: Unknown, options: Unknown) -> Result<Unknown<'static>> {
    caught("pi.toMessages", || {
        let b = Bridge::new(env, "pi.toMessages")?;
        let options = pi_options(&b, options.raw())?;
        let messages = match history(&b, history_value.raw(), "history", true)? {
            History::Text(text) => {
                let mut messages = Vec::new();
                pi::read_session_with(text.bytes(), options, |m| {
                    messages.push(m);
                    true
                })
                .map(|_| messages)
            }
            History::Items(lines) => pi::read_lines(lines, options),
        }
        .map_err(|e| b.type_error(e))?;
        give_messages(&b, env, &messages)
    })
}

/// The leaves of a Pi session's tree (entries no other entry continues), in file order;
/// the last entry of the file is the `current` one. Takes what `pi.toMessages` takes.
#[napi(
    namespace = "pi",
    js_name = "leaves",
    ts_args_type = "history: string | Uint8Array",
    ts_return_type = "PiLeaf[]"
)]
pub fn pi_leaves(env: &Env, history_value: Unknown) -> Result<Unknown<'static>> {
    caught("pi.leaves", || {
        let b = Bridge::new(env, "pi.leaves")?;
        let leaves = match history(&b, history_value.raw(), "history", true)? {
            History::Text(text) => pi::leaves(text.bytes()),
            History::Items(_) => {
                return Err(b.type_error("\"history\" must be a string or a Buffer, got array"))
            }
        }
        .map_err(|e| b.type_error(e))?;
        let json = Json::Array(
            leaves
                .into_iter()
                .map(|leaf| {
                    Json::object([
                        ("id", Json::string(leaf.id)),
                        ("depth", Json::Number(leaf.depth.to_string().into())),
                        ("line", Json::Number(leaf.line.to_string().into())),
                        ("current", Json::Bool(leaf.current)),
                    ])
                })
                .collect(),
        );
        give(&b, env, &json)
    })
}

/// Maps one gateway event to agent events for `appendEventToChunks`: `delta` →
/// `text-delta`, `thinking-delta` → `reasoning-delta`, `thinking-end` → `reasoning-end`,
/// `tool-start` → `tool-call`, `tool-end` → `tool-result`; `final` and unknown types →
/// none.
#[napi(
    namespace = "pi",
    js_name = "toAgentEvents",
    ts_args_type = "event: PiGatewayEvent",
    ts_return_type = "AgentContentEvent[]"
)]
pub fn pi_to_agent_events(env: &Env, event: Unknown) -> Result<Unknown<'static>> {
    caught("pi.toAgentEvents", || {
        let b = Bridge::new(env, "pi.toAgentEvents")?;
        let given = event.raw();
        let event = object_of(&b, given, "event")?;
        let events = pi::gateway_events(&event).map_err(|e| within(&b, "event", given, e))?;
        give_events(&b, env, &events)
    })
}

/// Writes messages as a Pi session file (JSONL): a version 3 header, then message
/// entries chained by `parentId`. `pi.toMessages` reads it back to the same messages.
#[napi(
    namespace = "pi",
    js_name = "fromMessages",
    ts_args_type = "messages: HistoryMessage[]",
    ts_return_type = "string"
)]
pub fn pi_from_messages(env: &Env, messages: Unknown) -> Result<Unknown<'static>> {
    caught("pi.fromMessages", || {
        let b = Bridge::new(env, "pi.fromMessages")?;
        let json = array_of(&b, messages.raw(), "messages")?;
        let messages = messages_from_json(&json, "messages").map_err(|e| b.type_error(e))?;
        let text = pi::write_session(&messages);
        // The writer escapes unpaired surrogates, so the text is UTF-8.
        let string = b.string(&crate::bytes::wtf8::Wtf8::from_wtf8_unchecked(text))?;
        Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), string) })
    })
}

// ─── Shapes ─────────────────────────────────────────────────────────────────

/// A text block of a Pi message.
#[allow(dead_code)]
#[napi(object)]
pub struct PiTextContent {
    #[napi(ts_type = "'text'")]
    pub r#type: String,
    pub text: String,
}

/// An image block of a Pi message: read as a `file` chunk.
#[allow(dead_code)]
#[napi(object)]
pub struct PiImageContent {
    #[napi(ts_type = "'image'")]
    pub r#type: String,
    pub data: String,
    pub mime_type: String,
}

/// A thinking block; its signature seals the thinking chunk it becomes.
#[allow(dead_code)]
#[napi(object)]
pub struct PiThinkingContent {
    #[napi(ts_type = "'thinking'")]
    pub r#type: String,
    pub thinking: String,
    pub thinking_signature: Option<String>,
}

/// A tool call block.
#[allow(dead_code)]
#[napi(object)]
pub struct PiToolCallContent {
    #[napi(ts_type = "'toolCall'")]
    pub r#type: String,
    pub id: String,
    pub name: String,
    #[napi(ts_type = "unknown")]
    pub arguments: JsonValue,
}

/// A user's message.
#[allow(dead_code)]
#[napi(object)]
pub struct PiUserMessage {
    #[napi(ts_type = "'user'")]
    pub role: String,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: JsonValue,
    pub timestamp: Option<f64>,
}

/// One model response: its thinking, text and tool calls.
#[allow(dead_code)]
#[napi(object)]
pub struct PiAssistantMessage {
    #[napi(ts_type = "'assistant'")]
    pub role: String,
    #[napi(ts_type = "Array<PiTextContent | PiThinkingContent | PiToolCallContent | PiImageContent>")]
    pub content: JsonValue,
    pub api: Option<String>,
    /// Names the provider of thinking signatures (`unknown` when absent).
    pub provider: Option<String>,
    pub model: Option<String>,
    #[napi(ts_type = "unknown")]
    pub usage: Option<JsonValue>,
    /// `error` and `aborted` end the message with an `error` chunk.
    pub stop_reason: Option<String>,
    pub error_message: Option<String>,
    pub timestamp: Option<f64>,
}

/// The result of one tool call, a message of its own.
#[allow(dead_code)]
#[napi(object)]
pub struct PiToolResultMessage {
    #[napi(ts_type = "'toolResult'")]
    pub role: String,
    pub tool_call_id: String,
    pub tool_name: Option<String>,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: JsonValue,
    #[napi(ts_type = "unknown")]
    pub details: Option<JsonValue>,
    pub is_error: Option<bool>,
    pub timestamp: Option<f64>,
}

/// The user's own shell command (`!cmd`): read as a `user` message with one `bash` call.
#[allow(dead_code)]
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
#[allow(dead_code)]
#[napi(object)]
pub struct PiCustomMessage {
    #[napi(ts_type = "'custom' | 'hookMessage'")]
    pub role: String,
    pub custom_type: String,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: JsonValue,
    pub display: bool,
    #[napi(ts_type = "unknown")]
    pub details: Option<JsonValue>,
    pub timestamp: Option<f64>,
}

/// A summary message (`branchSummary` / `compactionSummary`): a system chunk.
#[allow(dead_code)]
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
#[allow(dead_code)]
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
#[allow(dead_code)]
#[napi(object)]
pub struct PiOtherEntry {
    #[napi(
        ts_type = "'model_change' | 'thinking_level_change' | 'compaction' | 'branch_summary' | 'custom' | 'custom_message' | 'label' | 'session_info'"
    )]
    pub r#type: String,
    pub id: Option<String>,
    #[napi(ts_type = "string | null")]
    pub parent_id: Option<JsonValue>,
    pub timestamp: Option<String>,
    pub provider: Option<String>,
    pub model_id: Option<String>,
    pub thinking_level: Option<String>,
    pub summary: Option<String>,
    pub custom_type: Option<String>,
    #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
    pub content: Option<JsonValue>,
    pub display: Option<bool>,
}

/// A leaf of a session's tree, as `pi.leaves` lists it.
#[allow(dead_code)]
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
#[allow(dead_code)]
#[napi(object)]
pub struct PiReadOptions {
    /// The leaf to read (an entry id); default the last entry.
    pub leaf: Option<String>,
    /// Refuse unknown entry types, roles and content blocks instead of skipping them.
    pub strict: Option<bool>,
}

/// The first line of a versioned session file.
#[allow(dead_code)]
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
#[allow(dead_code)]
#[napi(object)]
pub struct PiMessageEntry {
    #[napi(ts_type = "'message'")]
    pub r#type: String,
    pub id: String,
    #[napi(ts_type = "string | null")]
    pub parent_id: JsonValue,
    pub timestamp: Option<String>,
    pub message: PiMessage,
}

/// One line of a session file: a bare message, the header, a message entry or another
/// entry.
#[allow(dead_code)]
#[napi]
pub type PiSessionLine = Either4<PiMessage, PiSessionHeader, PiMessageEntry, PiOtherEntry>;

/// One event of the OpenClaw gateway's chat stream.
#[allow(dead_code)]
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
        args: JsonValue,
    },
    /// A tool call ends → `tool-result` (`isError` false when absent).
    ToolEnd {
        tool_call_id: String,
        name: String,
        #[napi(ts_type = "string | Array<PiTextContent | PiImageContent>")]
        result: JsonValue,
        is_error: Option<bool>,
    },
    /// The turn is complete → nothing.
    Final,
}

// ── Solar Network ────────────────────────────────────────────────────────────
