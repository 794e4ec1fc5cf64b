//! Pi / OpenClaw session files: what one stored message or entry is in the chunk model,
//! and the writer. The tree of entries and the path to a leaf are [`pi_tree`]'s; the live
//! streams are [`pi_stream`]'s.
//!
//! pi-mono's coding agent writes a session as JSONL: a header
//! (`{"type":"session","version":3,…}`; no version is version 1), then one entry per line.
//! Version 2 added `id` / `parentId` (the entries form a tree; the conversation is the
//! path from the root to a leaf); version 3 renamed the `hookMessage` role to `custom`.
//! Version 1 entries (no ids) chain in file order. Lines that are bare messages
//! (`{"role":"user",…}`, the seed's shorthand) chain the same way.
//!
//! Each stored message is its own [`ChatMessage`](crate::ChatMessage), id its entry's
//! `id` (`line-<n>` without one):
//!
//! | stored | message |
//! | --- | --- |
//! | `user` | `user`: `text` blocks → `text-delta`, `image` blocks → `file` chunks |
//! | `assistant` | `assistant`: `text` → `text-delta`; `thinking` → `reasoning-delta`, then `reasoning-end` with `{ [provider]: { signature } }` when it has a `thinkingSignature`; `toolCall` → `tool-call`; `stopReason` `error` / `aborted` → an `error` chunk at the end (`errorMessage`, as pi's UI words it without one) |
//! | `toolResult` | no message: `tool-result` on its call in the assistant message before it (joined text when every block is text, else the content as given) |
//! | `bashExecution` | `user`: one `tool-batch` call `bash` `{ command }` with its result `{ output, exitCode, cancelled, truncated, fullOutputPath }` as stored |
//! | `custom` (`hookMessage`), `custom_message` entry | `system` `custom` chunk when `display` is true, else nothing (pi hides it) |
//! | `compactionSummary`, `compaction` entry | `system` `compaction` chunk: the summary |
//! | `branchSummary`, `branch_summary` entry | `system` `branch-summary` chunk: the summary |
//! | `model_change` entry | `system` `model-changed` chunk: `provider/modelId` |
//! | `thinking_level_change` entry | `system` `thinking-level-changed` chunk: the level |
//! | `label`, `session_info`, `custom` entries | nothing (state, not conversation) |
//!
//! Entry types, roles and content blocks this version does not know are skipped and
//! counted ([`Skips`]); strict reading refuses them. So is a `thinking` block without
//! `thinking` (pi shows no thought for it); a `toolCall` without `id` and a `toolResult`
//! without `toolCallId`, which pi shows, are read with an empty id unless strict.

use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole, SystemChunkKind};
use crate::reducer::append_event;

use crate::bytes::value::{self, Json, ParseErrorKind};
use crate::bytes::wtf8::Wtf8;
use crate::reading::blocks::{signature_metadata, tool_result_value};
use crate::reading::check::{
    index, join, object, optional_string, string, wrong, FormatError, FormatResult, Skips,
};
use crate::reading::model_json::{FormatChunk, FormatEvent, FormatMessage};

pub use crate::formats::pi::gateway::gateway_events;
pub use crate::formats::pi::tree::{
    leaves, plan, read_lines, read_session, read_session_with, Leaf, Planner, SessionOptions, SessionReader,
};

/// The provider named in signatures when an assistant message names none.
pub const UNKNOWN_PROVIDER: &str = "unknown";

/// What pi's UI shows for an aborted request without a message of its own.
pub const ABORTED: &str = "Operation aborted";
/// What pi's UI shows for a failed request without a message.
pub const UNKNOWN_ERROR: &str = "Unknown error";

/// Parses a session line, building only what the reader reads.
pub fn parse_line(line: &[u8]) -> Result<Json, value::ParseError> {
    value::parse_keeping(line, read_member)
}

