//! The Vercel AI SDK: its UI message stream (the SSE protocol `useChat` reads), the
//! `fullStream` parts of `streamText`, and its persisted `UIMessage`.
//!
//! Stream chunks become agent events and are folded by [`crate::append_event`], so a
//! capture folded live and the `UIMessage` the SDK persists for it give the same chunks.
//! Where the models differ, the mapping is stated here and in docs/formats/ai-sdk.md:
//!
//! - text and reasoning parts are not kept apart by `id`: consecutive parts of one kind
//!   join into one chunk, and deltas of parts that interleave are joined in arrival order;
//! - tool input streamed as partial JSON (`tool-input-start` / `-delta`) shows nothing: the
//!   call appears with its whole input at `tool-input-available` (or `tool-input-error`);
//! - approvals (`tool-approval-*`, `tool-output-denied`) and steps (`start-step`,
//!   `finish-step`, `reset-step`) keep nothing: a denied call stays a call without result;
//! - `providerMetadata` is kept for reasoning only (the latest one the part carried, as the
//!   SDK keeps it), as the thinking chunk's `metadata`;
//! - a `file` chunk or part becomes a file chunk (its `url` as stored, often a `data:`
//!   URL); written back, a file chunk's `data` becomes a `data:` URL;
//! - sources, reasoning files, data parts, custom parts, steering messages and message
//!   metadata have no chunk; `abort` and `finish` end the stream and keep nothing (the SDK's persisted
//!   message has nothing of them either); `error` becomes an error chunk.

use std::collections::HashMap;

use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole};
use crate::owned::IndexedChunks;
use crate::reducer::{append_event, ChunkStore};

use super::check::{array, index, join, object, string, FormatError, FormatResult};
use super::model_json::{FormatChunk, FormatEvent, FormatMessage};
use super::value::Json;
use super::wtf8::Wtf8;

/// The chunk types only a UI message stream has: one of them first in a stream says the
/// stream is one.
pub fn is_ui_only_type(tag: &[u8]) -> bool {
    matches!(
        tag,
        b"start"
            | b"start-step"
            | b"finish-step"
            | b"text-start"
            | b"text-end"
            | b"reasoning-start"
            | b"tool-input-start"
            | b"tool-input-delta"
            | b"tool-input-available"
            | b"tool-input-error"
            | b"tool-output-available"
            | b"tool-output-error"
            | b"tool-output-denied"
            | b"tool-approval-request"
            | b"tool-approval-response"
            | b"source-url"
            | b"source-document"
            | b"message-metadata"
            | b"finish"
            | b"abort"
    ) || tag.starts_with(b"data-")
}

/// What one stream chunk stands for: an agent event, or a file chunk (which no agent event
/// carries: only readers make one).
#[derive(Debug, Clone, PartialEq)]
pub enum Folded {
    Event(FormatEvent),
    File(FormatChunk),
}

/// A file chunk from a `file` stream chunk or `UIMessage` part (`url` as stored, often a
/// `data:` URL).
fn file_chunk(part: &Json, path: &str) -> FormatResult<FormatChunk> {
    Ok(Chunk::File {
        media_type: string(part, "mediaType", path)?.clone(),
        data: None,
        url: Some(string(part, "url", path)?.clone()),
        filename: match part.get("filename") {
            None | Some(Json::Undefined) | Some(Json::Null) => None,
            Some(Json::String(name)) => Some(name.clone()),
            other => return Err(super::check::wrong(join(path, "filename"), "a string", other)),
        },
    })
}

/// Folds what `chunk` stands for into `chunks`.
pub fn fold(chunks: &mut IndexedChunks<Wtf8, Json>, folded: Folded) {
    match folded {
        Folded::Event(event) => {
            let Ok(()) = append_event(chunks, event);
        }
        Folded::File(file) => {
            let Ok(()) = chunks.push_chunk(file);
        }
    }
}

/// What a stream remembers between chunks: the latest `providerMetadata` of each open
/// reasoning part (Anthropic sends the signature on a `reasoning-delta` with an empty
/// delta, and `reasoning-end` without it).
#[derive(Debug, Default)]
pub struct StreamState {
    reasoning_metadata: HashMap<Wtf8, Json>,
}

fn present(value: Option<&Json>) -> Option<&Json> {
    value.filter(|v| !matches!(v, Json::Undefined | Json::Null))
}

