//! Codex rollouts: the session files Codex writes under `$CODEX_HOME/sessions/YYYY/MM/DD/`
//! (and `archived_sessions/`), read as Codex shows a resumed thread.
//!
//! Four generations, told by content, one reader:
//!
//! - the TypeScript CLI's `rollout-*.json` (2025-04/05): one JSON document `{ session,
//!   items }`, the items Responses API items;
//! - the first Rust versions (to 0.29): JSON lines of bare items, after a first line that
//!   is the session's meta (`{ id, timestamp, instructions, git }`, no type) and between
//!   `{ record_type: "state" }` lines;
//! - from 0.34 (openai/codex#3380): each line an envelope `{ timestamp, type, payload }`
//!   (`ordinal` too from 0.148): `session_meta`, `response_item` (what the model saw and
//!   said), `event_msg` (what Codex showed), `turn_context`, `compacted`, and from 0.144
//!   `world_state`, from 0.171 `token_usage_record` — lines a later version adds are
//!   skipped and counted, never refused;
//! - from 0.148, Codex's events of a turn's items are `event_msg` `item_completed` with the
//!   item (`UserMessage`, `AgentMessage`, `Reasoning`, `CommandExecution`, `FileChange`,
//!   `McpToolCall`, `CollabAgentToolCall`, `WebSearch`, `ContextCompaction`, `Plan`, …)
//!   instead of `user_message` / `agent_message` / `agent_reasoning`.
//!
//! What Codex shows of a resumed thread is built from its events ([`super::thread`]): the
//! user's messages are the `user_message` events (or `UserMessage` items), never the
//! model's copy of them — so the context Codex adds as user messages for the model
//! (`<environment_context>`, AGENTS.md, `<turn_aborted>`, sub-agent notifications …) and
//! the developer messages (its instructions) are not shown; the agent's messages and
//! reasoning are its events too. A rollout that holds no such events (the first two
//! generations, exports of the model's items alone) is read from its items, with the
//! context messages Codex adds told from the user's by the markers Codex gives them.
//! Tool calls are read from the model's items (`function_call`, `custom_tool_call`,
//! `local_shell_call`, `web_search_call`, `tool_search_call`, `image_generation_call`)
//! and their outputs, joined by `call_id`, and shown as Codex shows the item it stores
//! for them where it stores one ([`super::items`]).

use std::io::Read;