/// [`parse_line`] of a line already known to be UTF-8.
pub fn parse_str_line(line: &str) -> Result<Json, value::ParseError> {
    value::parse_keeping_str(line, read_member)
}

/// The error for a line that is not JSON; `is_last`: nothing but blank lines follows.
pub fn line_error(e: value::ParseError, number: usize, is_last: bool) -> FormatError {
    let problem = if e.kind == ParseErrorKind::Truncated && is_last {
        format!(
            "truncated JSON: the file ends inside this line (at column {})",
            e.offset + 1
        )
    } else {
        e.to_string()
    };
    FormatError::new("", problem).at_line(number)
}

/// The members of an entry and of its message that the reader reads; the rest (usage,
/// details, timestamps, …) is checked as JSON but not built.
fn read_member(depth: usize, key: &[u8]) -> bool {
    depth > 1
        || matches!(
            key,
            b"type"
                | b"id"
                | b"parentId"
                | b"version"
                | b"message"
                | b"role"
                | b"content"
                | b"provider"
                | b"toolCallId"
                | b"toolName"
                | b"isError"
                | b"stopReason"
                | b"errorMessage"
                | b"command"
                | b"output"
                | b"exitCode"
                | b"cancelled"
                | b"truncated"
                | b"fullOutputPath"
                | b"display"
                | b"summary"
                | b"firstKeptEntryId"
                | b"firstKeptEntryIndex"
                | b"modelId"
                | b"thinkingLevel"
        )
}

/// One stored message or entry, in the chunk model.
#[derive(Debug)]
pub enum Stored {
    /// A message of its own (user, system, bash execution, an assistant message).
    Message(FormatMessage),
    /// A tool's result, for the call it answers.
    ToolResult {
        call_id: Wtf8,
        name: Wtf8,
        result: Json,
        is_error: Json,
    },
    /// Kept by the tool but not shown (state entries, hidden custom messages).
    Hidden,
}

fn fold(chunks: &mut Vec<FormatChunk>, event: FormatEvent) {
    // The owned store cannot fail.
    let Ok(()) = append_event(chunks, event);
}

fn system(id: String, kind: SystemChunkKind, text: Wtf8) -> Stored {
    Stored::Message(ChatMessage {
        id,
        role: MessageRole::System,
        chunks: vec![Chunk::System { kind, text }],
    })
}

/// The summary of a compaction or branch summary (an entry or a message).
fn summary(value: &mut Json, kind: SystemChunkKind, base: &str, id: String) -> FormatResult<Stored> {
    string(value, "summary", base)?;
    Ok(system(id, kind, take_string(value, "summary")))
}

/// A non-message entry of a session file (`model_change`, `compaction`, …); `None` for
/// an entry type this version does not know.
pub fn read_entry(entry: &mut Json, kind: &[u8], id: String) -> FormatResult<Option<Stored>> {
    Ok(Some(match kind {
        b"model_change" => {
            let mut text = optional_string(entry, "provider", "")?
                .cloned()
                .unwrap_or_default();
            text.push_wtf8(b"/");
            text.push_wtf8(string(entry, "modelId", "")?.as_bytes());
            system(id, SystemChunkKind::ModelChanged, text)
        }
        b"thinking_level_change" => {
            string(entry, "thinkingLevel", "")?;
            system(
                id,
                SystemChunkKind::ThinkingLevelChanged,
                take_string(entry, "thinkingLevel"),
            )
        }
        b"compaction" => summary(entry, SystemChunkKind::Compaction, "", id)?,
        b"branch_summary" => summary(entry, SystemChunkKind::BranchSummary, "", id)?,
        b"custom_message" => custom(entry, "", id)?,
        b"custom" | b"label" | b"session_info" => Stored::Hidden,
        _ => return Ok(None),
    }))
}

