//! GitHub Copilot CLI (`@github/copilot`, `@github/copilot-sdk`): its session events, one
//! published schema (the SDK's `SessionEvent`, `nodejs/src/generated/session-events.ts`)
//! for the live stream (`copilot -p --output-format json`, the SDK's session events) and
//! the session's history (`~/.copilot/session-state/<session>/events.jsonl`, the same
//! events less those marked `ephemeral`). One row, `copilot`, read by one fold
//! ([`events`]), so a live view and the reloaded file give the same messages.

pub mod events;

use crate::bytes::value::{str_of, Json};
use crate::reading::format::{Format, History, Home};
use crate::reading::sniff::Sniff;

/// Whether a line is one of Copilot's session events: the envelope `{type, data, id,
/// timestamp, parentId}` with a dotted type (`session.start`, `user.message`, …).
fn is_event(line: &Json) -> bool {
    str_of(line, "type").is_some_and(|t| t.as_bytes().contains(&b'.'))
        && matches!(line.get("data"), Some(Json::Object(_)))
        && str_of(line, "id").is_some()
        && line.get("parentId").is_some()
}

fn detect(sniff: &Sniff, at: usize) -> bool {
    sniff.line(at).is_some_and(is_event)
}

/// The `copilot` row.
pub const COPILOT: Format = Format {
    name: "copilot",
    summary: "Copilot CLI session events: events.jsonl, or copilot -p --output-format json, NDJSON",
    detect,
    near: |line| {
        (str_of(line, "type").is_some() && line.get("data").is_some() && line.get("parentId").is_some())
            .then_some("events with data and a parentId as Copilot writes, none of a type this version knows")
    },
    history: Some(History::Recorded),
    stream: Some((|_| Box::new(events::CopilotEvents::default()), "message")),
    homes: &[Home {
        variable: None,
        folder: ".copilot",
        sessions: &["session-state"],
    }],
    ..Format::NONE
};
