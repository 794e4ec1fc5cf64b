//! Claude Code transcripts: the JSONL file Claude Code writes per session under
//! `~/.claude/projects/<project>/<session>.jsonl` (and `agent-<id>.jsonl` for a
//! sub-agent's own run).
//!
//! Each conversation line has a `uuid` and the `parentUuid` of the line before it; the
//! conversation is the chain from the last conversation line back to the root, as
//! Claude Code rebuilds it when a session is resumed. A compaction starts a new root
//! (`compact_boundary`, its `logicalParentUuid` the line before): resumed, the
//! conversation starts there ([`View::Resumed`]); the whole transcript goes on through it
//! ([`View::Transcript`]). Lines off that chain (an abandoned branch, a sub-agent's
//! `isSidechain` lines, lines whose parent is not in the file) are left out and counted
//! by reason ([`Skips::left_out`]); [`View::All`] reads every line in file order.
//!
//! Claude Code stores one API response as several `assistant` lines, one content block
//! each, all with the same `message.id`, chained one after the other; each `tool_result`
//! line hangs off the `tool_use` line it answers (`parentUuid`, and in 2.1
//! `sourceToolAssistantUUID`), so parallel calls make a fork and the chain passes through
//! only one of its results, or only some of the response's lines. A response is ONE
//! message with all its calls: every line of a response on the chain is read, and every
//! result line hanging off one of them (as Claude Code recovers them on resume). On the
//! chain:
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
//!   the other bookkeeping lines Claude Code 2.x writes (`queue-operation`,
//!   `permission-mode`, `attachment`, `ai-title`, `last-prompt`, `progress`, …) are not
//!   conversation lines: counted by type in [`Skips::kinds`]; lines of a type this
//!   version does not know are skipped and counted ([`Skips::skip`]).

use std::collections::HashSet;

use crate::model::{Chunk, MessageRole, SystemChunkKind};

use crate::bytes::value::{is_true, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::formats::claude::blocks::{assistant_block, error_block, user_block, Added, UserAdded};
use crate::reading::blocks::{blocks, is_bookkeeping_line, plain_text, BOOKKEEPING};
use crate::reading::check::Skips;
use crate::reading::check::{NO_TOOL_USE_ID, ORPHAN_RESULT};
use crate::reading::format::View;
use crate::reading::line_tree::{fold_in_order, is_sidechain, LeftOutLines, LineFold, Tree};
use crate::reading::model_json::{FormatEvent, FormatMessage};
use crate::reading::stored::StoredMessages;

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
pub fn has_envelope(line: &Json) -> bool {
    let tree = str_of(line, "type").is_some()
        && str_of(line, "uuid").is_some()
        && line.get("parentUuid").is_some()
        && str_of(line, "sessionId").is_some();
    tree && !gemini_content(line)
        && (line.get("isSidechain").is_some()
            || line.get("userType").is_some()
            || line.get("message").is_some_and(|m| m.get("content").is_some()))
}

/// The line's `message` is a Gemini `Content` (`parts`), as Qwen Code's records hold,
/// sub-agents' marked `isSidechain` too: never a Claude Code line.
fn gemini_content(line: &Json) -> bool {
    line.get("message").is_some_and(|m| m.get("parts").is_some())
}

/// What a `user` or `assistant` line whose `message` holds no `content` is counted as.
const NO_CONTENT: &str = "a line whose message has no content (a string or content blocks)";

/// Whether a message's `content` is one Claude Code writes: a string or content blocks.
fn holds_content(content: Option<&Json>) -> bool {
    matches!(content, Some(Json::String(_) | Json::Array(_)))
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
                && !gemini_content(line)
                && (line.get("isSidechain").is_some() || line.get("userType").is_some())
        }
        _ => false,
    }
}

