//! Qwen Code chat recordings: the JSONL file of `ChatRecord`s Qwen Code writes per
//! session (`~/.qwen/projects/<project>/chats/<session>.jsonl`).
//!
//! Records are chained by `uuid` / `parentUuid` (a rewind re-roots the chain, leaving the
//! records after it on a dead branch); the conversation is the chain to the last record
//! that is not a sub-agent's (`isSidechain`). Each record's `message` is a Gemini
//! `Content` (`role`, `parts`). On the chain:
//!
//! - `user` records make `user` messages: the text the user typed, as Qwen's own
//!   transcript view shows it (`systemPayload.displayText` when the record carries the
//!   hook context it replaced, else the parts' texts without a trailing
//!   user-prompt-submit context part), `inlineData` / `fileData` parts as `file` chunks;
//! - each `assistant` record is one `assistant` message: parts with `thought: true` are
//!   thinking chunks (sealed with `{ gemini: { signature } }` when the part has a
//!   `thoughtSignature`), other text parts text, `functionCall` parts calls (`id`,
//!   `name`, `args`), `inlineData` parts files;
//! - `tool_result` records put each `functionResponse` on its call (named by its `id`;
//!   else by the record's `toolCallResult.callId`, then its `uuid`, as Qwen Code's own
//!   replay and export name a result; a response without an id also by its `name`, as a
//!   call without one is named): `result` the text Qwen Code shows of it, computed from
//!   the record's parts and its `toolCallResult` by the rule its `stream-json` output
//!   gives a result with ([`result`](super::result): a shell command's output from its
//!   display, an error's text, else the responses' `output`), so that the recording of a
//!   run reads as its stream does; `isError` as that output says it (the record's
//!   `toolCallResult.error`, or an `error` in a response). Qwen Code writes a record per
//!   call; a record that answers several calls gives each the text of its own responses,
//!   the `toolCallResult` to the call its `callId` names (with no response of its own in
//!   the record too; to the only call answered when the `callId` names no call; to none,
//!   counted in [`Skips::left_out`], when it names none of several). A call answered by
//!   a later record again shows the last result, as Qwen Code's stream and resume do,
//!   while its message is read (a call of it still unanswered); after, the later one is
//!   left out. Either way the result not shown is counted;
//! - `system` records: a `chat_compression` is a `system` message with a `compaction`
//!   chunk (the summary the compressed history starts with); a `slash_command`
//!   invocation and records with a `displayText` are `notice`s; telemetry
//!   (`ui_telemetry`) and session bookkeeping are counted by subtype in
//!   [`Skips::kinds`]; subtypes this version does not know are skipped and counted.
//!
//! A `chat_compression` replaces what came before it in the model's context, but not on
//! the screen: Qwen Code's resume shows every record of the chain, the compressed part
//! too. So [`View::Resumed`] (the default) and [`View::Transcript`] both read the whole
//! chain, the compression a `compaction` chunk where it was made; [`View::All`] reads
//! every record in file order. Records off the chain are counted in [`Skips::left_out`]
//! by reason.

use std::collections::HashMap;

use crate::model::{Chunk, MessageRole, SystemChunkKind};

