//! OpenCode's messages and parts (`packages/opencode/src/session/message-v2.ts`), as
//! OpenCode shows a session: a message's info and its parts become one of our messages.
//!
//! - a user message shows its text parts (not those OpenCode marks `synthetic`: texts it
//!   made for the model, such as a file's contents) and its files;
//! - an assistant message (one per model step) shows its reasoning as thinking (sealed
//!   once it ended), its texts, its tool parts as calls (consecutive ones one batch) with
//!   their input and `output`, or `error` as `isError` (a shell command's non-zero exit
//!   is a completed call, not an error), its files, and its `error` last;
//! - a call still `pending` or `running` in a message that is done (completed, failed,
//!   or followed by another) was interrupted: it is answered as OpenCode answers the
//!   model for it, `[Tool execution was interrupted]`, as an error, its meta saying
//!   `interrupted`; an aborted call (`metadata.interrupted`) is an error whose meta says so;
//! - step-start, step-finish, snapshot, patch, agent, subtask, retry and compaction parts
//!   show nothing by their kind and are counted; a compaction's summary (the assistant
//!   message marked `summary`) shows as a compaction chunk.

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, MessageRole, SystemChunkKind, ToolCallEntry};
use crate::reading::check::Skips;
use crate::reading::model_json::{FormatChunk, FormatMessage};

/// What OpenCode sends the model for a call left pending or running.
pub const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// Why a part is left out of the messages.
pub const SYNTHETIC: &str = "a text OpenCode made for the model (synthetic), not typed by the user";
pub const IGNORED: &str = "a text OpenCode keeps out of the model's context (ignored)";
pub const EMPTY_MESSAGE: &str = "a message with nothing to show (only step, snapshot or synthetic parts)";

/// One OpenCode message: its info (absent while only its parts are known, as in `opencode
/// run --format json`) and its parts, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub info: Option<Json>,
    pub parts: Vec<Json>,
    /// The chunks of a message given before the stream went on (a history loaded, then
    /// the server's events): its parts are not known, so it shows these, then the parts
    /// that come after.
    pub kept: Option<Vec<FormatChunk>>,
}

impl Entry {
    pub fn new(id: String) -> Self {
        Entry {
            id,
            info: None,
            parts: Vec::new(),
            kept: None,
        }
    }

    /// The message's role: its info's, else an assistant's (parts streamed alone are).
    pub fn role(&self) -> MessageRole {
        match self
            .info
            .as_ref()
            .and_then(|info| str_of(info, "role"))
            .map(Wtf8::as_bytes)
        {
            Some(b"user") => MessageRole::User,
            _ => MessageRole::Assistant,
        }
    }

    /// The part with this id.
    pub fn part_index(&self, id: &Wtf8) -> Option<usize> {
        self.parts.iter().position(|part| str_of(part, "id") == Some(id))
    }

    /// Puts `part` in place of the part with its id, or among the parts in id order
    /// (OpenCode's ids grow with time; a store orders parts by them).
    pub fn upsert_part(&mut self, part: Json) -> bool {
        let Some(id) = str_of(&part, "id").cloned() else {
            self.parts.push(part);
            return true;
        };
        if let Some(at) = self.part_index(&id) {
            self.parts[at] = part;
            return false;
        }
        let at = self
            .parts
            .iter()
            .rposition(|p| str_of(p, "id").is_none_or(|other| other.as_bytes() < id.as_bytes()))
            .map_or(0, |i| i + 1);
        self.parts.insert(at, part);
        true
    }
}