/// The API response an `assistant` line is a part of (`message.id`).
fn response_of(line: &Json) -> Option<&Wtf8> {
    if str_of(line, "type").is_none_or(|t| *t != "assistant") {
        return None;
    }
    line.get("message").and_then(|m| str_of(m, "id"))
}

/// Whether a `user` line holds tool results.
fn has_results(line: &Json) -> bool {
    str_of(line, "type").is_some_and(|t| *t == "user")
        && blocks(line.get("message").and_then(|m| m.get("content")))
            .iter()
            .any(|b| str_of(b, "type").is_some_and(|t| *t == "tool_result"))
}

/// The lines of the conversation in `view`, in file order (a line is written after its
/// parent, so this is the chain's order); the conversation lines left out are counted
/// in `skips`, `numbers[i]` naming line `i`.
pub fn conversation(lines: &[Json], numbers: &[usize], view: View, skips: &mut Skips) -> Vec<usize> {
    let n = lines.len();
    if view == View::All {
        return (0..n).filter(|&i| is_conversation_line(&lines[i])).collect();
    }
    // Any line with a uuid can be a link of the chain (progress lines are).
    let tree = Tree::new(lines, |line| str_of(line, "type").is_some());
    let leaf = lines
        .iter()
        .rposition(|l| is_conversation_line(l) && !is_sidechain(l))
        .or_else(|| lines.iter().rposition(is_conversation_line));
    let mut shown = vec![false; n];
    let mut full = vec![false; n];
    if let Some(leaf) = leaf {
        for i in tree.chain(leaf, true) {
            full[i] = true;
        }
        for i in tree.chain(leaf, view == View::Transcript) {
            shown[i] = true;
        }
    }
    // Every line of a response the chain passes through, and the results hanging off
    // any of them.
    let responses: HashSet<&Wtf8> = (0..n)
        .filter(|&i| shown[i])
        .filter_map(|i| response_of(&lines[i]))
        .collect();
    for (i, line) in lines.iter().enumerate() {
        if !shown[i] && response_of(line).is_some_and(|r| responses.contains(r)) {
            shown[i] = true;
        }
    }
    for (i, line) in lines.iter().enumerate() {
        if shown[i] || !has_results(line) {
            continue;
        }
        let source = str_of(line, "sourceToolAssistantUUID").and_then(|u| tree.find(u));
        if tree
            .parent(i)
            .into_iter()
            .chain(source)
            .any(|p| shown[p] && response_of(&lines[p]).is_some())
        {
            shown[i] = true;
        }
    }
    let left_out = LeftOutLines {
        tree: &tree,
        shown: &shown,
        full: &full,
        leaf,
    };
    left_out.report(view, is_conversation_line, |i| named(lines, numbers, i), skips);
    (0..n)
        .filter(|&i| shown[i] && is_conversation_line(&lines[i]))
        .collect()
}

/// `line 12 (uuid "…")`.
fn named(lines: &[Json], numbers: &[usize], i: usize) -> String {
    let number = numbers.get(i).copied().unwrap_or(i + 1);
    match str_of(&lines[i], "uuid") {
        Some(uuid) => format!("line {number} (uuid \"{uuid}\")"),
        None => format!("line {number}"),
    }
}

/// Folds the lines of a conversation, in order, into messages.
#[derive(Debug, Default)]
pub struct Transcript {
    stored: StoredMessages,
    /// The `message.id` of the open assistant message.
    open_response: Option<Wtf8>,
    pub skips: Skips,
}

