//! Claude Code: its transcripts (`~/.claude/projects/<project>/<session>.jsonl`), the
//! chain of lines Claude Code rebuilds a session from when it is resumed ([`transcript`]),
//! and its live output (`claude -p --output-format stream-json`, [`stream`]). Two rows of
//! the table, `claude` and `claude-stream`, in one folder: both carry the same
//! Messages-API content blocks, read by one set of rules ([`blocks`]), so that the stream
//! of a run and the transcript it wrote give the same messages.

pub mod blocks;
pub mod stream;
pub mod transcript;

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::Skips;
use crate::reading::format::{Format, History, Home, Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::line_tree::{read_line_tree, LineTree};
use crate::reading::sniff::{tag, Sniff};

/// The `claude` row of the table of formats.
pub const CLAUDE: Format = Format {
    name: "claude",
    summary: "a Claude Code transcript (~/.claude/projects/…/*.jsonl)",
    detect: |sniff, at| {
        sniff
            .line(at)
            .is_some_and(|line| transcript::is_transcript_line(line) || transcript::has_envelope(line))
    },
    // Session state and bookkeeping a newer version writes (`queue-operation`,
    // `permission-mode`, …) carry the session id; detection looks past them.
    near: |line| {
        (str_of(line, "type").is_some() && str_of(line, "sessionId").is_some())
            .then_some("lines with a sessionId as Claude Code writes, none of a type this version knows")
    },
    history: Some(History::Read(read_history)),
    homes: &[Home {
        variable: Some("CLAUDE_CONFIG_DIR"),
        folder: ".claude",
        sessions: &["projects"],
    }],
    ..Format::NONE
};

/// The `claude` history: a Claude Code transcript, the chain to its last line.
fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let tree = LineTree {
        known: transcript::is_known_line,
        chained: |line| {
            matches!(
                line.get("type").and_then(Json::as_str).map(Wtf8::as_bytes),
                Some(b"user" | b"assistant" | b"system")
            )
        },
        quiet: transcript::bookkeeping_kind,
        unknown: "line",
        read: |lines, numbers, view, emit| transcript::read_lines(lines, numbers, view, emit),
    };
    read_line_tree(input, options, tree, emit)
}

/// Whether a line is one of the Agent SDK's messages as `stream-json` writes them: a
/// `system` line with a `subtype`, an `assistant` / `user` line holding an API message
/// beside the `session_id` (the transcript writes `sessionId` and chains by
/// `parentUuid`), a `stream_event`, or a `result`.
fn is_stream_line(line: &Json) -> bool {
    let session = str_of(line, "session_id").is_some();
    match tag(line, "type") {
        Some(b"system") => session && str_of(line, "subtype").is_some(),
        Some(b"assistant" | b"user") => {
            session
                && line.get("parentUuid").is_none()
                && line
                    .get("message")
                    .is_some_and(|m| m.get("content").is_some() && m.get("parts").is_none())
        }
        Some(b"stream_event") => session && matches!(line.get("event"), Some(Json::Object(_))),
        Some(b"result") => session && (str_of(line, "subtype").is_some() || line.get("is_error").is_some()),
        _ => false,
    }
}

fn detect_stream(sniff: &Sniff, at: usize) -> bool {
    sniff.line(at).is_some_and(is_stream_line)
}

/// The `claude-stream` row: Claude Code's `stream-json` (Qwen Code's and Amp's too).
pub const CLAUDE_STREAM: Format = Format {
    name: "claude-stream",
    summary:
        "Claude Code's live output (claude -p --output-format stream-json; Qwen Code's and Amp's too), NDJSON",
    detect: detect_stream,
    near: |line| {
        (matches!(tag(line, "type"), Some(b"assistant" | b"user" | b"system"))
            && line.get("session_id").is_some())
        .then_some("Agent SDK messages with a session_id, none this version reads")
    },
    history: Some(History::Recorded),
    stream: Some((|_| Box::new(stream::ClaudeStream::default()), "message")),
    ..Format::NONE
};
