//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`): the chain of
//! lines Claude Code rebuilds a session from when it is resumed ([`transcript`]).

pub mod transcript;

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::Skips;
use crate::reading::format::{Format, History, Home, Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::line_tree::{read_line_tree, LineTree};

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
    leaves: false,
    stream: None,
    write: None,
    bytes: None,
    serve: None,
    homes: &[Home {
        variable: Some("CLAUDE_CONFIG_DIR"),
        folder: ".claude",
        sessions: &["projects"],
    }],
    lockstep: None,
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