/// A stored `AgentMessage` (the `message` of an entry, a bare line, or a message of a
/// live stream) at `base`; `skips` counts the blocks and roles it does not know.
pub fn read_message(
    message: &mut Json,
    base: &str,
    id: String,
    line: usize,
    skips: &mut Skips,
) -> FormatResult<Stored> {
    // The role as a static name, so that the message can be taken apart below.
    let given = string(message, "role", base)?.as_bytes();
    let role: &'static [u8] = match ROLES.iter().find(|r| **r == given) {
        Some(known) => known,
        None => {
            let role = Wtf8::from_wtf8_unchecked(given.to_vec());
            skips.skip(line, format_args!("unknown message role \"{role}\""))?;
            return Ok(Stored::Hidden);
        }
    };
    Ok(match role {
        b"user" => Stored::Message(ChatMessage {
            id,
            role: MessageRole::User,
            chunks: user_chunks(message, base, line, skips)?,
        }),
        b"assistant" => {
            let mut chunks = assistant_chunks(message, base, line, skips)?;
            if let Some(error) = error_event(message, base)? {
                fold(&mut chunks, error);
            }
            Stored::Message(ChatMessage {
                id,
                role: MessageRole::Assistant,
                chunks,
            })
        }
        b"toolResult" => {
            // Without a `toolCallId` (unless strict) it answers a call without an id, as
            // pi's screen matches it; with none before it, it is a message of its own.
            let call_id = match message.get("toolCallId") {
                None | Some(Json::Null) if !skips.strict => Wtf8::new(),
                _ => {
                    string(message, "toolCallId", base)?;
                    take_string(message, "toolCallId")
                }
            };
            content(message, base)?;
            Stored::ToolResult {
                call_id,
                name: match optional_string(message, "toolName", base)? {
                    Some(_) => take_string(message, "toolName"),
                    None => Wtf8::new(),
                },
                result: tool_result_value(message.take("content").unwrap_or(Json::Null)),
                is_error: message.take("isError").unwrap_or(Json::Bool(false)),
            }
        }
        b"bashExecution" => Stored::Message(ChatMessage {
            id: id.clone(),
            role: MessageRole::User,
            chunks: bash_execution(message, base, id)?,
        }),
        b"custom" | b"hookMessage" => custom(message, base, id)?,
        b"compactionSummary" => summary(message, SystemChunkKind::Compaction, base, id)?,
        _ => summary(message, SystemChunkKind::BranchSummary, base, id)?,
    })
}

/// A custom message: shown as a `custom` system chunk (its text, its images as files)
/// when `display` is true.
fn custom(message: &mut Json, base: &str, id: String) -> FormatResult<Stored> {
    let shown = matches!(message.get("display"), Some(Json::Bool(true)));
    if !shown {
        return Ok(Stored::Hidden);
    }
    let mut chunks = Vec::new();
    if let Json::String(_) = content(message, base)? {
        chunks.push(Chunk::System {
            kind: SystemChunkKind::Custom,
            text: take_string(message, "content"),
        });
    } else {
        let (blocks, content_path) = blocks(message, base)?;
        for (i, block) in blocks.iter_mut().enumerate() {
            let under = |e: FormatError| e.under(&index(&content_path, i));
            match block_type(block).map_err(under)? {
                b"text" => {
                    string(block, "text", "").map_err(under)?;
                    chunks.push(Chunk::System {
                        kind: SystemChunkKind::Custom,
                        text: take_string(block, "text"),
                    });
                }
                b"image" => chunks.push(image(block).map_err(under)?),
                _ => {}
            }
        }
    }
    Ok(Stored::Message(ChatMessage {
        id,
        role: MessageRole::System,
        chunks,
    }))
}