use crate::bytes::value::{self, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, SystemChunkKind};
use crate::reading::check::{FormatError, Skips, ORPHAN_RESULT};
use crate::reading::format::{Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::{parse_error, read_block, reader_of};
use crate::reading::lines::{self, Lines};
use crate::reading::model_json::FormatChunk;

use super::items::{self, display_kind, Reasoning};
use super::thread::{Item, Thread};

/// The envelope's line types.
pub const LINE_TYPES: &[&[u8]] = &[
    b"session_meta",
    b"response_item",
    b"event_msg",
    b"turn_context",
    b"compacted",
    b"world_state",
    b"token_usage_record",
    b"inter_agent_communication",
    b"inter_agent_communication_metadata",
    b"retained_context",
    b"security_risk_score",
    b"realtime_item",
];

/// The Responses API item types a bare line of the first Rust versions holds.
pub const ITEM_TYPES: &[&[u8]] = &[
    b"message",
    b"reasoning",
    b"function_call",
    b"function_call_output",
    b"custom_tool_call",
    b"custom_tool_call_output",
    b"local_shell_call",
    b"web_search_call",
    b"tool_search_call",
    b"tool_search_output",
    b"image_generation_call",
];

/// Whether a line is an envelope line.
pub fn is_envelope(line: &Json) -> bool {
    str_of(line, "type").is_some_and(|t| LINE_TYPES.contains(&t.as_bytes())) && line.get("payload").is_some()
}

/// Whether a line is the first line of the bare generation (the session's meta: an `id`
/// and a `timestamp`, with the `instructions` and the `git` state or without, nothing
/// else, no type) or its state line.
pub fn is_bare_meta(line: &Json) -> bool {
    let Json::Object(fields) = line else {
        return false;
    };
    if str_of(line, "record_type").is_some() && line.get("type").is_none() {
        return true;
    }
    str_of(line, "id").is_some()
        && str_of(line, "timestamp").is_some()
        && fields
            .iter()
            .all(|(key, _)| matches!(key.as_bytes(), b"id" | b"timestamp" | b"instructions" | b"git"))
}

/// Whether a value is the TypeScript CLI's rollout document.
pub fn is_document(value: &Json) -> bool {
    matches!(value.get("session"), Some(Json::Object(_)))
        && matches!(value.get("items"), Some(Json::Array(_)))
}

static MESSAGE: std::sync::LazyLock<Wtf8> = std::sync::LazyLock::new(|| Wtf8::from("message"));

/// Members no reading needs, left unbuilt (instructions, tool lists, rate limits, world
/// state: most of a rollout's bytes): the line-level `metadata`, and these of a payload.
fn keep(depth: usize, key: &[u8]) -> bool {
    match depth {
        0 => key != b"metadata",
        1 => !matches!(
            key,
            b"base_instructions"
                | b"instructions"
                | b"dynamic_tools"
                | b"developer_instructions"
                | b"user_instructions"
                | b"replacement_history"
                | b"rate_limits"
                | b"info"
                | b"state"
                | b"thread_settings"
                | b"internal_chat_message_metadata_passthrough"
        ),
        _ => true,
    }
}

fn parse_line(text: &str) -> Result<Json, value::ParseError> {
    value::parse_keeping_str(text, keep)
}

/// Where the messages, reasoning and user inputs of the rollout are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Not known yet: the lines so far are held.
    Undecided,
    /// Codex's events (and its items' `item_completed`).
    Events,
    /// The model's items.
    Items,
}

/// The rollout reader's state.
struct Reader {
    thread: Thread,
    source: Source,
    held: Vec<(Json, usize)>,
}

fn text(value: &Json, key: &str) -> Option<Wtf8> {
    str_of(value, key).cloned()
}

/// The markers Codex puts at the start of the context it adds as user messages.
const CONTEXT_MARKERS: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions",
    "<skills_instructions>",
    "<skill>",
    "<user_shell_command>",
    "<subagent_notification>",
    "<turn_aborted>",
    "<context_update>",
    "<collaboration_mode>",
    "<permissions instructions>",
    "<hook_prompt",
];

/// Whether a user message of the model's items is context Codex added, not the user's words.
fn is_context(content: Option<&Json>) -> bool {
    items::texts(content, &["input_text", "text"]).any(|t| {
        let bytes = t.as_bytes();
        let start = bytes
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(bytes.len());
        let head = &bytes[start..];
        CONTEXT_MARKERS
            .iter()
            .any(|m| head.len() >= m.len() && head[..m.len()].eq_ignore_ascii_case(m.as_bytes()))
    })
}

/// The image tags Codex wraps an attached image in (`<image name=…>` … `</image>`).
fn is_image_tag(text: &Wtf8) -> bool {
    let t = text.as_bytes();
    let t = t.trim_ascii();
    (t.starts_with(b"<image")
        || t.starts_with(b"</image")
        || t.starts_with(b"<local_image")
        || t.starts_with(b"</local_image"))
        && t.ends_with(b">")
}

