//! ACP as it is captured: an agent's stdout or a client's traffic log holds the whole
//! JSON-RPC conversation (`initialize`, `session/new`, `session/prompt` and its result,
//! `session/request_permission`, `fs/*`, `terminal/*` …) around the `session/update`
//! notifications, and a traffic log often wraps each message in a record of its own
//! (`{ ts, direction, message }`, or the message as JSON text: `{ …, json: "{…}" }`).
//!
//! [`read`] tells what one line is; the fold ([`crate::formats::acp::fold`]) shows what a client
//! shows of it:
//!
//! - a `session/update` notification (or a bare notification or update) is folded as
//!   before;
//! - a `session/prompt` request is the user's message: the agent does not echo it, the
//!   client shows it from its own request;
//! - a `session/request_permission` request carries the call it asks about as a
//!   `ToolCallUpdate` (`params.toolCall`): its fields are the call's, as any update's (an
//!   agent may send a call's title and input only there: Qwen Code);
//! - the result of a prompt turn names why the turn stopped: any `stopReason` but
//!   `end_turn` is shown; an error response to a prompt is the turn's error, with its
//!   cause from `error.data` when the message does not already say it;
//! - a proxy's `proxy/successor` message is read as the message it carries;
//! - every other request, response and notification is protocol traffic, not message
//!   content.

use std::borrow::Cow;

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;

/// What one line of a capture is.
#[derive(Debug)]
pub enum Captured<'a> {
    /// A `session/update` notification's params, a bare notification or a bare update.
    Update(Cow<'a, Json>),
    /// A `session/prompt` request: its JSON-RPC id (as JSON text) and its content blocks.
    Prompt {
        id: Option<String>,
        blocks: Cow<'a, [Json]>,
    },
    /// A `session/request_permission` request: its id, and its `toolCall`, an update of
    /// the call it asks about.
    Permission {
        id: Option<String>,
        call: Option<Cow<'a, Json>>,
    },
    /// A response naming why a prompt turn stopped (`stopReason`).
    Stopped { id: Option<String>, reason: Wtf8 },
    /// An error response: its id and message.
    Failed { id: Option<String>, message: Wtf8 },
    /// Another request of ACP's: its id and method (a response to it may come).
    Request { id: String, method: Wtf8 },
    /// A request or notification whose method is not ACP's: its method.
    Foreign(Wtf8),
    /// Any other JSON-RPC message.
    Traffic,
}

/// Whether `value` is a JSON-RPC message: `jsonrpc`, or a method with params or an id,
/// or an id with a result or an error.
pub fn is_message(value: &Json) -> bool {
    let has = |key| value.get(key).is_some();
    matches!(value, Json::Object(_))
        && (has("jsonrpc")
            || matches!(value.get("method"), Some(Json::String(_))) && (has("params") || has("id"))
            || has("id") && (has("result") || has("error")))
}

/// The JSON-RPC message a line holds: the line itself, or the one a traffic-log record
/// wraps (a field holding the message, or its JSON text). `None` for a line that holds
/// none.
pub fn message(line: &Json) -> Option<Cow<'_, Json>> {
    if is_message(line) {
        return Some(Cow::Borrowed(line));
    }
    let Json::Object(fields) = line else {
        return None;
    };
    fields.iter().find_map(|(_, field)| match field {
        Json::Object(_) if is_message(field) && field.get("jsonrpc").is_some() => Some(Cow::Borrowed(field)),
        Json::String(text) if text.as_bytes().starts_with(b"{") => value::parse(text.as_bytes())
            .ok()
            .filter(|m| is_message(m) && m.get("jsonrpc").is_some())
            .map(Cow::Owned),
        _ => None,
    })
}

fn method(message: &Json) -> Option<&[u8]> {
    match message.get("method") {
        Some(Json::String(method)) => Some(method.as_bytes()),
        _ => None,
    }
}

use crate::reading::rpc::{id_text, Side};

/// The side that sends an ACP method: the agent sends `session/update`,
/// `session/request_permission`, `fs/…` and `terminal/…`; the client the rest.
pub fn sender(method: &[u8]) -> Side {
    if method == b"session/update"
        || method == b"session/request_permission"
        || method.starts_with(b"fs/")
        || method.starts_with(b"terminal/")
    {
        Side::Server
    } else {
        Side::Client
    }
}

fn owned_field<'a>(message: Cow<'a, Json>, key: &str) -> Option<Cow<'a, Json>> {
    match message {
        Cow::Borrowed(message) => message.get(key).map(Cow::Borrowed),
        Cow::Owned(message) => message.get(key).cloned().map(Cow::Owned),
    }
}