/// The user's own shell command (`!cmd`): one `bash` call, its stored outcome the result.
fn bash_execution(message: &mut Json, base: &str, id: String) -> FormatResult<Vec<FormatChunk>> {
    string(message, "command", base)?;
    let command = message.take("command").unwrap_or(Json::Null);
    let mut result = Vec::new();
    for key in ["output", "exitCode", "cancelled", "truncated", "fullOutputPath"] {
        if let Some(value) = message.take(key) {
            result.push((Wtf8::from(key), value));
        }
    }
    let field = |key: &str| result.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
    let cancelled = matches!(field("cancelled"), Some(Json::Bool(true)));
    let failed = field("exitCode")
        .and_then(Json::as_f64)
        .is_some_and(|code| code != 0.0);
    let mut chunks = Vec::new();
    let id = Wtf8::from(id);
    fold(
        &mut chunks,
        AgentEvent::ToolCall {
            id: id.clone(),
            name: Wtf8::from("bash"),
            arguments: Json::Object(vec![(Wtf8::from("command"), command)]),
        },
    );
    fold(
        &mut chunks,
        AgentEvent::ToolResult {
            tool_call_id: id,
            result: Json::Object(result),
            is_error: Json::Bool(cancelled || failed),
        },
    );
    Ok(chunks)
}

/// The `error` event an assistant message's `stopReason` calls for, worded as pi's UI
/// words it: `errorMessage`, else "Operation aborted" / "Unknown error" (an aborted
/// request's generic "Request was aborted" reads as "Operation aborted" too).
pub fn error_event(message: &Json, base: &str) -> FormatResult<Option<FormatEvent>> {
    let Some(reason) = optional_string(message, "stopReason", base)? else {
        return Ok(None);
    };
    let stored = optional_string(message, "errorMessage", base)?.filter(|m| !m.is_empty());
    let error = match reason.as_bytes() {
        b"aborted" => match stored {
            Some(text) if *text != "Request was aborted" => text.clone(),
            _ => Wtf8::from(ABORTED),
        },
        b"error" => stored.cloned().unwrap_or_else(|| Wtf8::from(UNKNOWN_ERROR)),
        _ => return Ok(None),
    };
    Ok(Some(AgentEvent::Error {
        error,
        status_code: None,
    }))
}

fn content<'a>(message: &'a Json, base: &str) -> FormatResult<&'a Json> {
    match message.get("content") {
        Some(value @ (Json::Array(_) | Json::String(_))) => Ok(value),
        other => Err(wrong(join(base, "content"), "an array or a string", other)),
    }
}

/// A content block's `type`; the block must be an object.
fn block_type(block: &Json) -> FormatResult<&[u8]> {
    object(block, "")?;
    Ok(string(block, "type", "")?.as_bytes())
}

/// Moves the string at `object.key` out; the caller has checked that it is one.
fn take_string(object: &mut Json, key: &str) -> Wtf8 {
    match object.take(key) {
        Some(Json::String(text)) => text,
        _ => Wtf8::new(),
    }
}

/// The blocks of `content` and the path naming it for errors.
fn blocks<'a>(message: &'a mut Json, base: &str) -> FormatResult<(&'a mut [Json], String)> {
    let content_path = join(base, "content");
    match message.get_mut("content") {
        Some(Json::Array(blocks)) => Ok((blocks, content_path)),
        other => Err(wrong(content_path, "an array", other.map(|v| &*v))),
    }
}

/// An `image` block (`{ data, mimeType }`) as a `file` chunk.
pub fn image(block: &mut Json) -> FormatResult<FormatChunk> {
    string(block, "mimeType", "")?;
    let data = optional_string(block, "data", "")?
        .is_some()
        .then(|| take_string(block, "data"));
    let url = optional_string(block, "url", "")?
        .is_some()
        .then(|| take_string(block, "url"));
    Ok(Chunk::File {
        media_type: take_string(block, "mimeType"),
        data,
        url,
        filename: None,
    })
}