impl StreamState {
    fn remember(&mut self, part: &Json, id: &Wtf8) {
        if let Some(metadata) = present(part.get("providerMetadata")) {
            self.reasoning_metadata.insert(id.clone(), metadata.clone());
        }
    }

    fn reasoning_end(&mut self, part: &Json, id: &Wtf8) -> FormatEvent {
        self.remember(part, id);
        AgentEvent::ReasoningEnd {
            metadata: self.reasoning_metadata.remove(id),
        }
    }

    /// One UI message stream chunk as agent events; a `file` chunk has none (see
    /// [`Self::ui_chunk`]).
    pub fn ui_chunk_events(&mut self, chunk: &Json) -> FormatResult<Vec<FormatEvent>> {
        Ok(self
            .ui_chunk(chunk)?
            .into_iter()
            .filter_map(|folded| match folded {
                Folded::Event(event) => Some(event),
                Folded::File(_) => None,
            })
            .collect())
    }

    /// One UI message stream chunk as what it folds to. `[DONE]` is not a chunk: the
    /// framing reader skips it.
    pub fn ui_chunk(&mut self, chunk: &Json) -> FormatResult<Vec<Folded>> {
        object(chunk, "")?;
        let tag = string(chunk, "type", "")?;
        let event = match tag.as_bytes() {
            b"file" => return Ok(vec![Folded::File(file_chunk(chunk, "")?)]),
            b"text-delta" => {
                string(chunk, "id", "")?;
                AgentEvent::TextDelta {
                    delta: string(chunk, "delta", "")?.clone(),
                }
            }
            b"reasoning-start" => {
                let id = string(chunk, "id", "")?;
                self.reasoning_metadata.remove(id);
                self.remember(chunk, id);
                return Ok(Vec::new());
            }
            b"reasoning-delta" => {
                let id = string(chunk, "id", "")?;
                self.remember(chunk, id);
                AgentEvent::ReasoningDelta {
                    delta: string(chunk, "delta", "")?.clone(),
                }
            }
            b"reasoning-end" => {
                let id = string(chunk, "id", "")?.clone();
                self.reasoning_end(chunk, &id)
            }
            b"tool-input-available" => call(chunk, "toolCallId", "toolName", "input")?,
            b"tool-input-error" => {
                let call = call(chunk, "toolCallId", "toolName", "input")?;
                let result = failure(chunk, "toolCallId", "errorText")?;
                return Ok(vec![Folded::Event(call), Folded::Event(result)]);
            }
            b"tool-output-available" => AgentEvent::ToolResult {
                tool_call_id: string(chunk, "toolCallId", "")?.clone(),
                result: payload(chunk, "output"),
                is_error: Json::Bool(false),
            },
            b"tool-output-error" => failure(chunk, "toolCallId", "errorText")?,
            b"error" => AgentEvent::Error {
                error: string(chunk, "errorText", "")?.clone(),
                status_code: None,
            },
            // An agent event in a UI stream means a stream read as the wrong protocol:
            // ignoring it would lose it.
            b"tool-call" | b"tool-result" | b"shell-output" | b"notice" | b"model-changed"
            | b"config-reload" | b"turn-start" => {
                return Err(FormatError::new(
                    "type",
                    format!("'{tag}' is an agent event, not a UI message stream chunk"),
                ))
            }
            _ => return Ok(Vec::new()),
        };
        Ok(vec![Folded::Event(event)])
    }

    /// One `streamText` `fullStream` part (as JSON) as agent events.
    pub fn full_stream_events(&mut self, part: &Json) -> FormatResult<Vec<FormatEvent>> {
        object(part, "")?;
        let tag = string(part, "type", "")?;
        let event = match tag.as_bytes() {
            b"text-delta" => AgentEvent::TextDelta {
                delta: string(part, "text", "")?.clone(),
            },
            b"reasoning-start" => {
                let id = string(part, "id", "")?;
                self.reasoning_metadata.remove(id);
                self.remember(part, id);
                return Ok(Vec::new());
            }
            b"reasoning-delta" => {
                let id = string(part, "id", "")?;
                self.remember(part, id);
                AgentEvent::ReasoningDelta {
                    delta: string(part, "text", "")?.clone(),
                }
            }
            b"reasoning-end" => {
                let id = string(part, "id", "")?.clone();
                self.reasoning_end(part, &id)
            }
            b"tool-call" => call(part, "toolCallId", "toolName", "input")?,
            b"tool-result" => AgentEvent::ToolResult {
                tool_call_id: string(part, "toolCallId", "")?.clone(),
                result: payload(part, "output"),
                is_error: Json::Bool(false),
            },
            b"tool-error" => AgentEvent::ToolResult {
                tool_call_id: string(part, "toolCallId", "")?.clone(),
                result: error_text(part.get("error")),
                is_error: Json::Bool(true),
            },
            b"error" => AgentEvent::Error {
                error: match error_text(part.get("error")) {
                    Json::String(text) => text,
                    _ => Wtf8::new(),
                },
                status_code: None,
            },
            _ => return Ok(Vec::new()),
        };
        Ok(vec![event])
    }
}