/// Counts a part the first time it is seen: the kinds that show nothing, and the texts
/// left out.
pub fn note_part(part: &Json, skips: &mut Skips) {
    let Some(kind) = str_of(part, "type") else {
        return skips.pass("part without a type");
    };
    match kind.as_bytes() {
        b"text" if is_true(part, "synthetic") => skips.leave_out(|| part_name(part), SYNTHETIC),
        b"text" if is_true(part, "ignored") => skips.leave_out(|| part_name(part), IGNORED),
        b"text" | b"reasoning" | b"tool" | b"file" => {}
        b"step-start" => skips.pass("step-start part"),
        b"step-finish" => skips.pass("step-finish part"),
        b"snapshot" => skips.pass("snapshot part"),
        b"patch" => skips.pass("patch part (files the step changed)"),
        b"agent" => skips.pass("agent part"),
        b"subtask" => skips.pass("subtask part (a sub-agent's task; its run is a child session)"),
        b"retry" => skips.pass("retry part (a model call retried)"),
        b"compaction" => skips.pass("compaction part (the request; the summary follows)"),
        _ => skips.pass("part of a type this version does not know"),
    }
}

fn part_name(part: &Json) -> String {
    match str_of(part, "id") {
        Some(id) => format!("part {id}"),
        None => "a part without an id".into(),
    }
}

fn is_true(value: &Json, key: &str) -> bool {
    matches!(value.get(key), Some(Json::Bool(true)))
}

/// Whether the message is done: completed, failed, or `later` (another message follows).
fn done(entry: &Entry, later: bool) -> bool {
    later
        || entry.info.as_ref().is_some_and(|info| {
            info.get("time")
                .is_some_and(|time| time.get("completed").is_some_and(|t| !matches!(t, Json::Null)))
                || info.get("error").is_some_and(|e| !matches!(e, Json::Null))
        })
}

/// The message as OpenCode shows it; `later`: a message follows it (a call it left open
/// was interrupted).
pub fn message_of(entry: &Entry, later: bool) -> FormatMessage {
    let role = entry.role();
    let info = entry.info.as_ref();
    let summary = role == MessageRole::Assistant && info.is_some_and(|info| is_true(info, "summary"));
    let done = done(entry, later);
    let mut chunks: Vec<FormatChunk> = entry.kept.clone().unwrap_or_default();
    for part in &entry.parts {
        let Some(kind) = str_of(part, "type") else {
            continue;
        };
        match kind.as_bytes() {
            b"text" => {
                if is_true(part, "synthetic") || is_true(part, "ignored") {
                    continue;
                }
                let Some(text) = str_of(part, "text").filter(|t| !t.is_empty()) else {
                    continue;
                };
                if summary {
                    chunks.push(Chunk::System {
                        kind: SystemChunkKind::Compaction,
                        text: text.clone(),
                    });
                } else {
                    chunks.push(Chunk::Text { text: text.clone() });
                }
            }
            b"reasoning" => {
                let Some(text) = str_of(part, "text") else {
                    continue;
                };
                let ended = part
                    .get("time")
                    .and_then(|time| time.get("end"))
                    .is_some_and(|end| !matches!(end, Json::Null));
                if text.is_empty() && !ended {
                    continue;
                }
                let metadata = ended.then(|| match part.get("metadata") {
                    Some(meta @ Json::Object(_)) => meta.clone(),
                    _ => Json::Object(Vec::new()),
                });
                chunks.push(Chunk::Thinking {
                    text: text.clone(),
                    metadata,
                });
            }
            b"tool" => {
                let Some(call) = call_of(part, done) else { continue };
                match chunks.last_mut() {
                    Some(Chunk::ToolBatch { calls }) => calls.push(call),
                    _ => chunks.push(Chunk::ToolBatch { calls: vec![call] }),
                }
            }
            b"file" => {
                if let Some(file) = file_of(part) {
                    chunks.push(file);
                }
            }
            _ => {}
        }
    }
    let error = info
        .and_then(|info| info.get("error"))
        .filter(|e| matches!(e, Json::Object(_)));
    if let Some(error) = error.filter(|_| entry.kept.is_none()) {
        chunks.push(error_of(error));
    }
    FormatMessage {
        id: entry.id.clone(),
        role,
        chunks,
    }
}

