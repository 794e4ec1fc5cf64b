//! Qwen Code chat recordings (`~/.qwen/projects/<project>/chats/<session>.jsonl`): the
//! chain of `ChatRecord`s Qwen Code shows a session as ([`recording`]).

pub mod recording;
pub mod result;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::Skips;
use crate::reading::format::{Format, History, Home, Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::line_tree::{read_line_tree, LineTree};

/// The `qwen` row of the table of formats.
pub const QWEN: Format = Format {
    name: "qwen",
    summary: "a Qwen Code chat recording (ChatRecord JSONL)",
    detect: |sniff, at| sniff.line(at).is_some_and(recording::is_record),
    history: Some(History::Read(read_history)),
    homes: &[Home {
        variable: Some("QWEN_HOME"),
        folder: ".qwen",
        sessions: &["projects"],
    }],
    ..Format::NONE
};

/// The `qwen` history: a Qwen Code chat recording, the chain to its last record.
fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let tree = LineTree {
        known: recording::is_known_record,
        chained: |line| {
            matches!(
                line.get("type").and_then(Json::as_str).map(Wtf8::as_bytes),
                Some(b"user" | b"assistant" | b"tool_result" | b"system")
            )
        },
        quiet: recording::bookkeeping_kind,
        unknown: "record",
        read: |lines, numbers, view, emit| recording::read_lines(lines, numbers, view, emit),
    };
    read_line_tree(input, options, tree, emit)
}
