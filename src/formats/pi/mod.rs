//! Pi and OpenClaw: session files ([`session`], the tree of entries in [`tree`], read as
//! a history in [`history`]), pi's agent events ([`events`], each assistant message
//! ending as its `message_end` holds it: [`message_end`]) and OpenClaw's gateway frames
//! ([`gateway`]). Three rows of the table: `pi`, `pi-events` and `pi-stream`.

pub mod events;
pub mod gateway;
pub mod history;
pub mod message_end;
pub mod session;
pub mod tree;

use crate::bytes::value::Json;
use crate::model::MessageRole;
use crate::reading::format::{Format, History, Home, Write};
use crate::reading::sniff::{tag, Sniff};

const ENTRY_TYPES: &[&[u8]] = &[
    b"session",
    b"message",
    b"model_change",
    b"thinking_level_change",
    b"compaction",
    b"branch_summary",
    b"custom",
    b"custom_message",
    b"label",
    b"session_info",
];

/// A session header or entry, or a bare message.
fn detect_session(sniff: &Sniff, at: usize) -> bool {
    sniff.line(at).is_some_and(|line| match tag(line, "type") {
        Some(b"message") => matches!(line.get("message"), Some(Json::Object(_))),
        Some(kind) => ENTRY_TYPES.contains(&kind) && (kind != b"custom" || line.get("id").is_some()),
        None => {
            tag(line, "role").is_some_and(|role| session::ROLES.contains(&role))
                && line.get("content").is_some()
        }
    })
}

/// Session files.
pub const PI: Format = Format {
    name: "pi",
    summary: "a Pi / OpenClaw session file (v1–v3), JSONL",
    detect: detect_session,
    near: |line| {
        (tag(line, "type").is_some() && tag(line, "id").is_some() && line.get("parentId").is_some())
            .then_some("entries with an id and a parentId as pi writes, none of a type this version knows")
    },
    history: Some(History::Read(history::read_history)),
    leaves: true,
    write: Some(Write {
        write: |messages| Ok(session::write_session(messages)),
        holds: &[MessageRole::User, MessageRole::Assistant, MessageRole::System],
    }),
    homes: &[Home {
        variable: Some("PI_CODING_AGENT_DIR"),
        folder: ".pi/agent",
        sessions: &["sessions"],
    }],
    ..Format::NONE
};

/// The event types of pi's `--mode json` and `--mode rpc` output.
const PI_EVENT_TYPES: &[&[u8]] = &[
    b"agent_start",
    b"agent_end",
    b"turn_start",
    b"turn_end",
    b"message_start",
    b"message_update",
    b"message_end",
    b"tool_execution_start",
    b"tool_execution_update",
    b"tool_execution_end",
    b"auto_compaction_start",
    b"auto_compaction_end",
    b"auto_retry_start",
    b"auto_retry_end",
    // pi 0.84 and later.
    b"compaction_start",
    b"compaction_end",
    b"queue_update",
    b"agent_settled",
    b"summarization_retry_scheduled",
    b"summarization_retry_attempt_start",
    b"summarization_retry_finished",
    b"bash_execution_update",
];

const SHORTHAND_TYPES: &[&[u8]] = &[
    b"delta",
    b"thinking-delta",
    b"thinking-end",
    b"tool-start",
    b"tool-end",
    b"final",
];

fn is_pi_event(value: &Json) -> bool {
    tag(value, "type").is_some_and(|t| PI_EVENT_TYPES.contains(&t))
}

/// A session header followed by agent events (`--mode json`), or agent events alone.
fn detect_pi_events(sniff: &Sniff, at: usize) -> bool {
    let lines = sniff.lines();
    match lines.get(at) {
        Some(line) if tag(line, "type") == Some(b"session") => lines[at + 1..].iter().any(is_pi_event),
        Some(line) => is_pi_event(line),
        None => false,
    }
}

/// Gateway frames, or the shorthand events (the responses to requests that may lead a
/// capture say nothing).
fn detect_gateway(sniff: &Sniff, at: usize) -> bool {
    sniff.line(at).is_some_and(|line| match tag(line, "type") {
        Some(b"event") => tag(line, "event").is_some() && line.get("payload").is_some(),
        Some(kind) => SHORTHAND_TYPES.contains(&kind),
        None => false,
    })
}

/// pi's own live stream.
pub const PI_EVENTS: Format = Format {
    name: "pi-events",
    summary: "pi's agent events (pi --mode json or rpc output), NDJSON",
    detect: detect_pi_events,
    stream: Some((|_| Box::new(events::PiEvents::default()), "message")),
    ..Format::NONE
};

/// OpenClaw's live stream.
pub const PI_STREAM: Format = Format {
    name: "pi-stream",
    summary: "OpenClaw gateway frames (or the shorthand webchat events), NDJSON",
    detect: detect_gateway,
    near: |line| {
        (matches!(tag(line, "type"), Some(b"res" | b"req")) && line.get("id").is_some())
            .then_some("gateway requests and responses, but no event after them")
    },
    stream: Some((|_| Box::new(gateway::Gateway::default()), "turn")),
    ..Format::NONE
};