/// A user message of the model's items as chunks: its text, its images as files.
fn user_chunks(content: Option<&Json>) -> Vec<FormatChunk> {
    let mut chunks = Vec::new();
    let mut text = Wtf8::new();
    let parts: &[Json] = match content {
        Some(Json::Array(parts)) => parts,
        Some(Json::String(t)) => {
            return vec![Chunk::Text { text: t.clone() }];
        }
        _ => &[],
    };
    for part in parts {
        match str_of(part, "type").map(Wtf8::as_bytes) {
            Some(b"input_text" | b"text" | b"output_text") => {
                if let Some(t) = str_of(part, "text").filter(|t| !is_image_tag(t)) {
                    text.push_wtf8(t.as_bytes());
                }
            }
            Some(b"input_image" | b"image") => {
                if let Some(url) = str_of(part, "image_url").or_else(|| str_of(part, "url")) {
                    chunks.push(image(url.clone(), None));
                }
            }
            Some(b"local_image") => {
                if let Some(path) = str_of(part, "path") {
                    chunks.push(image_file(path.clone()));
                }
            }
            _ => {}
        }
    }
    if !text.is_empty() {
        chunks.insert(0, Chunk::Text { text });
    }
    chunks
}

/// An image the user attached by URL (a `data:` URL holds it).
fn image(url: Wtf8, name: Option<Wtf8>) -> FormatChunk {
    let bytes = url.as_bytes();
    let media_type = bytes
        .strip_prefix(b"data:")
        .and_then(|rest| rest.split(|&b| b == b';' || b == b',').next())
        .filter(|t| !t.is_empty())
        .map(|t| Wtf8::from_wtf8_unchecked(t.to_vec()))
        .unwrap_or_else(|| Wtf8::from("image/*"));
    Chunk::File {
        media_type,
        data: None,
        url: Some(url),
        filename: name,
    }
}

/// An image the user attached from a file on their machine.
fn image_file(path: Wtf8) -> FormatChunk {
    Chunk::File {
        media_type: Wtf8::from("image/*"),
        data: None,
        url: None,
        filename: Some(path),
    }
}

/// A `user_message` event's input: its text and images.
fn event_user_chunks(payload: &Json) -> Vec<FormatChunk> {
    let mut chunks = Vec::new();
    if let Some(message) = str_of(payload, "message").filter(|m| !m.as_bytes().trim_ascii().is_empty()) {
        chunks.push(Chunk::Text {
            text: message.clone(),
        });
    }
    if let Some(Json::Array(images)) = payload.get("images") {
        chunks.extend(
            images
                .iter()
                .filter_map(Json::as_str)
                .map(|url| image(url.clone(), None)),
        );
    }
    if let Some(Json::Array(images)) = payload.get("local_images") {
        chunks.extend(
            images
                .iter()
                .filter_map(Json::as_str)
                .map(|p| image_file(p.clone())),
        );
    }
    chunks
}