impl Transcript {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds line `number` in.
    pub fn line(&mut self, line: &Json, number: usize) {
        let uuid = str_of(line, "uuid")
            .map(|u| u.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fallback = || uuid.clone();
        let message = line.get("message");
        match str_of(line, "type").map(Wtf8::as_bytes) {
            Some(b"user") => {
                if is_true(line, "isMeta") {
                    self.skips.pass("isMeta (context for the model, not shown)");
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
                self.user(content, &uuid, number);
            }
            Some(b"assistant") => {
                let Some(message) = message.filter(|m| holds_content(m.get("content"))) else {
                    return self.unplaced(number, NO_CONTENT);
                };
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
                        if let Some(chunk) = error_block(block) {
                            self.stored.push(chunk);
                        }
                    } else {
                        self.assistant_block(block, number);
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

    fn user(&mut self, content: Option<&Json>, uuid: &str, number: usize) {
        if !holds_content(content) {
            return self.unplaced(number, NO_CONTENT);
        }
        let fallback = || uuid.to_string();
        if let Some(Json::String(text)) = content {
            self.stored.start(MessageRole::User, Some(uuid), fallback);
            self.stored.event(FormatEvent::TextDelta { delta: text.clone() });
            self.stored.close();
            return;
        }
        let mut started = false;
        for block in blocks(content) {
            let added = user_block(block);
            if added.is_users() && !started {
                self.stored.start(MessageRole::User, Some(uuid), fallback);
                started = true;
            }
            match added {
                UserAdded::Result { id, result, is_error } => {
                    if !self.stored.set_result(&id, Some((result, Json::Bool(is_error)))) {
                        self.skips
                            .leave_out(|| format!("line {number} (tool_use_id \"{id}\")"), ORPHAN_RESULT);
                    }
                }
                UserAdded::NoCall => self.unplaced(number, NO_TOOL_USE_ID),
                UserAdded::Text(text) => self.stored.event(FormatEvent::TextDelta { delta: text }),
                UserAdded::Chunk(chunk) => self.stored.push(chunk),
                UserAdded::Unplaced(what) => self.unplaced(number, &what),
                UserAdded::Nothing => {}
            }
        }
        if started {
            self.stored.close();
        }
    }

    /// A content block that cannot be placed is skipped and counted by kind, never
    /// dropped without a word. (The transcript's own report is never strict: strict
    /// refuses lines, not the blocks of a line it reads.)
    fn unplaced(&mut self, number: usize, what: &str) {
        let _ = self.skips.skip(number, what);
    }

    fn assistant_block(&mut self, block: &Json, number: usize) {
        match assistant_block(block) {
            Added::Text(text) => self.stored.event(FormatEvent::TextDelta { delta: text }),
            Added::Chunk(chunk) => self.stored.push(chunk),
            Added::Call { id, name, input } => {
                self.stored.call(id, name, input);
            }
            Added::Unplaced(what) => self.unplaced(number, &what),
            Added::Nothing => {}
        }
    }

    pub fn hand_on(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        self.stored.hand_on(emit)
    }

    pub fn finish(self, emit: &mut impl FnMut(FormatMessage) -> bool) {
        self.stored.finish(emit)
    }
}

/// A transcript's lines (parsed), `numbers[i]` the line number of `lines[i]`, read as
/// the conversation in `view`; what was left out is counted in the result.
pub fn read_lines(
    lines: &[Json],
    numbers: &[usize],
    view: View,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Skips {
    let mut skips = Skips::default();
    let order = conversation(lines, numbers, view, &mut skips);
    let mut transcript = Transcript::new();
    transcript.skips = skips;
    fold_in_order(lines, numbers, order, &mut transcript, &mut emit)
}

impl LineFold for Transcript {
    fn read_line(&mut self, line: &Json, number: usize) {
        self.line(line, number)
    }

    fn parts(&mut self) -> (&mut StoredMessages, &mut Skips) {
        (&mut self.stored, &mut self.skips)
    }
}

/// The kind a known line that shows nothing is counted as (its type), if it is one.
pub fn bookkeeping_kind(line: &Json) -> Option<&Wtf8> {
    str_of(line, "type").filter(|ty| BOOKKEEPING.iter().any(|b| *ty == b))
}

/// Whether this version knows a line: a conversation line or a bookkeeping line.
pub fn is_known_line(line: &Json) -> bool {
    is_conversation_line(line) || is_bookkeeping_line(line)
}