/// A tool part as a call: its id, tool, input, and its answer once it has one.
fn call_of(part: &Json, done: bool) -> Option<crate::model::ToolCallEntry<Wtf8, Json>> {
    let id = str_of(part, "callID").or_else(|| str_of(part, "id"))?.clone();
    let name = str_of(part, "tool").cloned().unwrap_or_default();
    let state = part.get("state");
    let status = state.and_then(|s| str_of(s, "status")).map(Wtf8::as_bytes);
    let input = state
        .and_then(|s| s.get("input"))
        .cloned()
        .unwrap_or(Json::Object(Vec::new()));
    let mut call = ToolCallEntry::new(id, name, input);
    let mut meta: Vec<(Wtf8, Json)> = Vec::new();
    if let Some(state) = state {
        for key in ["title", "metadata", "attachments"] {
            if let Some(value) = state.get(key).filter(|v| !matches!(v, Json::Null)) {
                meta.push((Wtf8::from(key), value.clone()));
            }
        }
    }
    match status {
        Some(b"completed") => {
            let output = state
                .and_then(|s| s.get("output"))
                .cloned()
                .unwrap_or(Json::string(""));
            call.result = Some((output, Json::Bool(false)));
        }
        Some(b"error") => {
            let error = state
                .and_then(|s| s.get("error"))
                .cloned()
                .unwrap_or(Json::string(""));
            call.result = Some((error, Json::Bool(true)));
            let aborted = state
                .and_then(|s| s.get("metadata"))
                .is_some_and(|m| is_true(m, "interrupted"));
            if aborted {
                meta.push((Wtf8::from("interrupted"), Json::Bool(true)));
            }
        }
        _ if done => {
            call.result = Some((Json::string(INTERRUPTED), Json::Bool(true)));
            meta.push((Wtf8::from("interrupted"), Json::Bool(true)));
        }
        _ => {
            if let Some(status) = status {
                meta.push((
                    Wtf8::from("status"),
                    Json::String(Wtf8::from_wtf8_unchecked(status.to_vec())),
                ));
            }
        }
    }
    if !meta.is_empty() {
        call.meta = Some(Json::Object(meta));
    }
    Some(call)
}

fn file_of(part: &Json) -> Option<FormatChunk> {
    let media_type = str_of(part, "mime")
        .cloned()
        .unwrap_or_else(|| Wtf8::from("application/octet-stream"));
    let url = str_of(part, "url").cloned();
    Some(Chunk::File {
        media_type,
        data: None,
        url,
        filename: str_of(part, "filename").cloned(),
    })
}

/// An assistant message's `error` (`{name, data}`): an abort as the turn cancelled, any
/// other as an error with its message (or name) and status code.
fn error_of(error: &Json) -> FormatChunk {
    let name = str_of(error, "name")
        .cloned()
        .unwrap_or_else(|| Wtf8::from("UnknownError"));
    let data = error.get("data");
    let message = data
        .and_then(|d| str_of(d, "message"))
        .filter(|m| !m.is_empty())
        .cloned()
        .unwrap_or_else(|| name.clone());
    if name == "MessageAbortedError" {
        return Chunk::System {
            kind: SystemChunkKind::Cancelled,
            text: message,
        };
    }
    Chunk::Error {
        message,
        status_code: data.and_then(|d| d.get("statusCode")).and_then(Json::as_f64),
    }
}

/// Every message of `entries` as OpenCode shows them, those with nothing to show left
/// out (counted).
pub fn messages_of(entries: &[Entry], skips: Option<&mut Skips>) -> Vec<FormatMessage> {
    let mut out = Vec::with_capacity(entries.len());
    let mut skips = skips;
    for (i, entry) in entries.iter().enumerate() {
        let message = message_of(entry, i + 1 < entries.len());
        if message.chunks.is_empty() {
            if let Some(skips) = skips.as_deref_mut() {
                skips.leave_out(|| format!("message {}", entry.id), EMPTY_MESSAGE);
            }
            continue;
        }
        out.push(message);
    }
    out
}