/// A user message's chunks: its text (a string or `text` blocks) and images.
pub fn user_chunks(
    message: &mut Json,
    base: &str,
    line: usize,
    skips: &mut Skips,
) -> FormatResult<Vec<FormatChunk>> {
    let mut chunks = Vec::new();
    if let Json::String(_) = content(message, base)? {
        fold(
            &mut chunks,
            AgentEvent::TextDelta {
                delta: take_string(message, "content"),
            },
        );
        return Ok(chunks);
    }
    let (blocks, content_path) = blocks(message, base)?;
    for (i, block) in blocks.iter_mut().enumerate() {
        let under = |e: FormatError| e.under(&index(&content_path, i));
        match block_type(block).map_err(under)? {
            b"text" => {
                string(block, "text", "").map_err(under)?;
                fold(
                    &mut chunks,
                    AgentEvent::TextDelta {
                        delta: take_string(block, "text"),
                    },
                );
            }
            b"image" => chunks.push(image(block).map_err(under)?),
            other => unknown_block(skips, line, &index(&content_path, i), other)?,
        }
    }
    Ok(chunks)
}

fn unknown_block(skips: &mut Skips, line: usize, path: &str, kind: &[u8]) -> FormatResult<()> {
    skips.skip(
        line,
        format_args!(
            "{path}: unknown content block \"{}\"",
            Wtf8::from_wtf8_unchecked(kind.to_vec())
        ),
    )
}

/// The provider an assistant message names, for its signatures.
pub fn provider(message: &Json, base: &str) -> FormatResult<Wtf8> {
    Ok(optional_string(message, "provider", base)?
        .cloned()
        .unwrap_or_else(|| Wtf8::from(UNKNOWN_PROVIDER)))
}

/// Whether a block holds no `thinking` field (or a null one). pi reads a thinking block's
/// text from that field only: its screen and its HTML export show nothing else of the
/// block, and its model conversion drops it as empty. Such a block is skipped and counted
/// (the rest of its message is read); strict reading refuses it, naming the field.
fn thinking_missing(block: &Json, strict: bool) -> bool {
    !strict && matches!(block.get("thinking"), None | Some(Json::Null))
}

/// The events of one `thinking` block.
pub fn thinking_events(block: &mut Json, provider: &Wtf8, events: &mut Vec<FormatEvent>) -> FormatResult<()> {
    string(block, "thinking", "")?;
    let signature = optional_string(block, "thinkingSignature", "")?;
    let metadata = signature.map(|signature| signature_metadata(provider, signature));
    events.push(AgentEvent::ReasoningDelta {
        delta: take_string(block, "thinking"),
    });
    if let Some(metadata) = metadata {
        events.push(AgentEvent::ReasoningEnd {
            metadata: Some(metadata),
        });
    }
    Ok(())
}

/// The `tool-call` event of one `toolCall` block. A block without an `id` (or a null
/// one) is a call with an empty id unless `strict`: pi keeps and shows it (its screen
/// shows the tool's name and arguments, and a result that names no call lands on it).
pub fn tool_call_event(block: &mut Json, strict: bool) -> FormatResult<FormatEvent> {
    let id = match block.get("id") {
        None | Some(Json::Null) if !strict => Wtf8::new(),
        _ => {
            string(block, "id", "")?;
            take_string(block, "id")
        }
    };
    string(block, "name", "")?;
    Ok(AgentEvent::ToolCall {
        id,
        name: take_string(block, "name"),
        arguments: block.take("arguments").unwrap_or(Json::Null),
    })
}