/// What `line` is, or `None` when it is neither an ACP notification nor JSON-RPC traffic.
pub fn read(line: &Json) -> Option<Captured<'_>> {
    let Some(mut message) = message(line) else {
        return (line.get("update").is_some() || line.get("sessionUpdate").is_some())
            .then_some(Captured::Update(Cow::Borrowed(line)));
    };
    // A proxy passes the message on to its successor inside its own.
    if method(&message) == Some(b"proxy/successor") {
        match owned_field(message, "params") {
            Some(inner) if is_message(&inner) => message = inner,
            _ => return Some(Captured::Traffic),
        }
    }
    match method(&message) {
        Some(b"session/update") => owned_field(message, "params")
            .map_or(Some(Captured::Traffic), |params| Some(Captured::Update(params))),
        Some(b"session/prompt") => {
            let id = id_text(&message);
            let blocks = owned_field(message, "params")
                .and_then(|params| owned_field(params, "prompt"))
                .and_then(|prompt| match prompt {
                    Cow::Borrowed(Json::Array(blocks)) => Some(Cow::Borrowed(&blocks[..])),
                    Cow::Owned(Json::Array(blocks)) => Some(Cow::Owned(blocks)),
                    _ => None,
                });
            Some(blocks.map_or(Captured::Traffic, |blocks| Captured::Prompt { id, blocks }))
        }
        Some(b"session/request_permission") => {
            let id = id_text(&message);
            let call = owned_field(message, "params")
                .and_then(|params| owned_field(params, "toolCall"))
                .filter(|call| matches!(**call, Json::Object(_)));
            Some(Captured::Permission { id, call })
        }
        Some(_) if !is_acp(&message) => Some(Captured::Foreign(
            message
                .get("method")
                .and_then(Json::as_str)
                .cloned()
                .unwrap_or_default(),
        )),
        Some(method) => Some(match id_text(&message) {
            Some(id) => Captured::Request {
                id,
                method: Wtf8::from_wtf8_unchecked(method.to_vec()),
            },
            None => Captured::Traffic,
        }),
        None => {
            let id = id_text(&message);
            if let Some(Json::String(reason)) = message.get("result").and_then(|r| r.get("stopReason")) {
                return Some(Captured::Stopped {
                    id,
                    reason: reason.clone(),
                });
            }
            match message.get("error") {
                Some(error @ Json::Object(_)) => Some(Captured::Failed {
                    id,
                    message: error_text(error),
                }),
                _ => Some(Captured::Traffic),
            }
        }
    }
}

/// What an error response says: its `message`, and the cause its `data` gives when the
/// message does not say it already — the agents put it in `data` as text, `data.details`
/// (Qwen Code: the model server's answer), `data.message` (codex-acp) or `data.error`;
/// "Internal error" alone says nothing of what failed. An error without a message is shown
/// as its JSON.
pub fn error_text(error: &Json) -> Wtf8 {
    let Some(Json::String(message)) = error.get("message") else {
        return Wtf8::from_wtf8_unchecked(error.to_json());
    };
    let data = error.get("data");
    let cause = match data {
        Some(Json::String(text)) => Some(text),
        Some(data @ Json::Object(_)) => {
            ["details", "message", "error"]
                .into_iter()
                .find_map(|key| match data.get(key) {
                    Some(Json::String(text)) => Some(text),
                    _ => None,
                })
        }
        _ => None,
    };
    match cause {
        Some(cause)
            if !cause.as_bytes().is_empty()
                && !message
                    .as_bytes()
                    .windows(cause.as_bytes().len())
                    .any(|w| w == cause.as_bytes()) =>
        {
            let mut text = message.clone();
            if !text.as_bytes().is_empty() {
                text.push_wtf8(b": ");
            }
            text.push_wtf8(cause.as_bytes());
            text
        }
        _ => message.clone(),
    }
}

/// Whether a JSON-RPC message is ACP's: one of its methods (`session/…`, `fs/…`,
/// `terminal/…`, a proxy chain's `proxy/…`, `authenticate`, an `initialize` with a
/// numeric protocol version), or a result only ACP gives (a `stopReason`, the agent's
/// capabilities).
pub fn is_acp(message: &Json) -> bool {
    match method(message) {
        Some(m) => {
            m.starts_with(b"session/")
                || m.starts_with(b"fs/")
                || m.starts_with(b"terminal/")
                || m.starts_with(b"proxy/")
                || m == b"authenticate"
                || m == b"initialize"
                    && matches!(
                        message.get("params").and_then(|p| p.get("protocolVersion")),
                        Some(Json::Number(_))
                    )
        }
        None => message
            .get("result")
            .is_some_and(|r| r.get("stopReason").is_some() || r.get("agentCapabilities").is_some()),
    }
}
