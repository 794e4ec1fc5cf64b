//! The `sn` namespace: Solar Network thoughts read as messages and written from them,
//! their stream events as agent events, and a streamed message reconciled with its
//! thought; and their shapes, for the typings.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;
use serde_json::Value as JsonValue;

use crate::bytes::value::{self, Json};
use crate::decode::ValueType;
use crate::formats::sn::thought as sn;
use crate::reading::model_json::message_json;

use super::super::json_bridge::{
    array_of, give, give_events, give_messages, history, object_of, within, Bridge, History,
};
use super::super::raw::call::caught;

/// Reads one `SnThinkingThought` (camelCase or the gateway's snake_case; numeric or
/// named part types and roles) as a message.
#[napi(
    namespace = "sn",
    js_name = "toMessage",
    ts_args_type = "thought: SnThinkingThought | SnGatewayThought",
    ts_return_type = "HistoryMessage"
)]
pub fn sn_to_message(env: &Env, thought: Unknown) -> Result<Unknown<'static>> {
    caught("sn.toMessage", || {
        let b = Bridge::new(env, "sn.toMessage")?;
        let given = thought.raw();
        let thought = object_of(&b, given, "thought")?;
        let message = sn::read_thought(&thought).map_err(|e| within(&b, "thought", given, e))?;
        give(&b, env, &message_json(&message))
    })
}

/// Reads many thoughts at once: a JSON array as a string or Buffer, or the array itself.
#[napi(
    namespace = "sn",
    js_name = "toMessages",
    ts_args_type = "thoughts: string | Uint8Array | Array<SnThinkingThought | SnGatewayThought>",
    ts_return_type = "HistoryMessage[]"
)]
pub fn sn_to_messages(env: &Env, thoughts: Unknown) -> Result<Unknown<'static>> {
    caught("sn.toMessages", || {
        let b = Bridge::new(env, "sn.toMessages")?;
        let items = match history(&b, thoughts.raw(), "thoughts", false)? {
            History::Items(items) => items,
            History::Text(text) => match value::parse(text.bytes()) {
                Ok(Json::Array(items)) => items,
                Ok(other) => {
                    return Err(b.type_error(format!("must be a JSON array, got {}", other.kind().name())))
                }
                Err(e) => return Err(b.type_error(e)),
            },
        };
        let messages = items
            .iter()
            .enumerate()
            .map(|(i, thought)| {
                sn::read_thought(thought).map_err(|e| match b.element(thoughts.raw(), i) {
                    Ok(given) => within(&b, &format!("thoughts[{i}]"), given, e),
                    Err(error) => error,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        give_messages(&b, env, &messages)
    })
}

/// Writes a message as an `SnThinkingThought` (camelCase, numeric enums).
/// `sn.toMessage` reads it back to the same message.
#[napi(
    namespace = "sn",
    js_name = "fromMessage",
    ts_args_type = "message: HistoryMessage, options?: SnFromMessageOptions",
    ts_return_type = "SnThinkingThought"
)]
pub fn sn_from_message(env: &Env, message: Unknown, options: Unknown) -> Result<Unknown<'static>> {
    caught("sn.fromMessage", || {
        let b = Bridge::new(env, "sn.fromMessage")?;
        let given = message.raw();
        let json = object_of(&b, given, "message")?;
        let message =
            crate::reading::model_json::message_from_json(&json, "message").map_err(|e| b.type_error(e))?;
        let created_at = match b.value_type(options.raw())? {
            ValueType::Undefined => None,
            ValueType::Object => {
                let at = b.get(options.raw(), c"createdAt")?;
                match b.value_type(at)? {
                    ValueType::Undefined => None,
                    ValueType::String => Some(b.text(at)?),
                    got => {
                        return Err(b.type_error(format!(
                            "\"options.createdAt\" must be a string, got {}",
                            got.name()
                        )))
                    }
                }
            }
            got => return Err(b.type_error(format!("\"options\" must be an object, got {}", got.name()))),
        };
        let thought =
            sn::write_thought(&message, created_at.as_ref()).map_err(|e| within(&b, "message", given, e))?;
        give(&b, env, &thought)
    })
}