/// An assistant message's content folded: its text, thinking, tool calls and images.
fn assistant_chunks(
    message: &mut Json,
    base: &str,
    line: usize,
    skips: &mut Skips,
) -> FormatResult<Vec<FormatChunk>> {
    let provider = provider(message, base)?;
    let mut chunks = Vec::new();
    if let Some(Json::String(_)) = message.get("content") {
        // Written by other tools (pi's own messages hold blocks): OpenClaw's UI reads the
        // string as the message's text, and shows nothing for an empty one.
        let text = take_string(message, "content");
        if !text.is_empty() {
            chunks.push(Chunk::Text { text });
        }
        return Ok(chunks);
    }
    let (blocks, content_path) = blocks(message, base)?;
    let mut events = Vec::with_capacity(2);
    for (i, block) in blocks.iter_mut().enumerate() {
        let under = |e: FormatError| e.under(&index(&content_path, i));
        match block_type(block).map_err(under)? {
            b"text" => {
                string(block, "text", "").map_err(under)?;
                events.push(AgentEvent::TextDelta {
                    delta: take_string(block, "text"),
                });
            }
            b"thinking" if thinking_missing(block, skips.strict) => skips.skip(
                line,
                format_args!(
                    "{}: a thinking block without \"thinking\"",
                    index(&content_path, i)
                ),
            )?,
            b"thinking" => thinking_events(block, &provider, &mut events).map_err(under)?,
            b"toolCall" => events.push(tool_call_event(block, skips.strict).map_err(under)?),
            b"image" => chunks.push(image(block).map_err(under)?),
            other => unknown_block(skips, line, &index(&content_path, i), other)?,
        }
        for event in events.drain(..) {
            fold(&mut chunks, event);
        }
    }
    Ok(chunks)
}

/// The session file for `messages`: a version 3 header, then one entry per stored
/// message, chained by `parentId`. A user message becomes a user entry (text and images),
/// or a `bashExecution` when it is one `bash` call; an assistant message becomes
/// assistant entries split after each tool batch, each followed by the results of that
/// batch, its error as the last one's `stopReason` / `errorMessage`; a system message
/// becomes one entry per chunk (`compaction`, `branch_summary`, `model_change`,
/// `thinking_level_change`, and a displayed `custom_message` for the other kinds). The
/// first entry of a message carries its id, the following ones `<id>:<n>`.
pub fn write_session(messages: &[FormatMessage]) -> Vec<u8> {
    let mut writer = SessionWriter {
        out: Vec::new(),
        parent: None,
    };
    writer.line(&Json::object([
        ("type", Json::string("session")),
        ("version", Json::Number("3".into())),
    ]));
    for message in messages {
        match message.role {
            MessageRole::User => writer.user(message),
            MessageRole::Assistant => writer.assistant(message),
            MessageRole::System => writer.system(message),
        }
    }
    writer.out
}

fn text_block(text: &Wtf8) -> Json {
    Json::object([
        ("type", Json::string("text")),
        ("text", Json::String(text.clone())),
    ])
}

fn image_block(media_type: &Wtf8, data: &Wtf8) -> Json {
    Json::object([
        ("type", Json::string("image")),
        ("data", Json::String(data.clone())),
        ("mimeType", Json::String(media_type.clone())),
    ])
}

