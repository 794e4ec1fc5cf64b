//! OpenCode (`opencode-ai`, sst/opencode, now anomalyco/opencode) and its fork Kilo CLI
//! (`@kilocode/cli`): a session is messages (an info each) made of parts
//! (`packages/opencode/src/session/message-v2.ts`), one assistant message per model step
//! ([`parts`]). Four rows of the table, one reading of messages and parts:
//!
//! - `opencode`: a stored session as OpenCode hands it out, `opencode export <id>` or the
//!   server's `GET /session/:id/message` ([`export`]);
//! - `opencode-run`: `opencode run --format json`, folded live ([`stream::RunStream`];
//!   `check` sets aside what it leaves out by design, [`lockstep`]);
//! - `opencode-events`: the server's `GET /event` SSE (and Kilo's `GET /api/event`),
//!   folded live by message and part id ([`stream::EventStream`], [`session`]);
//! - `opencode-global`: the server's `GET /global/event`, the same events wrapped, each
//!   durable one sent twice (once as a `sync` copy, read once).
//!
//! Versions: OpenCode 0.x (text deltas on `message.part.updated`) to 1.18.33
//! (`message.part.delta`), Kilo CLI 7.7.

pub mod export;
pub mod lockstep;
pub mod parts;
pub mod session;
pub mod stream;

pub use export::{read_document, read_export};

use crate::bytes::value::{str_of, Json};
use crate::reading::format::{Format, History};
use crate::reading::sniff::{tag, tag_in, Sniff};

use stream::{Channel, EventStream, RunStream, RUN_TYPES};

/// A stored session: `[{info, parts}]`, or an export (whose `messages` a pretty-printed
/// file's first values are, one-line or not).
fn detect_history(sniff: &Sniff, at: usize) -> bool {
    match sniff {
        Sniff::Array(Some(first)) => export::is_message(first),
        _ => sniff
            .line(at)
            .is_some_and(|line| export::is_message(line) || export::is_export(line)),
    }
}

/// The `opencode` row.
pub const OPENCODE: Format = Format {
    name: "opencode",
    summary: "an OpenCode or Kilo session: opencode export <id> ({info, messages}), or GET /session/:id/message ([{info, parts}])",
    detect: detect_history,
    near: |value| {
        (value.get("info").is_some() && (value.get("parts").is_some() || value.get("messages").is_some()))
            .then_some("an {info, parts} message as OpenCode stores it, without a message id, role or session")
    },
    history: Some(History::Read(export::read_history)),
    ..Format::NONE
};

/// A line of `opencode run --format json`.
fn is_run_line(line: &Json) -> bool {
    tag_in(line, RUN_TYPES)
        && str_of(line, "sessionID").is_some()
        && line.get("timestamp").is_some()
        && match tag(line, "type") {
            Some(b"error") => matches!(line.get("error"), Some(Json::Object(_))),
            _ => line
                .get("part")
                .is_some_and(|part| str_of(part, "messageID").is_some() && str_of(part, "type").is_some()),
        }
}

/// The `opencode-run` row.
pub const OPENCODE_RUN: Format = Format {
    name: "opencode-run",
    summary: "OpenCode or Kilo `run --format json` output (a line per finished part), NDJSON",
    detect: |sniff, at| !sniff.is_sse() && sniff.line(at).is_some_and(is_run_line),
    stream: Some((|_| Box::new(RunStream::default()), "message")),
    lockstep: Some(lockstep::lockstep),
    ..Format::NONE
};

/// The event types of OpenCode's server that tell its streams by themselves.
const EVENT_TYPES: &[&[u8]] = &[
    b"server.connected",
    b"server.heartbeat",
    b"message.updated",
    b"message.part.updated",
    b"message.part.delta",
    b"message.removed",
    b"message.part.removed",
    b"session.created",
    b"session.updated",
    b"session.status",
    b"session.idle",
    b"session.error",
    b"session.diff",
];

/// An event of `/event`: `{type, properties}`, Kilo's `{type: "sync", syncEvent}`, or
/// Kilo's `/api/event` `{type, data, location}`.
fn is_event(value: &Json) -> bool {
    match tag(value, "type") {
        Some(b"sync") => matches!(value.get("syncEvent"), Some(Json::Object(_))),
        Some(_) if tag_in(value, EVENT_TYPES) => {
            matches!(value.get("properties"), Some(Json::Object(_)))
                || (matches!(value.get("data"), Some(Json::Object(_)))
                    && matches!(value.get("location"), Some(Json::Object(_))))
        }
        _ => false,
    }
}

/// The `opencode-events` row.
pub const OPENCODE_EVENTS: Format = Format {
    name: "opencode-events",
    summary: "the OpenCode or Kilo server's GET /event SSE (and Kilo's GET /api/event)",
    detect: |sniff, at| !sniff.is_array() && sniff.value(at).is_some_and(is_event),
    stream: Some((|_| Box::new(EventStream::new(Channel::Event)), "message")),
    ..Format::NONE
};

/// An event of `/global/event`: `{directory?, project?, payload: {type, properties}}`.
fn is_global(value: &Json) -> bool {
    value.get("type").is_none() && value.get("payload").is_some_and(is_event)
}

/// The `opencode-global` row.
pub const OPENCODE_GLOBAL: Format = Format {
    name: "opencode-global",
    summary: "the OpenCode or Kilo server's GET /global/event SSE ({directory, project, payload})",
    detect: |sniff, at| !sniff.is_array() && sniff.value(at).is_some_and(is_global),
    stream: Some((|_| Box::new(EventStream::new(Channel::Global)), "message")),
    ..Format::NONE
};