/// Maps one SSE event `{ type, data }` to agent events: `text` → `text-delta`,
/// `function_call` → `tool-call`, `function_result` → `tool-result`; `topic`,
/// `function_call_update`, `thought` and unknown types → none.
#[napi(
    namespace = "sn",
    js_name = "toAgentEvents",
    ts_args_type = "event: SnStreamEvent",
    ts_return_type = "AgentContentEvent[]"
)]
pub fn sn_to_agent_events(env: &Env, event: Unknown) -> Result<Unknown<'static>> {
    caught("sn.toAgentEvents", || {
        let b = Bridge::new(env, "sn.toAgentEvents")?;
        let given = event.raw();
        let event = object_of(&b, given, "event")?;
        let events = sn::stream_events(&event).map_err(|e| within(&b, "event", given, e))?;
        give_events(&b, env, &events)
    })
}

/// Checks the stream's final `thought` against the chunks the stream built. Returns the
/// thought's message (which replaces the streamed one) and, when they disagree, the first
/// difference by path.
#[napi(
    namespace = "sn",
    js_name = "reconcile",
    ts_args_type = "chunks: HistoryChunk[], thought: SnThinkingThought | SnGatewayThought",
    ts_return_type = "SnReconciled"
)]
pub fn sn_reconcile(env: &Env, chunks: Unknown, thought: Unknown) -> Result<Unknown<'static>> {
    caught("sn.reconcile", || {
        let b = Bridge::new(env, "sn.reconcile")?;
        let Json::Array(streamed) = array_of(&b, chunks.raw(), "chunks")? else {
            return Err(b.type_error("\"chunks\" must be an array"));
        };
        let given = thought.raw();
        let thought = object_of(&b, given, "thought")?;
        let (message, difference) =
            sn::reconcile(&streamed, &thought).map_err(|e| within(&b, "thought", given, e))?;
        let mut fields = vec![("message".into(), message_json(&message))];
        if let Some(difference) = difference {
            let mut detail = vec![("path".into(), Json::string(difference.path))];
            detail.extend(difference.streamed.map(|v| ("streamed".into(), v)));
            detail.extend(difference.persisted.map(|v| ("persisted".into(), v)));
            fields.push(("difference".into(), Json::Object(detail)));
        }
        give(&b, env, &Json::Object(fields))
    })
}

// ─── Shapes ─────────────────────────────────────────────────────────────────

/// What a part of a thought is.
#[allow(dead_code)]
#[napi]
pub enum ThinkingMessagePartType {
    Text = 0,
    FunctionCall = 1,
    FunctionResult = 2,
}

/// The names `ThinkingMessagePartType` values may also be given by.
#[allow(dead_code)]
#[napi(string_enum)]
pub enum ThinkingMessagePartTypeName {
    Text,
    FunctionCall,
    FunctionResult,
}

/// Who a thought is from.
#[allow(dead_code)]
#[napi]
pub enum SnThinkingRole {
    Assistant = 0,
    User = 1,
}

/// The names `SnThinkingRole` values may also be given by.
#[allow(dead_code)]
#[napi(string_enum)]
pub enum SnThinkingRoleName {
    Assistant,
    User,
}

/// A function call the assistant made.
#[allow(dead_code)]
#[napi(object)]
pub struct SnFunctionCall {
    pub id: String,
    pub name: String,
    /// The arguments as a JSON string (parsed when read, if it is valid JSON).
    pub arguments: String,
}

/// The result of a function call.
#[allow(dead_code)]
#[napi(object)]
pub struct SnFunctionResult {
    pub call_id: String,
    #[napi(ts_type = "unknown")]
    pub result: JsonValue,
    pub is_error: bool,
}

/// `SnFunctionResult` as the gateway spells it.
#[allow(dead_code)]
#[napi(object, js_name = "SnGatewayFunctionResult")]
pub struct SnGatewayFunctionResult {
    #[napi(js_name = "call_id")]
    pub call_id: String,
    #[napi(ts_type = "unknown")]
    pub result: JsonValue,
    #[napi(js_name = "is_error")]
    pub is_error: bool,
}

/// `SnFunctionCall` as the server's own `data:` frames spell it (.NET's default names).
#[allow(dead_code)]
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
#[allow(dead_code)]
#[napi(object, js_name = "SnServerFunctionResult")]
pub struct SnServerFunctionResult {
    #[napi(js_name = "CallId")]
    pub call_id: String,
    #[napi(js_name = "Result", ts_type = "unknown")]
    pub result: JsonValue,
    #[napi(js_name = "IsError")]
    pub is_error: bool,
}