/// A payload as given; absent stays absent.
fn payload(object: &Json, key: &str) -> Json {
    object.get(key).cloned().unwrap_or(Json::Undefined)
}

fn call(chunk: &Json, id: &str, name: &str, input: &str) -> FormatResult<FormatEvent> {
    Ok(AgentEvent::ToolCall {
        id: string(chunk, id, "")?.clone(),
        name: string(chunk, name, "")?.clone(),
        arguments: payload(chunk, input),
    })
}

fn failure(chunk: &Json, id: &str, text: &str) -> FormatResult<FormatEvent> {
    Ok(AgentEvent::ToolResult {
        tool_call_id: string(chunk, id, "")?.clone(),
        result: Json::String(string(chunk, text, "")?.clone()),
        is_error: Json::Bool(true),
    })
}

/// An `error` of the full stream (any value) as the text the UI stream would carry: a
/// string as it is, an object's `message`, anything else as its JSON text.
fn error_text(error: Option<&Json>) -> Json {
    match error {
        Some(Json::String(text)) => Json::String(text.clone()),
        Some(object @ Json::Object(_)) => match object.get("message") {
            Some(Json::String(text)) => Json::String(text.clone()),
            _ => Json::String(Wtf8::from_wtf8_unchecked(object.to_json())),
        },
        Some(Json::Undefined) | None => Json::String(Wtf8::from("unknown error")),
        Some(other) => Json::String(Wtf8::from_wtf8_unchecked(other.to_json())),
    }
}

/// The events one `UIMessage` part stands for. Tool parts are `tool-<name>` (static) or
/// `dynamic-tool` with `toolName`; their `state` says how far the call got.
fn part_events(part: &Json, path: &str) -> FormatResult<Vec<Folded>> {
    object(part, path)?;
    let tag = string(part, "type", path)?;
    let bytes = tag.as_bytes();
    if bytes == b"file" {
        return Ok(vec![Folded::File(file_chunk(part, path)?)]);
    }
    let events = match bytes {
        b"text" => vec![AgentEvent::TextDelta {
            delta: string(part, "text", path)?.clone(),
        }],
        b"reasoning" => {
            let mut events = vec![AgentEvent::ReasoningDelta {
                delta: string(part, "text", path)?.clone(),
            }];
            if let Some(metadata) = present(part.get("providerMetadata")) {
                events.push(AgentEvent::ReasoningEnd {
                    metadata: Some(metadata.clone()),
                });
            }
            events
        }
        _ if bytes == b"dynamic-tool" || bytes.starts_with(b"tool-") => {
            let name = if bytes == b"dynamic-tool" {
                string(part, "toolName", path)?.clone()
            } else {
                Wtf8::from_wtf8_unchecked(bytes[5..].to_vec())
            };
            let id = string(part, "toolCallId", path)?.clone();
            let state = string(part, "state", path)?;
            let mut events = vec![AgentEvent::ToolCall {
                id: id.clone(),
                name,
                arguments: payload(part, "input"),
            }];
            match state.as_bytes() {
                b"output-available" => events.push(AgentEvent::ToolResult {
                    tool_call_id: id,
                    result: payload(part, "output"),
                    is_error: Json::Bool(false),
                }),
                b"output-error" => events.push(AgentEvent::ToolResult {
                    tool_call_id: id,
                    result: Json::String(string(part, "errorText", path)?.clone()),
                    is_error: Json::Bool(true),
                }),
                b"input-streaming"
                | b"input-available"
                | b"approval-requested"
                | b"approval-responded"
                | b"output-denied" => {}
                _ => {
                    return Err(FormatError::new(
                        join(path, "state"),
                        format!("must be a tool part state (input-streaming, input-available, approval-requested, approval-responded, output-available, output-error, output-denied), got '{state}'"),
                    ))
                }
            }
            events
        }
        _ => Vec::new(),
    };
    Ok(events.into_iter().map(Folded::Event).collect())
}