/// A `UserMessage` item's input (the rollout's, or the app server's `userMessage`).
pub fn item_user_chunks(item: &Json) -> Vec<FormatChunk> {
    let mut chunks = Vec::new();
    let mut text = Wtf8::new();
    if let Some(Json::Array(parts)) = item.get("content") {
        for part in parts {
            match str_of(part, "type").map(Wtf8::as_bytes) {
                Some(b"text" | b"Text") => {
                    if let Some(t) = str_of(part, "text") {
                        if !text.is_empty() {
                            text.push_wtf8(b"\n");
                        }
                        text.push_wtf8(t.as_bytes());
                    }
                }
                Some(b"image" | b"Image") => {
                    if let Some(url) = str_of(part, "image_url").or_else(|| str_of(part, "url")) {
                        chunks.push(image(url.clone(), None));
                    }
                }
                Some(b"local_image" | b"LocalImage" | b"localImage") => {
                    if let Some(path) = str_of(part, "path") {
                        chunks.push(image_file(path.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    if !text.as_bytes().trim_ascii().is_empty() {
        chunks.insert(0, Chunk::Text { text });
    }
    chunks
}

/// The model's reasoning item.
fn reasoning_item(payload: &Json) -> Reasoning {
    Reasoning {
        id: text(payload, "id"),
        summary: items::texts(payload.get("summary"), &["summary_text"])
            .cloned()
            .collect(),
        raw: items::texts(payload.get("content"), &["reasoning_text", "text"])
            .cloned()
            .collect(),
        encrypted: text(payload, "encrypted_content").filter(|e| !e.is_empty()),
    }
}

fn must_be_object<'a>(value: Option<&'a Json>, path: &str) -> Result<&'a Json, FormatError> {
    match value {
        Some(v @ Json::Object(_)) => Ok(v),
        other => Err(crate::reading::check::wrong(path.to_string(), "an object", other)),
    }
}

/// The event types Codex writes that show nothing in a resumed thread.
const QUIET_EVENTS: &[&[u8]] = &[
    b"token_count",
    b"thread_settings_applied",
    b"thread_name_updated",
    b"thread_goal_updated",
    b"session_configured",
    b"turn_context",
    b"turn_diff",
    b"undo_started",
    b"undo_completed",
    b"guardian_assessment",
    b"sub_agent_activity",
    b"background_event",
    b"stream_error",
    b"warning",
    b"hook_started",
    b"hook_completed",
    b"item_started",
    b"plan_update",
    b"get_history_entry_response",
    b"mcp_list_tools_response",
    b"list_custom_prompts_response",
    b"shutdown_complete",
    b"exec_command_output_delta",
    b"agent_message_delta",
    b"agent_reasoning_delta",
    b"agent_reasoning_raw_content_delta",
    b"agent_reasoning_section_break",
    b"deprecation_notice",
    b"model_reroute",
    b"exec_approval_request",
    b"apply_patch_approval_request",
    b"request_user_input",
    b"raw_response_item",
];

impl Reader {
    fn new() -> Self {
        Reader {
            thread: Thread::default(),
            source: Source::Undecided,
            held: Vec::new(),
        }
    }

    /// Whether the line is one of Codex's events of a message (what decides the source).
    fn is_message_event(line: &Json) -> bool {
        if str_of(line, "type").is_none_or(|t| *t != "event_msg") {
            return false;
        }
        let Some(payload) = line.get("payload") else {
            return false;
        };
        match str_of(payload, "type").map(Wtf8::as_bytes) {
            Some(
                b"user_message" | b"agent_message" | b"agent_reasoning" | b"agent_reasoning_raw_content",
            ) => true,
            Some(b"item_completed") => payload
                .get("item")
                .and_then(|i| str_of(i, "type"))
                .is_some_and(|t| matches!(t.as_bytes(), b"UserMessage" | b"AgentMessage" | b"Reasoning")),
            _ => false,
        }
    }

    fn line(&mut self, value: Json, line: usize, skips: &mut Skips) -> Result<(), FormatError> {
        match self.source {
            Source::Undecided => {
                if Self::is_message_event(&value) {
                    self.source = Source::Events;
                } else if is_bare_meta(&value)
                    || str_of(&value, "type")
                        .is_some_and(|t| ITEM_TYPES.contains(&t.as_bytes()) && value.get("payload").is_none())
                {
                    // The bare generation wrote no events.
                    self.source = Source::Items;
                } else {
                    self.held.push((value, line));
                    return Ok(());
                }
                for (held, at) in std::mem::take(&mut self.held) {
                    self.read(held, at, skips)?;
                }
                self.read(value, line, skips)
            }
            _ => self.read(value, line, skips),
        }
    }

    fn finish(&mut self, skips: &mut Skips) -> Result<(), FormatError> {
        if self.source == Source::Undecided {
            self.source = Source::Items;
            for (held, at) in std::mem::take(&mut self.held) {
                self.read(held, at, skips)?;
            }
        }
        Ok(())
    }

    /// One line, of any generation.
    fn read(&mut self, value: Json, line: usize, skips: &mut Skips) -> Result<(), FormatError> {
        let Json::Object(_) = value else {
            return skips.skip(line, "a line that is not an object");
        };
        let kind = str_of(&value, "type").cloned();
        let Some(kind) = kind else {
            if is_bare_meta(&value) {
                skips.pass(if value.get("record_type").is_some() {
                    "state"
                } else {
                    "session_meta"
                });
                return Ok(());
            }
            if is_document(&value) {
                return self.document(value, line, skips);
            }
            return skips.skip(line, "a line without a \"type\"");
        };
        if value.get("payload").is_none() && ITEM_TYPES.contains(&kind.as_bytes()) {
            // A bare item of the first Rust versions.
            return self.response_item(&value, line, skips);
        }
        let kind_bytes = kind.as_bytes();
        if !LINE_TYPES.contains(&kind_bytes) {
            return skips.skip(line, format_args!("unknown line type \"{kind}\""));
        }
        let result = match kind_bytes {
            b"response_item" => must_be_object(value.get("payload"), "payload")
                .and_then(|p| self.response_item(p, line, skips)),
            b"event_msg" => {
                must_be_object(value.get("payload"), "payload").and_then(|p| self.event(p, line, skips))
            }
            b"compacted" => must_be_object(value.get("payload"), "payload").map(|p| {
                let summary = text(p, "message").unwrap_or_default();
                self.thread.compacted(summary, line);
            }),
            other => {
                skips.pass(&String::from_utf8_lossy(other));
                Ok(())
            }
        };
        match result {
            Err(e) if !skips.strict => skips.skip(line, format_args!("{kind}: {e}")),
            other => other,
        }
    }

    /// The TypeScript CLI's document: its items, one after the other.
    fn document(&mut self, mut value: Json, line: usize, skips: &mut Skips) -> Result<(), FormatError> {
        skips.pass("session");
        if let Some(Json::Array(items)) = value.take("items") {
            for (i, item) in items.into_iter().enumerate() {
                let result = match &item {
                    Json::Object(_) if str_of(&item, "type").is_some() => {
                        self.response_item(&item, line, skips)
                    }
                    _ => Err(FormatError::new(
                        format!("items[{i}]"),
                        "must be an item with a \"type\"",
                    )),
                };
                match result {
                    Err(e) if !skips.strict => skips.skip(line, e)?,
                    other => other?,
                }
            }
        }
        Ok(())
    }

    /// One of the model's items.
    fn response_item(&mut self, payload: &Json, line: usize, skips: &mut Skips) -> Result<(), FormatError> {
        // A message written without its `type` (as some exports do) is still a message.
        let kind = match str_of(payload, "type") {
            Some(kind) => kind,
            None if str_of(payload, "role").is_some() => &MESSAGE,
            None => {
                return Err(crate::reading::check::wrong(
                    "payload.type".into(),
                    "a string",
                    payload.get("type"),
                ));
            }
        };
        let events = self.source == Source::Events;
        match kind.as_bytes() {
            b"message" => {
                let role = str_of(payload, "role").map(Wtf8::as_bytes);
                let content = payload.get("content");
                match role {
                    // Kept aside: shown from Codex's own events, unless a turn has none.
                    Some(b"assistant") if events => {
                        let text = items::text_of(content, &["output_text", "text", "input_text"]);
                        if !text.is_empty() {
                            self.thread.push(Item::Copy(text), line);
                        }
                    }
                    // Shown from Codex's own events.
                    _ if events => skips.pass("response_item/message"),
                    Some(b"user") if is_context(content) => skips.pass("context"),
                    Some(b"user") => {
                        let chunks = user_chunks(content);
                        self.thread.user(text(payload, "id"), chunks, line);
                    }
                    Some(b"assistant") => {
                        let text = items::text_of(content, &["output_text", "text", "input_text"]);
                        if !text.is_empty() {
                            self.thread.push(Item::Text(text), line);
                        }
                    }
                    _ => skips.pass("instructions"),
                }
            }
            b"reasoning" => {
                let reasoning = reasoning_item(payload);
                if events {
                    self.thread.reasoning_copy(reasoning, line);
                } else if !reasoning.is_empty() {
                    self.thread.push(Item::Reasoning(reasoning, true), line);
                }
            }
            b"function_call" | b"custom_tool_call" | b"tool_search_call" => {
                let id = call_id(payload, line);
                let name = match kind.as_bytes() {
                    b"tool_search_call" => Wtf8::from("tool_search"),
                    _ => text(payload, "name").unwrap_or_else(|| Wtf8::from("unknown")),
                };
                let arguments = match kind.as_bytes() {
                    b"custom_tool_call" => payload.get("input").cloned().unwrap_or(Json::Undefined),
                    _ => items::parsed_arguments(payload.get("arguments")),
                };
                self.thread.model_call(id, name, arguments, line);
            }
            b"local_shell_call" => {
                let id = call_id(payload, line);
                let arguments = payload.get("action").cloned().unwrap_or(Json::Undefined);
                self.thread
                    .model_call(id, Wtf8::from("local_shell"), arguments, line);
            }
            b"web_search_call" => {
                let id = call_id(payload, line);
                let action = payload.get("action").cloned().unwrap_or(Json::Undefined);
                self.thread
                    .model_call(id.clone(), Wtf8::from("web_search"), action, line);
                if str_of(payload, "status").is_some_and(|s| *s == "completed") {
                    self.thread.output(&id, Json::string("completed"), false);
                }
            }
            b"image_generation_call" => {
                let id = call_id(payload, line);
                let arguments = Json::object([(
                    "revised_prompt",
                    payload.get("revised_prompt").cloned().unwrap_or(Json::Null),
                )]);
                self.thread
                    .model_call(id.clone(), Wtf8::from("image_generation"), arguments, line);
                if let Some(result) = payload.get("result") {
                    let failed = str_of(payload, "status").is_some_and(|s| *s == "failed");
                    self.thread.output(&id, result.clone(), failed);
                }
            }
            b"function_call_output" | b"custom_tool_call_output" | b"tool_search_output" => {
                let Some(id) = str_of(payload, "call_id") else {
                    return Err(crate::reading::check::wrong(
                        "payload.call_id".into(),
                        "a string",
                        payload.get("call_id"),
                    ));
                };
                let output = match kind.as_bytes() {
                    b"tool_search_output" => payload.get("tools").cloned().unwrap_or(Json::Null),
                    _ => items::output_value(payload.get("output")),
                };
                let name = self.thread.call_name(id);
                let failed = items::output_failed(name.as_ref(), payload.get("output"));
                if !self.thread.output(id, output, failed) {
                    skips.leave_out(|| format!("line {line} (call_id {id})"), ORPHAN_RESULT);
                }
            }
            other => skips.pass(&format!("response_item/{}", String::from_utf8_lossy(other))),
        }
        Ok(())
    }

    /// One of Codex's events.
    fn event(&mut self, payload: &Json, line: usize, skips: &mut Skips) -> Result<(), FormatError> {
        let Some(kind) = str_of(payload, "type") else {
            return Err(crate::reading::check::wrong(
                "payload.type".into(),
                "a string",
                payload.get("type"),
            ));
        };
        let turn_id = str_of(payload, "turn_id")
            .or_else(|| str_of(payload, "turnId"))
            .cloned();
        match kind.as_bytes() {
            b"task_started" | b"turn_started" => self.thread.start(turn_id, line),
            b"task_complete" | b"turn_complete" => {
                let error = payload.get("error").and_then(|e| str_of(e, "message")).cloned();
                self.thread.complete(turn_id.as_ref(), error);
            }
            b"user_message" => {
                // Before 0.40 the context Codex added was an event too, of its own kind.
                if str_of(payload, "kind").is_some_and(|k| *k != "plain") {
                    skips.pass("context");
                } else {
                    self.thread.user(None, event_user_chunks(payload), line);
                }
            }
            b"agent_message" => {
                if let Some(message) = str_of(payload, "message").filter(|m| !m.is_empty()) {
                    self.thread.push(Item::Text(message.clone()), line);
                }
            }
            b"agent_reasoning" | b"agent_reasoning_raw_content" => {
                let Some(text) = str_of(payload, "text").filter(|t| !t.is_empty()) else {
                    return Ok(());
                };
                let raw = kind == "agent_reasoning_raw_content";
                let turn = self.thread.ensure(line);
                // Parts of one reasoning item follow each other: a part goes on the
                // reasoning item the turn ends with.
                if let Some(Item::Reasoning(reasoning, _)) = turn.items.last_mut() {
                    if raw {
                        reasoning.raw.push(text.clone());
                    } else {
                        reasoning.summary.push(text.clone());
                    }
                } else {
                    let mut reasoning = Reasoning::default();
                    if raw {
                        reasoning.raw.push(text.clone());
                    } else {
                        reasoning.summary.push(text.clone());
                    }
                    turn.items.push(Item::Reasoning(reasoning, false));
                }
            }
            b"item_completed" => {
                let item = must_be_object(payload.get("item"), "payload.item")?;
                self.item_completed(item, turn_id.as_ref(), line, skips)?;
            }
            other if items::is_call_event(other) => {
                if let Some((id, shown)) = items::event_call(other, payload)? {
                    self.thread.shown(id, turn_id.as_ref(), shown, line);
                }
            }
            b"context_compacted" => self.thread.compaction_event(line),
            b"entered_review_mode" | b"exited_review_mode" => {
                let text = match kind.as_bytes() {
                    b"entered_review_mode" => {
                        text(payload, "user_facing_hint").unwrap_or_else(|| Wtf8::from("Review requested."))
                    }
                    _ => payload
                        .get("review_output")
                        .and_then(|o| str_of(o, "overall_explanation"))
                        .filter(|e| !e.as_bytes().trim_ascii().is_empty())
                        .cloned()
                        .unwrap_or_else(|| Wtf8::from("Reviewer failed to output a response.")),
                };
                self.thread.push(
                    Item::Chunk(Chunk::System {
                        kind: SystemChunkKind::Notice,
                        text,
                    }),
                    line,
                );
            }
            b"error" => {
                let message = text(payload, "message").unwrap_or_default();
                self.thread.push(
                    Item::Chunk(Chunk::Error {
                        message,
                        status_code: None,
                    }),
                    line,
                );
            }
            b"turn_aborted" => {
                let reason = text(payload, "reason").unwrap_or_else(|| Wtf8::from("interrupted"));
                self.thread.aborted(turn_id.as_ref(), reason);
            }
            b"thread_rolled_back" => {
                let n = payload.get("num_turns").and_then(Json::as_f64).ok_or_else(|| {
                    crate::reading::check::wrong(
                        "payload.num_turns".into(),
                        "a number",
                        payload.get("num_turns"),
                    )
                })?;
                self.thread
                    .roll_back(if n.is_finite() && n > 0.0 { n as usize } else { 0 });
            }
            other if QUIET_EVENTS.contains(&other) => skips.pass(&format!("event_msg/{kind}")),
            _ => skips.skip(line, format_args!("unknown event_msg type \"{kind}\""))?,
        }
        Ok(())
    }

    /// An item Codex completed (0.148 and later).
    fn item_completed(
        &mut self,
        item: &Json,
        turn: Option<&Wtf8>,
        line: usize,
        skips: &mut Skips,
    ) -> Result<(), FormatError> {
        let Some(kind) = str_of(item, "type") else {
            return Err(crate::reading::check::wrong(
                "payload.item.type".into(),
                "a string",
                item.get("type"),
            ));
        };
        let id = text(item, "id");
        match kind.as_bytes() {
            b"UserMessage" => self.thread.user(id, item_user_chunks(item), line),
            b"AgentMessage" => {
                let text = items::text_of(item.get("content"), &["Text", "text"]);
                if !text.is_empty() {
                    self.thread.push(Item::Text(text), line);
                }
            }
            b"Reasoning" => {
                let reasoning = Reasoning {
                    id,
                    summary: items::strings(item.get("summary_text")),
                    raw: items::strings(item.get("raw_content")),
                    encrypted: None,
                };
                self.thread.push(Item::Reasoning(reasoning, false), line);
            }
            b"ContextCompaction" => self.thread.compaction_event(line),
            b"Plan" => {
                if let Some(text) = str_of(item, "text").filter(|t| !t.is_empty()) {
                    self.thread
                        .push(Item::Chunk(items::plan_chunk(text.clone())), line);
                }
            }
            b"HookPrompt" | b"Extension" | b"SubAgentActivity" => {
                skips.pass(&format!("item_completed/{kind}"))
            }
            other => match display_kind(other) {
                Some(display) => {
                    let Some(id) = id else {
                        return Err(crate::reading::check::wrong(
                            "payload.item.id".into(),
                            "a string",
                            item.get("id"),
                        ));
                    };
                    let shown = items::shown_item(display, item);
                    self.thread.shown(id, turn, shown, line);
                }
                None => skips.skip(line, format_args!("unknown item_completed item \"{kind}\""))?,
            },
        }
        Ok(())
    }
}

/// A call's id: its `call_id`, else its item `id`, else one made from its line.
fn call_id(payload: &Json, line: usize) -> Wtf8 {
    text(payload, "call_id")
        .or_else(|| text(payload, "id"))
        .unwrap_or_else(|| Wtf8::from(format!("call-line-{line}").as_str()))
}

/// Reads a rollout of any generation.
pub fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<crate::reading::check::Skips, HistoryError> {
    let strict = options.strict;
    let mut reader = reader_of(input);
    // The first bytes say whether this is one JSON document (the TypeScript CLI's), read
    // whole, or JSON lines.
    let mut head = Vec::new();
    let mut block = vec![0; 64 << 10];
    loop {
        let n = read_block(&mut reader, &mut block)?;
        head.extend_from_slice(&block[..n]);
        let start = head
            .iter()
            .position(|b| !b.is_ascii_whitespace() && !matches!(b, 0xEF | 0xBB | 0xBF));
        if n == 0 || start.is_some_and(|s| head[s..].contains(&b'\n')) || head.len() > lines::MAX_LINE {
            break;
        }
    }
    let mut rollout = Reader::new();
    let mut skips;
    let mut rest: Box<dyn Read + '_> = reader;
    if starts_document(&head) {
        // Read whole: one JSON document is the TypeScript CLI's; anything else (a first line
        // cut short) is read as lines after all.
        rest.read_to_end(&mut head).map_err(lines::read_error)?;
        let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
        if let Ok(value @ Json::Object(_)) = value::parse(text) {
            skips = Skips::new(strict);
            rollout.source = Source::Items;
            rollout
                .read(value, 1, &mut skips)
                .map_err(|e| format_error(e, 1))?;
            rollout.finish(&mut skips).map_err(|e| format_error(e, 0))?;
            return emit_thread(rollout, options, skips, emit);
        }
        rest = Box::new(std::io::empty());
    }
    let mut lines = Lines::new(std::io::Cursor::new(head).chain(rest)).strict(strict);
    while let Some((value, number)) = lines.next_parsed(parse_line, parse_error)? {
        rollout
            .line(value, number, &mut lines.skips)
            .map_err(|e| format_error(e, number))?;
    }
    skips = lines.skips;
    rollout.finish(&mut skips).map_err(|e| format_error(e, 0))?;
    emit_thread(rollout, options, skips, emit)
}

fn emit_thread(
    rollout: Reader,
    options: &ReadOptions,
    mut skips: Skips,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    for message in rollout.thread.messages(options.view, &mut skips) {
        if !emit(Message::Format(message)) {
            break;
        }
    }
    Ok(skips)
}

fn format_error(e: FormatError, line: usize) -> HistoryError {
    let e = if e.line.is_none() && line > 0 {
        e.at_line(line)
    } else {
        e
    };
    crate::reading::items::format_error(e)
}

/// Whether the input may be one JSON document spread over lines: its first line opens an
/// object and is no whole JSON value.
fn starts_document(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let Some(start) = head.iter().position(|b| !b.is_ascii_whitespace()) else {
        return false;
    };
    if head[start] != b'{' {
        return false;
    }
    let end = head[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(head.len(), |e| start + e);
    value::parse(&head[start..end]).is_err()
}