use crate::bytes::value::{is_true, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::Skips;
use crate::reading::check::ORPHAN_RESULT;
use crate::reading::format::View;
use crate::reading::hook_context::is_context_text;
use crate::reading::line_tree::{fold_in_order, is_sidechain, LeftOutLines, LineFold, Tree};
use crate::reading::model_json::{FormatEvent, FormatMessage};
use crate::reading::stored::StoredMessages;

use super::result::Response;

/// Why a `toolCallResult` is left out: its record answers several calls and its `callId`
/// names none of them.
pub const UNPLACED_CALL_RESULT: &str =
    "a toolCallResult whose callId names none of the calls its record answers";

/// Why a tool result is left out: its call was answered again. While the call's message
/// is read the later result replaces it; after, the later one is the one left out.
pub const REPEATED_RESULT: &str = "a result of a call answered more than once (one is shown)";

/// System subtypes that are session bookkeeping, not conversation.
const BOOKKEEPING: [&str; 26] = [
    "ui_telemetry",
    "session_notes",
    "at_command",
    "attribution_snapshot",
    "custom_title",
    "parent_session",
    "session_source",
    "session_execution_engine",
    "omni_recall",
    "session_model",
    "session_approval_mode",
    "rewind",
    "agent_bootstrap",
    "agent_launch_prompt",
    "agent_retry",
    "agent_session_ready",
    "file_history_snapshot",
    "user_text_elements",
    "session_artifact_event",
    "session_artifact_snapshot",
    "session_sources_snapshot",
    "branch_checkpoint",
    "goal_state",
    "goal_runtime",
    "goal_turn_end",
    "turn_result",
];

const TYPES: [&str; 4] = ["user", "assistant", "tool_result", "system"];

/// Whether a line is a `ChatRecord` (for detection and the chain).
pub fn is_record(line: &Json) -> bool {
    str_of(line, "type").is_some_and(|ty| TYPES.iter().any(|t| ty == t))
        && str_of(line, "uuid").is_some()
        && line.get("parentUuid").is_some()
        && str_of(line, "sessionId").is_some()
        && (line.get("message").is_some_and(|m| m.get("parts").is_some())
            || str_of(line, "type").is_some_and(|t| *t == "system"))
}

/// A line with a `uuid` and a `type`: a link of the chain.
fn is_linked(line: &Json) -> bool {
    str_of(line, "uuid").is_some() && str_of(line, "type").is_some()
}

/// The records of the conversation in `view`, in order; the records left out are
/// counted in `skips`, `numbers[i]` naming line `i`.
pub fn conversation(lines: &[Json], numbers: &[usize], view: View, skips: &mut Skips) -> Vec<usize> {
    let n = lines.len();
    if view == View::All {
        return (0..n).filter(|&i| is_linked(&lines[i])).collect();
    }
    let tree = Tree::new(lines, is_linked);
    let leaf = lines
        .iter()
        .rposition(|l| is_linked(l) && !is_sidechain(l))
        .or_else(|| lines.iter().rposition(is_linked));
    let chain = leaf.map(|leaf| tree.chain(leaf, true)).unwrap_or_default();
    // Nothing of the chain is left out for a compression (see the module's comment).
    let mut full = vec![false; n];
    for &i in &chain {
        full[i] = true;
    }
    let shown = full.clone();
    let left_out = LeftOutLines {
        tree: &tree,
        shown: &shown,
        full: &full,
        leaf,
    };
    left_out.report(
        view,
        is_linked,
        |i| {
            let number = numbers.get(i).copied().unwrap_or(i + 1);
            match str_of(&lines[i], "uuid") {
                Some(uuid) => format!("line {number} (uuid \"{uuid}\")"),
                None => format!("line {number}"),
            }
        },
        skips,
    );
    chain
}

fn parts(record: &Json) -> &[Json] {
    match record.get("message").and_then(|m| m.get("parts")) {
        Some(Json::Array(parts)) => parts,
        _ => &[],
    }
}

/// A part that is exactly a user-prompt-submit context block (tag lines around a body
/// without tags), as Qwen's transcript view recognises it.
pub fn is_context_part(part: &Json) -> bool {
    str_of(part, "text")
        .map(|text| is_context_text(&text.to_string_lossy()))
        .unwrap_or(false)
}

/// What Qwen's transcript view shows of a user record's text (`projectUserTranscriptForDisplay`
/// in its core's `transcript-records.ts`, as its webui's `userTranscriptDisplay.ts`):
/// `displayText` when the record's `systemPayload` proves where it came from (the
/// `hookContext` it replaced, or a final part that is a user-prompt-submit context block);
/// else the parts' texts joined, such a final part left out when there is no payload object
/// (none, `null`, or a value that is no object). `None` without parts.
pub fn user_display_text(record: &Json) -> Option<Wtf8> {
    let parts = parts(record);
    let final_context = parts.len() > 1 && is_context_part(&parts[parts.len() - 1]);
    let payload = record
        .get("systemPayload")
        .filter(|p| matches!(p, Json::Object(_)));
    if let Some(payload) = payload {
        if let Some(Json::String(display)) = payload.get("displayText") {
            if matches!(payload.get("hookContext"), Some(Json::String(_))) || final_context {
                return Some(display.clone());
            }
        }
    }
    if parts.is_empty() {
        return None;
    }
    let visible = if payload.is_none() && final_context {
        &parts[..parts.len() - 1]
    } else {
        parts
    };
    let mut text = Wtf8::new();
    for part in visible {
        if let Some(t) = str_of(part, "text") {
            text.push_wtf8(t.as_bytes());
        }
    }
    Some(text)
}

fn file_chunk(part: &Json) -> Option<Chunk<Wtf8, Json>> {
    if let Some(inline) = part.get("inlineData") {
        return Some(Chunk::File {
            media_type: str_of(inline, "mimeType")
                .cloned()
                .unwrap_or_else(|| Wtf8::from("application/octet-stream")),
            data: str_of(inline, "data").cloned(),
            url: None,
            filename: str_of(inline, "displayName").cloned(),
        });
    }
    let file = part.get("fileData")?;
    Some(Chunk::File {
        media_type: str_of(file, "mimeType")
            .cloned()
            .unwrap_or_else(|| Wtf8::from("application/octet-stream")),
        data: None,
        url: str_of(file, "fileUri").cloned(),
        filename: str_of(file, "displayName").cloned(),
    })
}

/// Where call `id` is in `calls`, added at the end when it is not there yet.
fn answer<'a>(calls: &mut Vec<&'a Wtf8>, at: &mut HashMap<&'a Wtf8, usize>, id: &'a Wtf8) -> usize {
    *at.entry(id).or_insert_with(|| {
        calls.push(id);
        calls.len() - 1
    })
}

