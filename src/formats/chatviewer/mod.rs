//! ChatViewer transcripts (the Qwen Code webui's `ChatMessageData` lines): the rows the
//! webui shows ([`adapter`], `adaptJSONLMessages`), read as messages ([`history`]).

pub mod adapter;
pub mod history;

use crate::bytes::value::Json;
use crate::reading::format::{Format, History};
use crate::reading::sniff::{is_object, tag, Sniff};

pub const CHATVIEWER: Format = Format {
    name: "chatviewer",
    summary: "a ChatViewer transcript, JSONL or a JSON array of ChatMessageData",
    detect: |sniff, at| match sniff {
        Sniff::Array(Some(first)) => is_object(first) && first.get("uuid").is_some(),
        _ => sniff.line(at).is_some_and(|line| {
            line.get("uuid").and_then(Json::as_str).is_some()
                && matches!(tag(line, "type"), Some(b"user" | b"assistant" | b"tool_call"))
        }),
    },
    history: Some(History::Read(history::read_history)),
    ..Format::NONE
};