/// One part of a thought.
#[allow(dead_code)]
#[napi(object)]
pub struct SnThinkingMessagePart {
    #[napi(ts_type = "ThinkingMessagePartType | ThinkingMessagePartTypeName")]
    pub r#type: JsonValue,
    pub text: Option<String>,
    pub function_call: Option<SnFunctionCall>,
    pub function_result: Option<SnFunctionResult>,
}

/// `SnThinkingMessagePart` as the gateway spells it.
#[allow(dead_code)]
#[napi(object)]
pub struct SnGatewayMessagePart {
    #[napi(ts_type = "ThinkingMessagePartType | ThinkingMessagePartTypeName")]
    pub r#type: JsonValue,
    pub text: Option<String>,
    #[napi(js_name = "function_call")]
    pub function_call: Option<SnFunctionCall>,
    #[napi(js_name = "function_result")]
    pub function_result: Option<SnGatewayFunctionResult>,
}

/// A complete message (a "thought"). `sn.fromMessage` writes numeric enums.
#[allow(dead_code)]
#[napi(object)]
pub struct SnThinkingThought {
    pub id: String,
    pub parts: Vec<SnThinkingMessagePart>,
    #[napi(ts_type = "SnThinkingRole | SnThinkingRoleName")]
    pub role: JsonValue,
    /// ISO 8601.
    pub created_at: Option<String>,
}

/// `SnThinkingThought` as the gateway spells it.
#[allow(dead_code)]
#[napi(object)]
pub struct SnGatewayThought {
    pub id: String,
    pub parts: Vec<SnGatewayMessagePart>,
    #[napi(ts_type = "SnThinkingRole | SnThinkingRoleName")]
    pub role: JsonValue,
    #[napi(js_name = "created_at")]
    pub created_at: Option<String>,
}

/// One event of the SSE stream.
#[allow(dead_code)]
#[napi(discriminant = "type", discriminant_case = "snake_case")]
pub enum SnStreamEvent {
    /// Answer text → `text-delta`.
    Text { data: String },
    /// Progress while a call is being decided → nothing.
    FunctionCallUpdate {
        #[napi(ts_type = "unknown")]
        data: JsonValue,
    },
    /// → `tool-call`.
    FunctionCall {
        #[napi(ts_type = "SnFunctionCall | SnServerFunctionCall")]
        data: JsonValue,
    },
    /// → `tool-result`.
    FunctionResult {
        #[napi(ts_type = "SnFunctionResult | SnGatewayFunctionResult | SnServerFunctionResult")]
        data: JsonValue,
    },
    /// The conversation's title → nothing.
    Topic { data: String },
    /// The persisted message, last (the server writes it as a `thought:` field of its own)
    /// → nothing; check it with `sn.reconcile`. A live `sn-stream` conversation ends the
    /// turn as it holds it.
    Thought {
        #[napi(ts_type = "SnThinkingThought | SnGatewayThought")]
        data: JsonValue,
    },
}

/// Options of `sn.fromMessage`.
#[allow(dead_code)]
#[napi(object)]
pub struct SnFromMessageOptions {
    /// Written as `createdAt` (ISO 8601); left out when absent.
    pub created_at: Option<String>,
}

/// Where the streamed chunks and the persisted thought first differ.
#[allow(dead_code)]
#[napi(object)]
pub struct SnDifference {
    /// e.g. `chunks[1].calls[0].result`.
    pub path: String,
    /// What the stream built there (absent: nothing).
    #[napi(ts_type = "unknown")]
    pub streamed: Option<JsonValue>,
    /// What the thought has there (absent: nothing).
    #[napi(ts_type = "unknown")]
    pub persisted: Option<JsonValue>,
}

/// The outcome of `sn.reconcile`.
#[allow(dead_code)]
#[napi(object)]
pub struct SnReconciled {
    /// The persisted thought's message: it replaces the streamed one.
    #[napi(ts_type = "HistoryMessage")]
    pub message: JsonValue,
    /// Absent when the stream built exactly the thought's chunks.
    pub difference: Option<SnDifference>,
}

// ── Timeline ─────────────────────────────────────────────────────────────────