fn role(message: &Json) -> FormatResult<MessageRole> {
    let role = string(message, "role", "")?;
    match role.as_bytes() {
        b"user" => Ok(MessageRole::User),
        b"assistant" => Ok(MessageRole::Assistant),
        b"system" => Ok(MessageRole::System),
        _ => Err(FormatError::new(
            "role",
            format!("must be 'user', 'assistant' or 'system', got '{role}'"),
        )),
    }
}

/// A `UIMessage` as a message: its parts folded as the events they stand for.
pub fn read_message(message: &Json) -> FormatResult<FormatMessage> {
    object(message, "")?;
    let id = string(message, "id", "")?.to_string_lossy().into_owned();
    let role = role(message)?;
    let mut chunks = IndexedChunks::new();
    for (i, part) in array(message, "parts", "")?.iter().enumerate() {
        for folded in part_events(part, &index("parts", i))? {
            fold(&mut chunks, folded);
        }
    }
    Ok(ChatMessage {
        id,
        role,
        chunks: chunks.into_chunks(),
    })
}

/// The stream's chunks folded into one message (for `ChunkStream`-like use from JSON
/// values): each chunk's events, in order.
pub fn fold_ui_chunks(chunks: &[Json]) -> FormatResult<Vec<FormatChunk>> {
    let mut state = StreamState::default();
    let mut folded = IndexedChunks::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let events = state
            .ui_chunk_events(chunk)
            .map_err(|e| within(e, &index("", i)))?;
        for event in events {
            let Ok(()) = append_event(&mut folded, event);
        }
    }
    Ok(folded.into_chunks())
}

fn within(mut error: FormatError, at: &str) -> FormatError {
    error.path = if error.path.is_empty() {
        at.to_string()
    } else {
        format!("{at}.{}", error.path)
    };
    error
}

fn text_of(value: &Wtf8) -> Json {
    Json::String(value.clone())
}

/// A message as a `UIMessage`. Text chunks become `text` parts and thinking chunks
/// `reasoning` parts (the metadata as `providerMetadata`), both `state: 'done'`; each tool
/// call becomes a `tool-<name>` part, `output-available` with its result,
/// `output-error` with its result as `errorText` when `isError` is `true` (a result that
/// is not a string is written as its JSON text), `input-available` without a result.
/// System chunks become text parts (of a `system` message). Error chunks, shell output
/// and a call's `isError` values other than `true`/`false` have no part: they are left
/// out, as the SDK's own persisted message has no error either. A `step-start` part opens
/// the message and every step after a tool batch, as the SDK writes them.
pub fn write_message(message: &FormatMessage) -> Json {
    let mut parts = Vec::new();
    let assistant = message.role == MessageRole::Assistant;
    if assistant {
        parts.push(Json::object([("type", Json::string("step-start"))]));
    }
    let mut after_tools = false;
    for chunk in &message.chunks {
        if after_tools && assistant && !matches!(chunk, Chunk::Error { .. }) {
            parts.push(Json::object([("type", Json::string("step-start"))]));
            after_tools = false;
        }
        match chunk {
            Chunk::Text { text } | Chunk::System { text, .. } => parts.push(Json::object([
                ("type", Json::string("text")),
                ("text", text_of(text)),
                ("state", Json::string("done")),
            ])),
            Chunk::Thinking { text, metadata } => {
                let mut fields = vec![
                    (Wtf8::from("type"), Json::string("reasoning")),
                    (Wtf8::from("text"), text_of(text)),
                    (Wtf8::from("state"), Json::string("done")),
                ];
                if let Some(metadata) = metadata.as_ref().filter(|m| !matches!(m, Json::Undefined)) {
                    fields.push((Wtf8::from("providerMetadata"), metadata.clone()));
                }
                parts.push(Json::Object(fields));
            }
            Chunk::ToolBatch { calls } => {
                for call in calls {
                    let mut tag = Wtf8::from("tool-");
                    tag.push_wtf8(call.name.as_bytes());
                    let mut fields = vec![
                        (Wtf8::from("type"), Json::String(tag)),
                        (Wtf8::from("toolCallId"), text_of(&call.id)),
                    ];
                    let input = (Wtf8::from("input"), call.arguments.clone());
                    match &call.result {
                        Some((result, Json::Bool(true))) => {
                            let text = match result {
                                Json::String(text) => text.clone(),
                                other => Wtf8::from_wtf8_unchecked(other.to_json()),
                            };
                            fields.push((Wtf8::from("state"), Json::string("output-error")));
                            fields.push(input);
                            fields.push((Wtf8::from("errorText"), Json::String(text)));
                        }
                        Some((result, _)) => {
                            fields.push((Wtf8::from("state"), Json::string("output-available")));
                            fields.push(input);
                            fields.push((Wtf8::from("output"), result.clone()));
                        }
                        None => {
                            fields.push((Wtf8::from("state"), Json::string("input-available")));
                            fields.push(input);
                        }
                    }
                    parts.push(Json::Object(fields));
                }
                after_tools = true;
            }
            Chunk::File {
                media_type,
                data,
                url,
                filename,
            } => {
                let url = match (url, data) {
                    (Some(url), _) => url.clone(),
                    (None, data) => {
                        let mut url = Wtf8::from("data:");
                        url.push_wtf8(media_type.as_bytes());
                        url.push_wtf8(b";base64,");
                        if let Some(data) = data {
                            url.push_wtf8(data.as_bytes());
                        }
                        url
                    }
                };
                let mut fields = vec![
                    (Wtf8::from("type"), Json::string("file")),
                    (Wtf8::from("mediaType"), text_of(media_type)),
                ];
                if let Some(filename) = filename {
                    fields.push((Wtf8::from("filename"), text_of(filename)));
                }
                fields.push((Wtf8::from("url"), Json::String(url)));
                parts.push(Json::Object(fields));
            }
            Chunk::Error { .. } => {}
        }
    }
    Json::Object(vec![
        (Wtf8::from("id"), Json::string(message.id.as_str())),
        (
            Wtf8::from("role"),
            Json::string(super::model_json::role_name(message.role)),
        ),
        (Wtf8::from("parts"), Json::Array(parts)),
    ])
}