/// Folds the records of a conversation, in order, into messages.
#[derive(Debug, Default)]
pub struct Recording {
    stored: StoredMessages,
    pub skips: Skips,
}

impl Recording {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds the record of line `number` in.
    pub fn record(&mut self, record: &Json, number: usize) {
        let uuid = str_of(record, "uuid")
            .map(|u| u.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fallback = || uuid.clone();
        match str_of(record, "type").map(Wtf8::as_bytes) {
            Some(b"user") => {
                self.stored.start(MessageRole::User, Some(&uuid), fallback);
                if let Some(text) = user_display_text(record).filter(|t| !t.is_empty()) {
                    self.stored.event(FormatEvent::TextDelta { delta: text });
                }
                for part in parts(record) {
                    if let Some(file) = file_chunk(part) {
                        self.stored.push(file);
                    }
                }
                self.stored.close();
            }
            Some(b"assistant") => {
                self.stored.start(MessageRole::Assistant, Some(&uuid), fallback);
                for part in parts(record) {
                    self.assistant_part(part);
                }
                self.stored.close();
            }
            Some(b"tool_result") => self.tool_result(record, number),
            Some(b"system") => self.system(record, &uuid),
            // Counted when the lines were read ([`is_known_record`]).
            _ => {}
        }
    }

    /// A `tool_result` record: each call it answers gets its result as Qwen Code shows it
    /// ([`result`](super::result)).
    fn tool_result(&mut self, record: &Json, number: usize) {
        let call_result = record.get("toolCallResult");
        let call_id = call_result.and_then(|r| str_of(r, "callId"));
        let parts = parts(record);
        // The calls answered, in order (and where each is in that order), and the call
        // each part belongs to: a response's own; another part (Qwen Code writes none
        // beside its response) the first call's.
        let mut calls: Vec<&Wtf8> = Vec::new();
        let mut at: HashMap<&Wtf8, usize> = HashMap::new();
        let mut owners: Vec<Option<usize>> = Vec::with_capacity(parts.len());
        // Whether a response of the record was counted as a result without its call (the
        // rest of such a record is not counted again).
        let mut orphaned = false;
        for part in parts {
            let Some(response) = part.get("functionResponse") else {
                owners.push(Some(0));
                continue;
            };
            // The call it answers: its own id; else the record's `callId`, and the
            // record's uuid, as Qwen Code's replay and export name a result; else the
            // name, as a call without an id is named.
            let own = str_of(response, "id");
            let candidates = [
                own,
                call_id,
                str_of(record, "uuid"),
                str_of(response, "name").filter(|_| own.is_none()),
            ];
            let found = candidates
                .into_iter()
                .flatten()
                .find(|id| self.stored.has_call(id));
            let Some(id) = found else {
                let named = own
                    .or(call_id)
                    .map(|id| format!(" (functionResponse id \"{id}\")"));
                self.skips.leave_out(
                    || format!("line {number}{}", named.unwrap_or_default()),
                    ORPHAN_RESULT,
                );
                orphaned = true;
                owners.push(None);
                continue;
            };
            owners.push(Some(answer(&mut calls, &mut at, id)));
        }
        // The `toolCallResult` is of the call its `callId` names, with or without a
        // response of its own in the record (Qwen Code's stream gives it a result, without
        // content when nothing shows); when it names no call, of the only one answered.
        let described = match call_id.filter(|id| self.stored.has_call(id)) {
            Some(id) => Some(answer(&mut calls, &mut at, id)),
            None if calls.len() == 1 => Some(0),
            None => None,
        };
        let mut orphan = |skips: &mut Skips| {
            if !std::mem::replace(&mut orphaned, true) {
                let named = call_id.map(|id| format!(" (callId \"{id}\")"));
                skips.leave_out(
                    || format!("line {number}{}", named.unwrap_or_default()),
                    ORPHAN_RESULT,
                );
            }
        };
        if described.is_none() && call_result.is_some() {
            // Several calls answered and none named, or none at all: the text it would
            // give is not shown.
            if calls.is_empty() {
                orphan(&mut self.skips);
            } else {
                let named = call_id.map(|id| format!(" (callId \"{id}\")"));
                self.skips.leave_out(
                    || format!("line {number}{}", named.unwrap_or_default()),
                    UNPLACED_CALL_RESULT,
                );
            }
        }
        let mut own: Vec<Vec<&Json>> = vec![Vec::new(); calls.len()];
        for (part, owner) in parts.iter().zip(&owners) {
            match owner.and_then(|o| own.get_mut(o)) {
                Some(list) => list.push(part),
                // Not a response, in a record answering no call.
                None if owner.is_some() => orphan(&mut self.skips),
                None => {}
            }
        }
        for (i, (id, own)) in calls.into_iter().zip(own).enumerate() {
            let response = Response {
                parts: &own,
                call_result: call_result.filter(|_| described == Some(i)),
            };
            let (result, is_error) = response.shown();
            // A call answered again: the last result is shown, as Qwen Code's stream and
            // resume show it, while the call's message is still read; the one not shown
            // is counted.
            let answered = self.stored.call_mut(id).map(|call| call.result.is_some());
            if answered != Some(false) {
                self.skips
                    .leave_out(|| format!("line {number} (callId \"{id}\")"), REPEATED_RESULT);
            }
            self.stored.set_result(id, Some((result, Json::Bool(is_error))));
        }
    }

    fn assistant_part(&mut self, part: &Json) {
        if let Some(call) = part.get("functionCall") {
            let Some(name) = str_of(call, "name") else { return };
            // Gemini may leave a call without an id; its response then has none either.
            let id = str_of(call, "id").cloned().unwrap_or_else(|| name.clone());
            let args = call.get("args").cloned().unwrap_or(Json::Undefined);
            self.stored.call(id, name.clone(), args);
            return;
        }
        if let Some(text) = str_of(part, "text") {
            if is_true(part, "thought") {
                self.stored.push(Chunk::Thinking {
                    text: text.clone(),
                    metadata: str_of(part, "thoughtSignature").map(|s| {
                        Json::Object(vec![(
                            Wtf8::from("gemini"),
                            Json::object([("signature", Json::String(s.clone()))]),
                        )])
                    }),
                });
            } else {
                self.stored.event(FormatEvent::TextDelta { delta: text.clone() });
            }
            return;
        }
        if let Some(file) = file_chunk(part) {
            self.stored.push(file);
        }
    }

    fn system(&mut self, record: &Json, uuid: &str) {
        let subtype = str_of(record, "subtype");
        let payload = record.get("systemPayload");
        let notice = |this: &mut Self, kind, text: Wtf8| {
            this.stored
                .start(MessageRole::System, Some(uuid), || uuid.to_string());
            this.stored.push(Chunk::System { kind, text });
            this.stored.close();
        };
        match subtype.map(Wtf8::as_bytes) {
            Some(b"chat_compression") => {
                let summary = payload
                    .and_then(|p| p.get("compressedHistory"))
                    .and_then(|h| match h {
                        Json::Array(items) => items.first(),
                        _ => None,
                    })
                    .map(|content| {
                        let mut text = Wtf8::new();
                        for part in parts(&Json::object([("message", content.clone())])) {
                            if let Some(t) = str_of(part, "text") {
                                text.push_wtf8(t.as_bytes());
                            }
                        }
                        text
                    })
                    .unwrap_or_default();
                notice(self, SystemChunkKind::Compaction, summary);
            }
            Some(b"slash_command") => {
                let invocation = payload
                    .and_then(|p| str_of(p, "phase"))
                    .is_some_and(|p| *p == "invocation");
                match payload.and_then(|p| str_of(p, "rawCommand")) {
                    Some(command) if invocation => notice(self, SystemChunkKind::Notice, command.clone()),
                    _ => {}
                }
            }
            // Bookkeeping and unknown subtypes without a text are counted when the lines
            // were read ([`is_known_record`], [`bookkeeping_kind`]).
            _ => {
                if let Some(text) = payload.and_then(|p| str_of(p, "displayText")) {
                    notice(self, SystemChunkKind::Notice, text.clone());
                }
            }
        }
    }
}

/// A recording's lines (parsed), `numbers[i]` the line number of `lines[i]`, read as
/// the conversation in `view`; what was left out is counted in the result.
pub fn read_lines(
    lines: &[Json],
    numbers: &[usize],
    view: View,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Skips {
    let mut skips = Skips::default();
    let order = conversation(lines, numbers, view, &mut skips);
    let mut recording = Recording::new();
    recording.skips = skips;
    fold_in_order(lines, numbers, order, &mut recording, &mut emit)
}

impl LineFold for Recording {
    fn read_line(&mut self, line: &Json, number: usize) {
        self.record(line, number)
    }

    fn parts(&mut self) -> (&mut StoredMessages, &mut Skips) {
        (&mut self.stored, &mut self.skips)
    }
}

/// The kind a known record that shows nothing is counted as (its subtype), if it is one.
pub fn bookkeeping_kind(line: &Json) -> Option<&Wtf8> {
    if str_of(line, "type").is_some_and(|t| *t == "system")
        && line
            .get("systemPayload")
            .and_then(|p| str_of(p, "displayText"))
            .is_none()
    {
        return str_of(line, "subtype").filter(|s| BOOKKEEPING.iter().any(|b| *s == b));
    }
    None
}

/// Whether this version knows a record: the four types, a system record of a known
/// subtype (or one with a `displayText`).
pub fn is_known_record(line: &Json) -> bool {
    match str_of(line, "type").map(Wtf8::as_bytes) {
        Some(b"user" | b"assistant" | b"tool_result") => true,
        Some(b"system") => {
            let subtype = str_of(line, "subtype");
            subtype.is_some_and(|s| {
                BOOKKEEPING.iter().any(|b| s == b) || *s == "chat_compression" || *s == "slash_command"
            }) || line
                .get("systemPayload")
                .and_then(|p| str_of(p, "displayText"))
                .is_some()
        }
        _ => false,
    }
}
