//! Agent Client Protocol v1: `session/update` notifications ([`updates`]), the JSON-RPC
//! traffic around them as agents and clients capture it ([`rpc`]), folded into messages
//! as a client shows them ([`fold`]) — the same fold for a live session and for a
//! recorded one ([`history`]).

pub mod fold;
pub mod history;
pub mod rpc;
pub mod updates;

use crate::bytes::value::Json;
use crate::reading::format::{Format, History};
use crate::reading::sniff::{is_object, tag};

/// The update of an ACP line: a notification (`{ sessionId, update }`), a bare update,
/// or a JSON-RPC `session/update` request.
fn acp_update(value: &Json) -> Option<&Json> {
    let notification = match (tag(value, "method"), value.get("params")) {
        (Some(b"session/update"), Some(params @ Json::Object(_))) => params,
        _ => value,
    };
    match notification.get("update") {
        Some(update @ Json::Object(_)) => Some(update),
        _ => is_object(notification).then_some(notification),
    }
}

/// Whether a line is ACP's: a notification or update, or (wrapped in a traffic-log
/// record or not) a JSON-RPC message of ACP's.
fn is_acp_line(line: &Json) -> bool {
    if acp_update(line).is_some_and(|update| tag(update, "sessionUpdate").is_some()) {
        return true;
    }
    rpc::message(line).is_some_and(|message| rpc::is_acp(&message))
}

pub const ACP: Format = Format {
    name: "acp",
    summary: "ACP session/update notifications, or the JSON-RPC traffic around them (an agent's output, a client's log), NDJSON",
    detect: |sniff, at| sniff.line(at).is_some_and(is_acp_line),
    near: |line| {
        rpc::message(line)
            .is_some_and(|m| m.get("jsonrpc").is_some())
            .then_some("JSON-RPC messages, none of them ACP's")
    },
    history: Some(History::Read(history::read_history)),
    // The same rules as the history: message ids, titles, plans, tool call updates.
    stream: Some((|_| Box::new(fold::AcpLive::default()), "turn")),
    ..Format::NONE
};
