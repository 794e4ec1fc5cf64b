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
//! - `tool_result` records put each `functionResponse` on its call: `result` the
//!   `response` as stored, `isError` when the record's `toolCallResult.status` is
//!   `error` or the response holds an `error`;
//! - `system` records: a `chat_compression` is a `system` message with a `compaction`
//!   chunk (the summary the compressed history starts with); a `slash_command`
//!   invocation and records with a `displayText` are `notice`s; telemetry
//!   (`ui_telemetry`) and session bookkeeping are skipped; subtypes this version does
//!   not know are counted in [`Skipped::unknown`].

use std::collections::HashMap;

use crate::model::{Chunk, MessageRole, SystemChunkKind};

use super::model_json::{FormatEvent, FormatMessage};
use super::stored::StoredMessages;
use super::value::Json;
use super::wtf8::Wtf8;

pub use super::claude::Skipped;

/// The tag around the context a UserPromptSubmit hook adds to a prompt.
pub const CONTEXT_OPEN: &str = "<qwen:user-prompt-submit-context>";
pub const CONTEXT_CLOSE: &str = "</qwen:user-prompt-submit-context>";

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

fn str_of<'a>(value: &'a Json, key: &str) -> Option<&'a Wtf8> {
    value.get(key).and_then(Json::as_str)
}

fn is_true(value: &Json, key: &str) -> bool {
    matches!(value.get(key), Some(Json::Bool(true)))
}

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

/// The records of the conversation, in order.
pub fn chain(lines: &[Json], skipped: &mut Skipped) -> Vec<usize> {
    let mut by_uuid: HashMap<&Wtf8, usize> = HashMap::new();
    let mut records = 0;
    for (i, line) in lines.iter().enumerate() {
        match str_of(line, "uuid") {
            Some(uuid) if str_of(line, "type").is_some() => {
                records += 1;
                by_uuid.insert(uuid, i);
            }
            _ => skipped.unknown += 1,
        }
    }
    let is_record = |l: &Json| str_of(l, "uuid").is_some() && str_of(l, "type").is_some();
    let leaf = lines
        .iter()
        .rposition(|l| is_record(l) && !is_true(l, "isSidechain"))
        .or_else(|| lines.iter().rposition(is_record));
    let mut order = Vec::new();
    let mut seen = vec![false; lines.len()];
    let mut next = leaf;
    while let Some(i) = next {
        if std::mem::replace(&mut seen[i], true) {
            break; // a cycle of parents: each record once
        }
        order.push(i);
        next = str_of(&lines[i], "parentUuid").and_then(|p| by_uuid.get(p).copied());
    }
    order.reverse();
    skipped.off_chain += records - order.len();
    order
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

/// Whether a text, trimmed, is exactly a user-prompt-submit context block.
pub fn is_context_text(text: &str) -> bool {
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let (Some(rest), true) = (
        text.strip_prefix(CONTEXT_OPEN).and_then(|r| r.strip_prefix('\n')),
        text.ends_with(&format!("\n{CONTEXT_CLOSE}")),
    ) else {
        return false;
    };
    let Some(body) = rest
        .strip_suffix(CONTEXT_CLOSE)
        .and_then(|b| b.strip_suffix('\n'))
    else {
        return false;
    };
    !body.contains(CONTEXT_OPEN) && !body.contains(CONTEXT_CLOSE)
}

/// What Qwen's transcript view shows of a user record's text: `displayText` when the
/// record's `systemPayload` has it with its `hookContext`; else the parts' texts joined,
/// a final context part left out when there is no `systemPayload`. `None` without parts.
pub fn user_display_text(record: &Json) -> Option<Wtf8> {
    let payload = record
        .get("systemPayload")
        .filter(|p| matches!(p, Json::Object(_)));
    if let Some(payload) = payload {
        if let (Some(Json::String(_)), Some(Json::String(display))) =
            (payload.get("hookContext"), payload.get("displayText"))
        {
            return Some(display.clone());
        }
    }
    let parts = parts(record);
    if parts.is_empty() {
        return None;
    }
    let visible = if record.get("systemPayload").is_none()
        && parts.len() > 1
        && is_context_part(&parts[parts.len() - 1])
    {
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

/// Folds the records of a conversation, in order, into messages.
#[derive(Debug, Default)]
pub struct Recording {
    stored: StoredMessages,
    pub skipped: Skipped,
}

impl Recording {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn record(&mut self, record: &Json) {
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
            Some(b"tool_result") => {
                let status_error = record
                    .get("toolCallResult")
                    .and_then(|r| str_of(r, "status"))
                    .is_some_and(|s| *s == "error");
                for part in parts(record) {
                    let Some(response) = part.get("functionResponse") else {
                        continue;
                    };
                    let Some(id) = str_of(response, "id") else {
                        self.skipped.orphan_results += 1;
                        continue;
                    };
                    let result = response.get("response").cloned().unwrap_or(Json::Undefined);
                    let is_error = status_error || result.get("error").is_some();
                    if !self.stored.set_result(id, Some((result, Json::Bool(is_error)))) {
                        self.skipped.orphan_results += 1;
                    }
                }
            }
            Some(b"system") => self.system(record, &uuid),
            _ => self.skipped.unknown += 1,
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
            _ => match payload.and_then(|p| str_of(p, "displayText")) {
                Some(text) => notice(self, SystemChunkKind::Notice, text.clone()),
                None => {
                    let known = subtype.is_some_and(|s| BOOKKEEPING.iter().any(|b| s == b));
                    if !known {
                        self.skipped.unknown += 1;
                    }
                }
            },
        }
    }
}

/// A recording's lines (parsed), read as the conversation to its last record.
pub fn read_lines(lines: &[Json], mut emit: impl FnMut(FormatMessage) -> bool) -> Skipped {
    let mut skipped = Skipped::default();
    let order = chain(lines, &mut skipped);
    let mut recording = Recording::new();
    recording.skipped = skipped;
    for i in order {
        recording.record(&lines[i]);
        if !recording.stored.hand_on(&mut emit) {
            return recording.skipped;
        }
    }
    let skipped = recording.skipped;
    recording.stored.finish(&mut emit);
    skipped
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

/// The `qwen` row of the table of formats.
pub const QWEN: super::registry::Format = super::registry::Format {
    name: "qwen",
    summary: "a Qwen Code chat recording (ChatRecord JSONL)",
    detect: |sniff, at| sniff.line(at).is_some_and(is_record),
    near: super::registry::near_nothing,
    history: Some(crate::history::read_qwen_history),
    stream: None,
    write: None,
};