/// The `(provider, signature)` of metadata shaped `{ [provider]: { signature } }`.
fn signature_of(metadata: &Json) -> Option<(&Wtf8, &Wtf8)> {
    match metadata {
        Json::Object(fields) => match fields.as_slice() {
            [(provider, Json::Object(inner))] => match inner.as_slice() {
                [(key, Json::String(signature))] if *key == "signature" => Some((provider, signature)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

struct SessionWriter {
    out: Vec<u8>,
    parent: Option<Json>,
}

fn part_id(id: &str, part: usize) -> Json {
    Json::string(if part == 0 {
        id.to_string()
    } else {
        format!("{id}:{part}")
    })
}

impl SessionWriter {
    fn line(&mut self, line: &Json) {
        value::write(&mut self.out, line);
        self.out.push(b'\n');
    }

    /// An entry of `kind` with `fields` after its `id` and `parentId`.
    fn typed_entry(&mut self, kind: &str, id: &str, part: usize, fields: Vec<(Wtf8, Json)>) {
        let id = part_id(id, part);
        let parent = self.parent.replace(id.clone()).unwrap_or(Json::Null);
        let mut entry = vec![
            (Wtf8::from("type"), Json::string(kind)),
            (Wtf8::from("id"), id),
            (Wtf8::from("parentId"), parent),
        ];
        entry.extend(fields);
        self.line(&Json::Object(entry));
    }

    fn entry(&mut self, id: &str, part: usize, message: Json) {
        self.typed_entry("message", id, part, vec![(Wtf8::from("message"), message)]);
    }

    fn user(&mut self, message: &FormatMessage) {
        if let [Chunk::ToolBatch { calls }] = message.chunks.as_slice() {
            if let [call] = calls.as_slice() {
                if call.name == "bash" {
                    let mut fields = vec![(Wtf8::from("role"), Json::string("bashExecution"))];
                    fields.extend(
                        call.arguments
                            .get("command")
                            .map(|c| (Wtf8::from("command"), c.clone())),
                    );
                    if let Some((Json::Object(result), _)) = &call.result {
                        fields.extend(result.iter().cloned());
                    }
                    self.entry(&message.id, 0, Json::Object(fields));
                    return;
                }
            }
        }
        let blocks = message
            .chunks
            .iter()
            .filter_map(|chunk| match chunk {
                Chunk::Text { text } => Some(text_block(text)),
                Chunk::File {
                    media_type,
                    data: Some(data),
                    ..
                } => Some(image_block(media_type, data)),
                _ => None,
            })
            .collect();
        let user = Json::object([("role", Json::string("user")), ("content", Json::Array(blocks))]);
        self.entry(&message.id, 0, user);
    }

    fn system(&mut self, message: &FormatMessage) {
        let mut part = 0;
        for chunk in &message.chunks {
            let Chunk::System { kind, text } = chunk else {
                continue;
            };
            let text = Json::String(text.clone());
            let (entry, fields) = match kind {
                SystemChunkKind::Compaction => (
                    "compaction",
                    vec![
                        (Wtf8::from("summary"), text),
                        (Wtf8::from("tokensBefore"), Json::Number("0".into())),
                    ],
                ),
                SystemChunkKind::BranchSummary => (
                    "branch_summary",
                    vec![
                        (Wtf8::from("fromId"), self.parent.clone().unwrap_or(Json::Null)),
                        (Wtf8::from("summary"), text),
                    ],
                ),
                SystemChunkKind::ModelChanged => {
                    let Json::String(text) = text else { unreachable!() };
                    let bytes = text.as_bytes();
                    let (provider, model) = match bytes.iter().position(|&b| b == b'/') {
                        Some(at) => (&bytes[..at], &bytes[at + 1..]),
                        None => (&b""[..], bytes),
                    };
                    (
                        "model_change",
                        vec![
                            (
                                Wtf8::from("provider"),
                                Json::String(Wtf8::from_wtf8_unchecked(provider.to_vec())),
                            ),
                            (
                                Wtf8::from("modelId"),
                                Json::String(Wtf8::from_wtf8_unchecked(model.to_vec())),
                            ),
                        ],
                    )
                }
                SystemChunkKind::ThinkingLevelChanged => {
                    ("thinking_level_change", vec![(Wtf8::from("thinkingLevel"), text)])
                }
                other => (
                    "custom_message",
                    vec![
                        (Wtf8::from("customType"), Json::string(other.as_str())),
                        (Wtf8::from("content"), text),
                        (Wtf8::from("display"), Json::Bool(true)),
                    ],
                ),
            };
            self.typed_entry(entry, &message.id, part, fields);
            part += 1;
        }
    }

    /// One assistant entry per provider (a signature names its provider), followed by
    /// the results of its calls.
    fn assistant(&mut self, message: &FormatMessage) {
        let mut part = 0;
        let mut blocks: Vec<Json> = Vec::new();
        let mut results: Vec<Json> = Vec::new();
        let mut provider: Option<Wtf8> = None;
        let mut error: Option<Wtf8> = None;
        for chunk in &message.chunks {
            match chunk {
                Chunk::Text { text } => blocks.push(text_block(text)),
                Chunk::Thinking { text, metadata } => {
                    let mut block = vec![
                        (Wtf8::from("type"), Json::string("thinking")),
                        (Wtf8::from("thinking"), Json::String(text.clone())),
                    ];
                    if let Some((name, signature)) = metadata.as_ref().and_then(signature_of) {
                        // One provider per Pi message: another one starts the next message.
                        if provider.as_ref().is_some_and(|p| p != name) {
                            self.assistant_entry(
                                message,
                                &mut part,
                                &mut blocks,
                                &mut provider,
                                &mut error,
                                &mut results,
                            );
                        }
                        if name != UNKNOWN_PROVIDER {
                            provider = Some(name.clone());
                        }
                        block.push((Wtf8::from("thinkingSignature"), Json::String(signature.clone())));
                    }
                    blocks.push(Json::Object(block));
                }
                Chunk::ToolBatch { calls } => {
                    for call in calls {
                        blocks.push(Json::object([
                            ("type", Json::string("toolCall")),
                            ("id", Json::String(call.id.clone())),
                            ("name", Json::String(call.name.clone())),
                            ("arguments", call.arguments.clone()),
                        ]));
                        if let Some((result, is_error)) = &call.result {
                            results.push(self.tool_result(
                                call.id.clone(),
                                call.name.clone(),
                                result,
                                is_error,
                            ));
                        }
                    }
                }
                Chunk::File {
                    media_type,
                    data: Some(data),
                    ..
                } => blocks.push(image_block(media_type, data)),
                Chunk::Error { message, .. } => error = Some(message.clone()),
                Chunk::System { .. } | Chunk::File { .. } => {}
            }
        }
        if !blocks.is_empty() || error.is_some() || part == 0 {
            self.assistant_entry(
                message,
                &mut part,
                &mut blocks,
                &mut provider,
                &mut error,
                &mut results,
            );
        }
    }

    fn assistant_entry(
        &mut self,
        message: &FormatMessage,
        part: &mut usize,
        blocks: &mut Vec<Json>,
        provider: &mut Option<Wtf8>,
        error: &mut Option<Wtf8>,
        results: &mut Vec<Json>,
    ) {
        let mut fields = vec![
            (Wtf8::from("role"), Json::string("assistant")),
            (Wtf8::from("content"), Json::Array(std::mem::take(blocks))),
        ];
        fields.extend(provider.take().map(|p| (Wtf8::from("provider"), Json::String(p))));
        if let Some(error) = error.take() {
            let aborted = error == ABORTED;
            fields.push((
                Wtf8::from("stopReason"),
                Json::string(if aborted { "aborted" } else { "error" }),
            ));
            fields.push((Wtf8::from("errorMessage"), Json::String(error)));
        }
        self.entry(&message.id, *part, Json::Object(fields));
        *part += 1;
        for result in std::mem::take(results) {
            self.entry(&message.id, *part, result);
            *part += 1;
        }
    }

    fn tool_result(&self, id: Wtf8, name: Wtf8, result: &Json, is_error: &Json) -> Json {
        let content = match result {
            Json::String(text) => Json::Array(vec![text_block(text)]),
            Json::Array(_) => result.clone(),
            // Pi content is text or blocks: anything else is kept as its JSON text.
            other => Json::Array(vec![text_block(&Wtf8::from_wtf8_unchecked(other.to_json()))]),
        };
        let is_error = match is_error {
            Json::Null => Json::Bool(false),
            other => other.clone(),
        };
        Json::object([
            ("role", Json::string("toolResult")),
            ("toolCallId", Json::String(id)),
            ("toolName", Json::String(name)),
            ("content", content),
            ("isError", is_error),
        ])
    }
}

/// The roles of the messages a session stores.
pub const ROLES: &[&[u8]] = &[
    b"user",
    b"assistant",
    b"toolResult",
    b"bashExecution",
    b"custom",
    b"hookMessage",
    b"branchSummary",
    b"compactionSummary",
];
