//! The `pi` and `sn` namespaces: each function reads the caller's value as JSON text,
//! runs the format's rules from `crate::formats`, and hands the result back through
//! `JSON.parse`. Bad input is a `TypeError` naming the line and path.

use std::borrow::Cow;

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::bytes::value::{self, Json};
use crate::decode::ValueType;
use crate::formats::pi::session as pi;
use crate::formats::sn::thought as sn;
use crate::reading::check::FormatError;
use crate::reading::model_json::{
    event_json, message_json, messages_from_json, write_messages, FormatEvent, FormatMessage,
};

use super::entry::caught;
use super::json_bridge::{Bridge, JsonText, Value};

/// A history: JSON text (a string, or a Buffer borrowed as it is) or parsed items.
pub(super) enum History<'a> {
    Text(JsonText<'a>),
    Items(Vec<Json>),
}

/// A Buffer's bytes as JSON text: they must be UTF-8, as a file's are (the reader also
/// takes surrogates encoded alone, which only a JavaScript string's text holds). The
/// error names the line and column (`lines`), or the column in the whole text.
fn buffer_text<'a>(b: &Bridge, bytes: &'a [u8], lines: bool) -> Result<JsonText<'a>> {
    let Err(error) = std::str::from_utf8(bytes) else {
        return Ok(JsonText::Borrowed(bytes));
    };
    let at = error.valid_up_to();
    Err(b.type_error(if lines {
        let start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        format!("line {line}: invalid UTF-8 at column {}", at - start + 1)
    } else {
        format!("invalid UTF-8 at column {}", at + 1)
    }))
}

/// The value's type, with a Proxy of an array (a reactive store) counted as the array
/// `Array.isArray` says it is.
fn kind_of(b: &Bridge, value: Value) -> Result<ValueType> {
    Ok(match b.value_type(value)? {
        ValueType::Object if b.is_array(value)? => ValueType::Array,
        other => other,
    })
}

pub(super) fn history<'a>(b: &'a Bridge, value: Value, what: &str, lines: bool) -> Result<History<'a>> {
    match kind_of(b, value)? {
        ValueType::String => Ok(History::Text(JsonText::Owned(b.text(value)?.into_bytes()))),
        ValueType::Array => match json_of(b, value, what)? {
            Json::Array(items) => Ok(History::Items(items)),
            _ => Err(b.type_error(format!("\"{what}\" changed while it was read"))),
        },
        got => match b.bytes(value)? {
            Some(Cow::Borrowed(bytes)) => Ok(History::Text(buffer_text(b, bytes, lines)?)),
            Some(Cow::Owned(bytes)) => {
                buffer_text(b, &bytes, lines)?;
                Ok(History::Text(JsonText::Owned(bytes)))
            }
            None => Err(b.type_error(format!(
                "\"{what}\" must be a string, a Buffer or an array, got {}",
                got.name()
            ))),
        },
    }
}

/// The value as JSON (`JSON.stringify` semantics). `JSON.stringify` has its own depth
/// limit (a `RangeError`); past the reader's lower one the error names the argument and
/// the column of its JSON text.
fn json_of(b: &Bridge, value: Value, what: &str) -> Result<Json> {
    let text = b
        .stringify_named(value, what)?
        .unwrap_or_else(|| b"null".to_vec());
    value::parse(&text).map_err(|e| b.type_error(format!("\"{what}\" as JSON: {e}")))
}

/// The value as JSON, which must be an object.
pub(super) fn object_of(b: &Bridge, value: Value, what: &str) -> Result<Json> {
    match b.value_type(value)? {
        ValueType::Object => json_of(b, value, what),
        got => Err(b.type_error(format!("\"{what}\" must be an object, got {}", got.name()))),
    }
}

pub(super) fn array_of(b: &Bridge, value: Value, what: &str) -> Result<Json> {
    match kind_of(b, value)? {
        ValueType::Array => json_of(b, value, what),
        got => Err(b.type_error(format!("\"{what}\" must be an array, got {}", got.name()))),
    }
}

pub(super) fn give(b: &Bridge, env: &Env, json: &Json) -> Result<Unknown<'static>> {
    let value = b.parse(&json.to_json())?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

pub(super) fn give_messages(b: &Bridge, env: &Env, messages: &[FormatMessage]) -> Result<Unknown<'static>> {
    let mut text = Vec::new();
    write_messages(&mut text, messages);
    let value = b.parse(&text)?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

fn give_events(b: &Bridge, env: &Env, events: &[FormatEvent]) -> Result<Unknown<'static>> {
    give(
        b,
        env,
        &Json::Array(events.iter().filter_map(event_json).collect()),
    )
}

/// Prefixes a format error's path with the argument it is in (`event.toolCallId`), and
/// says what the caller really gave where `JSON.stringify` changed it: `NaN` and
/// `Infinity` become `null`, `undefined`, functions and symbols vanish.
pub(super) fn within(b: &Bridge, what: &str, given: Value, mut error: FormatError) -> napi::Error {
    if let Some(at) = error.problem.rfind(", got ") {
        let said = &error.problem[at + ", got ".len()..];
        if said == "null" || said == "undefined" {
            if let Ok(Some(value)) = b.value_at(given, &error.path) {
                if let Ok(real) = b.describe(value) {
                    if real != said {
                        error.problem = format!("{}, got {real}", &error.problem[..at]);
                    }
                }
            }
        }
    }
    error.path = if error.path.is_empty() {
        what.to_string()
    } else if error.path.starts_with('[') {
        format!("{what}{}", error.path)
    } else {
        format!("{what}.{}", error.path)
    };
    b.type_error(error)
}

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
