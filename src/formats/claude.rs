//! Claude Code transcripts: the JSONL file Claude Code writes per session under
//! `~/.claude/projects/<project>/<session>.jsonl` (and `agent-<id>.jsonl` for a
//! sub-agent's own run).
//!
//! Each conversation line has a `uuid` and the `parentUuid` of the line before it; the
//! conversation is the chain from the last conversation line back to the root (after a
//! compaction the chain goes on through the boundary's `logicalParentUuid`). Lines off
//! that chain (an abandoned branch, a sub-agent's `isSidechain` lines) are not part of it.
//!
//! Claude Code stores one API response as several `assistant` lines, one content block
//! each, all with the same `message.id`: those lines are ONE stored message and make one
//! `assistant` message (its id the `message.id`). On the chain:
//!
//! - `user` lines: text (a string or `text` blocks) and `image` blocks make a `user`
//!   message; `tool_result` blocks land on their call (`result` the content: a string as
//!   stored, text blocks joined, other blocks as stored; `isError` from `is_error`); a line
//!   of tool results only makes no message. `isMeta` lines (context Claude Code adds for
//!   the model and does not show) are skipped; an `isCompactSummary` line is the
//!   summary a compaction left: a `system` message with a `compaction` chunk.
//! - `assistant` blocks: `text`, `thinking` (sealed with `{ anthropic: { signature } }`),
//!   `redacted_thinking` (an empty thinking chunk sealed with
//!   `{ anthropic: { redactedData } }`), `tool_use` (a call: `id`, `name`, `input`). An
//!   API error Claude Code recorded as a message (`isApiErrorMessage`) is an `error` chunk.
//! - `system` lines with a `content` text (`local_command` output, notices) are `system`
//!   messages with a `notice` chunk; the `compact_boundary` marker itself shows nothing.
//! - `summary` (a session title), `file-history-snapshot` (file backups for undo) and
//!   the other bookkeeping lines are not conversation lines; lines of a type this version
//!   does not know are counted in [`Skipped::unknown`].

use std::collections::HashMap;

use crate::model::{Chunk, MessageRole, SystemChunkKind};

use super::model_json::{FormatEvent, FormatMessage};
use super::pi::{signature_metadata, tool_result_value};
use super::stored::StoredMessages;
use super::value::Json;
use super::wtf8::Wtf8;

/// What a reading left out, by reason.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Lines of a type this version does not know.
    pub unknown: usize,
    /// Conversation lines not on the chain to the last line (other branches,
    /// sub-agent lines).
    pub off_chain: usize,
    /// `isMeta` lines.
    pub meta: usize,
    /// Tool results whose call is not in the conversation.
    pub orphan_results: usize,
}

/// Line types that are bookkeeping, not conversation.
const BOOKKEEPING: [&str; 6] = [
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "progress",
    "last-prompt",
];

fn str_of<'a>(value: &'a Json, key: &str) -> Option<&'a Wtf8> {
    value.get(key).and_then(Json::as_str)
}

fn is_true(value: &Json, key: &str) -> bool {
    matches!(value.get(key), Some(Json::Bool(true)))
}

/// Whether a line is one of Claude Code's bookkeeping lines (a session title, a file
/// snapshot, a queued prompt …), not a conversation line.
pub fn is_bookkeeping_line(line: &Json) -> bool {
    str_of(line, "type").is_some_and(|ty| BOOKKEEPING.iter().any(|b| ty == b))
}

/// Whether a line is a conversation line (`user`, `assistant`, `system` with a `uuid`).
pub fn is_conversation_line(line: &Json) -> bool {
    matches!(
        str_of(line, "type").map(Wtf8::as_bytes),
        Some(b"user" | b"assistant" | b"system")
    ) && str_of(line, "uuid").is_some()
}

/// Whether a line carries the envelope Claude Code writes on every line of the
/// conversation tree, whatever its type (`progress`, `attachment`, types added later): a
/// `uuid`, a `parentUuid`, the `sessionId`, and `isSidechain` or `userType`.
///
/// A line without the last two still tells Claude Code when it holds an API message
/// (`message.content`, where Qwen Code's records hold `message.parts`).
fn has_envelope(line: &Json) -> bool {
    let tree = str_of(line, "type").is_some()
        && str_of(line, "uuid").is_some()
        && line.get("parentUuid").is_some()
        && str_of(line, "sessionId").is_some();
    tree && (line.get("isSidechain").is_some()
        || line.get("userType").is_some()
        || line
            .get("message")
            .is_some_and(|m| m.get("content").is_some() && m.get("parts").is_none()))
}