/// `UIMessage[]` as messages.
pub fn read_messages(messages: &[Json]) -> FormatResult<Vec<FormatMessage>> {
    messages
        .iter()
        .enumerate()
        .map(|(i, message)| read_message(message).map_err(|e| within(e, &index("", i))))
        .collect()
}

// ─── The row of the table of formats ─────────────────────────────────────────────

use super::check::Skips;
use super::live::{Folded as Messages, LiveFold};
use super::registry::{Format, Sniff};

/// Whether a stream's first value opens a UI message stream (see
/// [`crate::bytes`]'s detection, which decides the same by the same rule).
fn opens_ui_stream(sniff: &Sniff) -> bool {
    !sniff.is_array()
        && sniff.first().is_some_and(|value| {
            let tag = value.get("type").and_then(Json::as_str).map(Wtf8::as_bytes);
            let has_id = value.get("id").is_some();
            tag.is_some_and(|tag| {
                is_ui_only_type(tag)
                    || (has_id && matches!(tag, b"text-delta" | b"reasoning-delta" | b"reasoning-end"))
            })
        })
}

/// A UI message stream folded live: each `start` chunk begins a message named by its
/// `messageId`.
#[derive(Debug, Default)]
pub struct UiStream {
    state: StreamState,
}

impl LiveFold for UiStream {
    fn push(
        &mut self,
        value: Json,
        _line: usize,
        out: &mut Messages,
        _skips: &mut Skips,
    ) -> FormatResult<()> {
        if value
            .get("type")
            .and_then(Json::as_str)
            .is_some_and(|t| *t == "start")
        {
            let id = match value.get("messageId") {
                Some(Json::String(id)) => Some(id.to_string_lossy().into_owned()),
                _ => None,
            };
            out.begin(MessageRole::Assistant, id);
            return Ok(());
        }
        for step in self.state.ui_chunk(&value)? {
            match step {
                Folded::Event(event) => out.apply(event),
                Folded::File(file) => out.push_chunk(file),
            }
        }
        Ok(())
    }
}

pub const AI_SDK: Format = Format {
    name: "ai-sdk",
    summary: "an AI SDK UI message stream, SSE or NDJSON (one assistant message per start chunk)",
    detect: opens_ui_stream,
    // The bytes path reads it, telling it from agent events by its first frame.
    history: Some(crate::history::read_events),
    stream: Some((|| Box::new(UiStream::default()), "turn")),
    write: None,
};