/// Whether a line looks like a Claude Code transcript line, for detection.
pub fn is_transcript_line(line: &Json) -> bool {
    let Some(ty) = str_of(line, "type") else {
        return false;
    };
    match ty.as_bytes() {
        b"summary" => str_of(line, "leafUuid").is_some() || str_of(line, "summary").is_some(),
        b"file-history-snapshot" => line.get("snapshot").is_some(),
        // Claude Code marks every conversation line with `isSidechain` and `userType`.
        b"user" | b"assistant" | b"system" => {
            str_of(line, "uuid").is_some()
                && line.get("parentUuid").is_some()
                && (line.get("isSidechain").is_some() || line.get("userType").is_some())
        }
        _ => false,
    }
}

/// The lines of the conversation, in order: the chain ending at the last conversation
/// line that is not a sub-agent's (or at the last one, in a sub-agent's own file).
pub fn chain(lines: &[Json], skipped: &mut Skipped) -> Vec<usize> {
    let mut by_uuid: HashMap<&Wtf8, usize> = HashMap::new();
    let mut conversation = 0;
    for (i, line) in lines.iter().enumerate() {
        // Any line with a uuid can be a link of the chain (progress lines are).
        if let Some(uuid) = str_of(line, "uuid") {
            by_uuid.insert(uuid, i);
        }
        if is_conversation_line(line) {
            conversation += 1;
        } else {
            let known = str_of(line, "type").is_some_and(|ty| BOOKKEEPING.iter().any(|b| ty == b));
            if !known {
                skipped.unknown += 1;
            }
        }
    }
    let leaf = lines
        .iter()
        .rposition(|l| is_conversation_line(l) && !is_true(l, "isSidechain"))
        .or_else(|| lines.iter().rposition(is_conversation_line));
    let mut order = Vec::new();
    let mut seen = vec![false; lines.len()];
    let mut next = leaf;
    while let Some(i) = next {
        if std::mem::replace(&mut seen[i], true) {
            break; // a cycle of parents: each line once
        }
        order.push(i);
        let line = &lines[i];
        let parent = match line.get("parentUuid") {
            Some(Json::String(parent)) => Some(parent),
            _ => str_of(line, "logicalParentUuid"),
        };
        next = parent.and_then(|p| by_uuid.get(p).copied());
    }
    order.reverse();
    order.retain(|&i| is_conversation_line(&lines[i]));
    skipped.off_chain += conversation - order.len();
    order
}

/// Folds the lines of a conversation, in order, into messages.
#[derive(Debug, Default)]
pub struct Transcript {
    stored: StoredMessages,
    /// The `message.id` of the open assistant message.
    open_response: Option<Wtf8>,
    pub skipped: Skipped,
}

impl Transcript {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn line(&mut self, line: &Json) {
        let uuid = str_of(line, "uuid")
            .map(|u| u.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fallback = || uuid.clone();
        let message = line.get("message");
        match str_of(line, "type").map(Wtf8::as_bytes) {
            Some(b"user") => {
                if is_true(line, "isMeta") {
                    self.skipped.meta += 1;
                    return;
                }
                let content = message.and_then(|m| m.get("content"));
                if is_true(line, "isCompactSummary") {
                    self.stored.start(MessageRole::System, Some(&uuid), fallback);
                    self.stored.push(Chunk::System {
                        kind: SystemChunkKind::Compaction,
                        text: plain_text(content),
                    });
                    self.stored.close();
                    return;
                }
                self.user(content, &uuid);
            }
            Some(b"assistant") => {
                let Some(message) = message else { return };
                let response = str_of(message, "id").cloned();
                let continues = self.stored.open_role() == Some(MessageRole::Assistant)
                    && response.is_some()
                    && response == self.open_response;
                if !continues {
                    let id = response.as_ref().map(|r| r.to_string_lossy().into_owned());
                    self.stored.start(MessageRole::Assistant, id.as_deref(), fallback);
                    self.open_response = response;
                }
                let error = is_true(line, "isApiErrorMessage");
                for block in blocks(message.get("content")) {
                    if error {
                        if let Some(text) = str_of(block, "text") {
                            self.stored.push(Chunk::Error {
                                message: text.clone(),
                                status_code: None,
                            });
                        }
                    } else {
                        self.assistant_block(block);
                    }
                }
                if let Some(Json::String(text)) = message.get("content") {
                    self.stored.event(FormatEvent::TextDelta { delta: text.clone() });
                }
            }
            Some(b"system") => match str_of(line, "content") {
                Some(text) if str_of(line, "subtype").is_none_or(|s| *s != "compact_boundary") => {
                    self.stored.start(MessageRole::System, Some(&uuid), fallback);
                    self.stored.push(Chunk::System {
                        kind: SystemChunkKind::Notice,
                        text: text.clone(),
                    });
                    self.stored.close();
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn user(&mut self, content: Option<&Json>, uuid: &str) {
        let fallback = || uuid.to_string();
        if let Some(Json::String(text)) = content {
            self.stored.start(MessageRole::User, Some(uuid), fallback);
            self.stored.event(FormatEvent::TextDelta { delta: text.clone() });
            self.stored.close();
            return;
        }
        let mut started = false;
        for block in blocks(content) {
            if str_of(block, "type").is_some_and(|t| *t == "tool_result") {
                let Some(id) = str_of(block, "tool_use_id") else {
                    continue;
                };
                let result = tool_result_value(block.get("content").cloned().unwrap_or(Json::Undefined));
                let is_error = Json::Bool(is_true(block, "is_error"));
                if !self.stored.set_result(id, Some((result, is_error))) {
                    self.skipped.orphan_results += 1;
                }
                continue;
            }
            if !started {
                self.stored.start(MessageRole::User, Some(uuid), fallback);
                started = true;
            }
            match str_of(block, "type").map(Wtf8::as_bytes) {
                Some(b"text") => {
                    if let Some(text) = str_of(block, "text") {
                        self.stored.event(FormatEvent::TextDelta { delta: text.clone() });
                    }
                }
                Some(b"image" | b"document") => {
                    if let Some(file) = file_chunk(block) {
                        self.stored.push(file);
                    }
                }
                _ => {}
            }
        }
        if started {
            self.stored.close();
        }
    }

    fn assistant_block(&mut self, block: &Json) {
        match str_of(block, "type").map(Wtf8::as_bytes) {
            Some(b"text") => {
                if let Some(text) = str_of(block, "text") {
                    self.stored.event(FormatEvent::TextDelta { delta: text.clone() });
                }
            }
            Some(b"thinking") => {
                let text = str_of(block, "thinking").cloned().unwrap_or_default();
                self.stored.push(Chunk::Thinking {
                    text,
                    metadata: str_of(block, "signature")
                        .filter(|s| !s.is_empty())
                        .map(|s| signature_metadata(&Wtf8::from("anthropic"), s)),
                });
            }
            Some(b"redacted_thinking") => {
                let data = str_of(block, "data").cloned().unwrap_or_default();
                self.stored.push(Chunk::Thinking {
                    text: Wtf8::new(),
                    metadata: Some(Json::Object(vec![(
                        Wtf8::from("anthropic"),
                        Json::object([("redactedData", Json::String(data))]),
                    )])),
                });
            }
            Some(b"tool_use" | b"server_tool_use") => {
                let (Some(id), Some(name)) = (str_of(block, "id"), str_of(block, "name")) else {
                    return;
                };
                let input = block.get("input").cloned().unwrap_or(Json::Undefined);
                self.stored.call(id.clone(), name.clone(), input);
            }
            Some(b"image") => {
                if let Some(file) = file_chunk(block) {
                    self.stored.push(file);
                }
            }
            _ => {}
        }
    }

    pub fn hand_on(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        self.stored.hand_on(emit)
    }

    pub fn finish(self, emit: &mut impl FnMut(FormatMessage) -> bool) {
        self.stored.finish(emit)
    }
}

/// A transcript's lines (parsed), read as the conversation to its last line.
pub fn read_lines(lines: &[Json], mut emit: impl FnMut(FormatMessage) -> bool) -> Skipped {
    let mut skipped = Skipped::default();
    let order = chain(lines, &mut skipped);
    let mut transcript = Transcript::new();
    transcript.skipped = skipped;
    for i in order {
        transcript.line(&lines[i]);
        if !transcript.hand_on(&mut emit) {
            return transcript.skipped;
        }
    }
    let skipped = transcript.skipped;
    transcript.finish(&mut emit);
    skipped
}

fn blocks(content: Option<&Json>) -> &[Json] {
    match content {
        Some(Json::Array(blocks)) => blocks,
        _ => &[],
    }
}

/// A content as one text: a string as it is, the text blocks joined.
fn plain_text(content: Option<&Json>) -> Wtf8 {
    match content {
        Some(Json::String(text)) => text.clone(),
        _ => {
            let mut text = Wtf8::new();
            for block in blocks(content) {
                if let Some(t) = str_of(block, "text") {
                    text.push_wtf8(t.as_bytes());
                }
            }
            text
        }
    }
}

/// An Anthropic `image` / `document` block: `source` base64 (`media_type`, `data`) or a
/// `url`.
pub fn file_chunk(block: &Json) -> Option<Chunk<Wtf8, Json>> {
    let source = block.get("source")?;
    let media_type = str_of(source, "media_type").cloned().unwrap_or_else(|| {
        Wtf8::from(if str_of(block, "type").is_some_and(|t| *t == "document") {
            "application/pdf"
        } else {
            "image/*"
        })
    });
    Some(Chunk::File {
        media_type,
        data: str_of(source, "data").cloned(),
        url: str_of(source, "url").cloned(),
        filename: str_of(block, "title").cloned(),
    })
}

/// One piece of a message read from content blocks, for readers that fold line by line.
#[derive(Debug)]
pub enum Piece {
    Event(FormatEvent),
    Chunk(Chunk<Wtf8, Json>),
}

/// A line's content blocks as the pieces they add, and the side they belong to: a user
/// line of tool results only belongs to the assistant's message, whose calls they answer.
pub fn block_pieces(blocks: &[Json], user: bool) -> (MessageRole, Vec<Piece>) {
    let results_only = !blocks.is_empty()
        && blocks
            .iter()
            .all(|b| str_of(b, "type").is_some_and(|t| *t == "tool_result"));
    let side = if user && !results_only {
        MessageRole::User
    } else {
        MessageRole::Assistant
    };
    let mut pieces = Vec::with_capacity(blocks.len());
    for block in blocks {
        match str_of(block, "type").map(Wtf8::as_bytes) {
            Some(b"text") => {
                if let Some(text) = str_of(block, "text") {
                    pieces.push(Piece::Event(FormatEvent::TextDelta { delta: text.clone() }));
                }
            }
            Some(b"thinking") if !user => {
                if let Some(text) = str_of(block, "thinking") {
                    pieces.push(Piece::Event(FormatEvent::ReasoningDelta { delta: text.clone() }));
                }
                if let Some(signature) = str_of(block, "signature").filter(|s| !s.is_empty()) {
                    pieces.push(Piece::Event(FormatEvent::ReasoningEnd {
                        metadata: Some(signature_metadata(&Wtf8::from("anthropic"), signature)),
                    }));
                }
            }
            Some(b"tool_use") if !user => {
                if let (Some(id), Some(name)) = (str_of(block, "id"), str_of(block, "name")) {
                    pieces.push(Piece::Event(FormatEvent::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: block.get("input").cloned().unwrap_or(Json::Undefined),
                    }));
                }
            }
            Some(b"tool_result") => {
                if let Some(id) = str_of(block, "tool_use_id") {
                    pieces.push(Piece::Event(FormatEvent::ToolResult {
                        tool_call_id: id.clone(),
                        result: tool_result_value(block.get("content").cloned().unwrap_or(Json::Undefined)),
                        is_error: Json::Bool(is_true(block, "is_error")),
                    }));
                }
            }
            Some(b"image" | b"document") => pieces.extend(file_chunk(block).map(Piece::Chunk)),
            _ => {}
        }
    }
    (side, pieces)
}

/// Whether this version knows a line: a conversation line or a bookkeeping line.
pub fn is_known_line(line: &Json) -> bool {
    is_conversation_line(line) || is_bookkeeping_line(line)
}

/// The `claude` row of the table of formats.
pub const CLAUDE: super::registry::Format = super::registry::Format {
    name: "claude",
    summary: "a Claude Code transcript (~/.claude/projects/…/*.jsonl)",
    detect: |sniff, at| {
        sniff
            .line(at)
            .is_some_and(|line| is_transcript_line(line) || has_envelope(line))
    },
    // Session state and bookkeeping a newer version writes (`queue-operation`,
    // `permission-mode`, …) carry the session id; detection looks past them.
    near: |line| {
        (str_of(line, "type").is_some() && str_of(line, "sessionId").is_some())
            .then_some("lines with a sessionId as Claude Code writes, none of a type this version knows")
    },
    history: Some(crate::history::read_claude_history),
    stream: None,
    write: None,
};
