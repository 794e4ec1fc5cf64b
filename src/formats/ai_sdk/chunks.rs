//! The Vercel AI SDK: its UI message stream (the SSE protocol `useChat` reads), the
//! `fullStream` parts of `streamText`, and its persisted `UIMessage`.
//!
//! Stream chunks become agent events and are folded by [`crate::append_event`], so a
//! capture folded live and the `UIMessage` the SDK persists for it give the same chunks.
//! Where the models differ, the mapping is stated here and in docs/formats/ai-sdk.md:
//!
//! - each text part and each reasoning part is a chunk of its own (opened by its
//!   `text-start` / `reasoning-start`, so an empty or redacted part is kept too), and a
//!   part's deltas and its end land on it by `id`, also when parts interleave;
//! - a `start-step` begins a new tool batch at the step's first call, so a `toolCallId`
//!   a provider reuses in a later step is a call of its own, with its own result;
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

use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole, ToolCallEntry};
use crate::owned::IndexedChunks;
use std::hash::Hash;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{array, index, join, object, string, FormatError, FormatResult};
use crate::reading::model_json::{FormatChunk, FormatEvent, FormatMessage};
use crate::reading::steps::{apply_owned, ChunkStep};

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

/// Whether `tag` is a chunk type of the UI message stream (as the SDK's schema lists them).
pub fn is_ui_chunk_type(tag: &[u8]) -> bool {
    is_ui_only_type(tag)
        || matches!(
            tag,
            b"text-delta"
                | b"reasoning-delta"
                | b"reasoning-end"
                | b"error"
                | b"file"
                | b"reset-step"
                | b"reasoning-file"
                | b"steering-message"
                | b"custom"
        )
}

/// The agent event types a UI stream must not hold: one of them means a stream read as
/// the wrong protocol (an error, not a skip).
pub fn is_agent_event_type(tag: &[u8]) -> bool {
    matches!(
        tag,
        b"tool-call"
            | b"tool-result"
            | b"shell-output"
            | b"notice"
            | b"model-changed"
            | b"config-reload"
            | b"turn-start"
    )
}

/// Whether a chunk is the UI stream's `error` (`errorText`, where an agent event has
/// `error`): what `createUIMessageStream` writes first when its `execute` throws.
pub fn is_ui_error(chunk: &Json) -> bool {
    chunk
        .get("type")
        .and_then(Json::as_str)
        .is_some_and(|t| *t == "error")
        && chunk.get("errorText").is_some()
        && chunk.get("error").is_none()
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
            other => {
                return Err(crate::reading::check::wrong(
                    join(path, "filename"),
                    "a string",
                    other,
                ))
            }
        },
    })
}

/// Which kind of part an id names (a text part and a reasoning part may share an id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum PartKind {
    Text,
    Reasoning,
}

/// What a stream remembers between chunks: where each text and reasoning part's chunk
/// is, the latest `providerMetadata` of each open reasoning part (Anthropic sends the
/// signature on a `reasoning-delta` with an empty delta, and `reasoning-end` without it),
/// and whether a step began since the last tool call.
#[derive(Debug, Default)]
pub struct StreamState {
    reasoning_metadata: HashMap<Wtf8, Json>,
    parts: HashMap<(PartKind, Wtf8), usize>,
    /// The newest part, looked up first (most deltas are of it).
    last_part: Option<(PartKind, Wtf8, usize)>,
    new_step: bool,
    /// What each tool call's chunks said of it beyond its input and output (its `meta`).
    tool_meta: HashMap<Wtf8, Vec<(Wtf8, Json)>>,
}

/// The fields of a tool chunk or part the call's `meta` keeps, and the name it keeps each
/// by (`providerMetadata` is the call's or the result's, by where it came).
fn meta_fields(chunk: &Json, of_result: bool) -> Vec<(Wtf8, Json)> {
    let mut fields = Vec::new();
    if matches!(chunk.get("dynamic"), Some(Json::Bool(true)))
        || chunk
            .get("type")
            .and_then(Json::as_str)
            .is_some_and(|t| *t == "dynamic-tool")
    {
        fields.push((Wtf8::from("dynamic"), Json::Bool(true)));
    }
    for key in [
        "title",
        "providerExecuted",
        "toolMetadata",
        "callProviderMetadata",
        "resultProviderMetadata",
    ] {
        if let Some(value) = present(chunk.get(key)) {
            fields.push((Wtf8::from(key), value.clone()));
        }
    }
    if let Some(metadata) = present(chunk.get("providerMetadata")) {
        let key = if of_result {
            "resultProviderMetadata"
        } else {
            "callProviderMetadata"
        };
        fields.push((Wtf8::from(key), metadata.clone()));
    }
    fields
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

    /// One UI message stream chunk as agent events, for `appendEventToChunks` (which
    /// keeps no part boundaries: consecutive parts of one kind join there); a `file` chunk
    /// has none.
    pub fn ui_chunk_events(&mut self, chunk: &Json) -> FormatResult<Vec<FormatEvent>> {
        let tag = chunk.get("type").and_then(Json::as_str).map(Wtf8::as_bytes);
        if let (Some(b"text-delta" | b"reasoning-delta" | b"reasoning-end"), Json::Object(_)) = (tag, chunk) {
            let id = string(chunk, "id", "")?.clone();
            return Ok(match tag {
                Some(b"text-delta") => vec![AgentEvent::TextDelta {
                    delta: string(chunk, "delta", "")?.clone(),
                }],
                Some(b"reasoning-delta") => {
                    self.remember(chunk, &id);
                    vec![AgentEvent::ReasoningDelta {
                        delta: string(chunk, "delta", "")?.clone(),
                    }]
                }
                _ => vec![self.reasoning_end(chunk, &id)],
            });
        }
        Ok(self
            .ui_chunk(chunk, 0)?
            .into_iter()
            .filter_map(|folded| match folded {
                ChunkStep::Event(event) => Some(event),
                ChunkStep::Chunk(Chunk::ToolBatch { calls }) => {
                    calls.into_iter().next().map(|call| AgentEvent::ToolCall {
                        id: call.id,
                        name: call.name,
                        arguments: call.arguments,
                    })
                }
                _ => None,
            })
            .collect())
    }

    /// Where the chunk of a part is, when its start was seen.
    fn part(&self, kind: PartKind, id: &Wtf8) -> Option<usize> {
        match &self.last_part {
            Some((k, last, index)) if *k == kind && last == id => Some(*index),
            _ => self.parts.get(&(kind, id.clone())).copied(),
        }
    }

    /// [`Self::part`] by the id's bytes (the newest part is found without a copy).
    pub fn part_of(&self, id: &[u8], reasoning: bool) -> Option<usize> {
        let kind = if reasoning {
            PartKind::Reasoning
        } else {
            PartKind::Text
        };
        match &self.last_part {
            Some((k, last, index)) if *k == kind && last.as_bytes() == id => Some(*index),
            _ if self.parts.is_empty() => None,
            _ => self.part(kind, &Wtf8::from_wtf8_unchecked(id.to_vec())),
        }
    }

    /// A new part's chunk, at `len` (the message's chunk count).
    fn open_part(&mut self, kind: PartKind, id: &Wtf8, len: usize, chunk: FormatChunk) -> Vec<ChunkStep> {
        self.parts.insert((kind, id.clone()), len);
        self.last_part = Some((kind, id.clone(), len));
        vec![ChunkStep::Chunk(chunk)]
    }

    /// A new message begins: part ids name parts of it alone.
    pub fn start_message(&mut self) {
        self.parts.clear();
        self.last_part = None;
        self.tool_meta.clear();
        self.reasoning_metadata.clear();
        self.new_step = false;
    }

    /// Notes what a tool chunk says of its call beyond input and output; the call's
    /// whole `meta` when that changed it.
    fn note_tool(&mut self, chunk: &Json, of_result: bool) -> Option<(Wtf8, Json)> {
        let id = chunk.get("toolCallId").and_then(Json::as_str)?.clone();
        let known = self.tool_meta.contains_key(&id);
        let meta = self.tool_meta.entry(id.clone()).or_default();
        // Whether a tool is dynamic is settled by the chunk that began its part.
        let fields: Vec<_> = meta_fields(chunk, of_result)
            .into_iter()
            .filter(|(key, _)| !known || *key != "dynamic")
            .collect();
        if fields.is_empty() {
            return None;
        }
        for (key, value) in fields {
            match meta.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => meta.push((key, value)),
            }
        }
        Some((id, Json::Object(meta.clone())))
    }

    /// The call's steps: the first call of a step opens a tool batch of its own (a
    /// provider may reuse an id of an earlier step); the others join the open batch. Its
    /// `meta` goes with it.
    fn call_step(&mut self, event: FormatEvent) -> Vec<ChunkStep> {
        let meta = match &event {
            AgentEvent::ToolCall { id, .. } => self
                .tool_meta
                .get(id)
                .filter(|m| !m.is_empty())
                .map(|m| Json::Object(m.clone())),
            _ => None,
        };
        match event {
            AgentEvent::ToolCall { id, name, arguments } if std::mem::take(&mut self.new_step) => {
                let mut call = ToolCallEntry::new(id, name, arguments);
                call.meta = meta;
                vec![ChunkStep::Chunk(Chunk::ToolBatch { calls: vec![call] })]
            }
            AgentEvent::ToolCall { id, name, arguments } => {
                let mut steps = vec![ChunkStep::Event(AgentEvent::ToolCall {
                    id: id.clone(),
                    name,
                    arguments,
                })];
                steps.extend(meta.map(|meta| ChunkStep::Meta(id, meta)));
                steps
            }
            event => vec![ChunkStep::Event(event)],
        }
    }

    /// A text delta of the part `id` (a delta of a part never started extends the last
    /// text, as an agent event would).
    pub fn text_delta(&self, id: &Wtf8, delta: Wtf8) -> ChunkStep {
        match self.part(PartKind::Text, id) {
            Some(index) => ChunkStep::Extend(index, delta),
            None => ChunkStep::Event(AgentEvent::TextDelta { delta }),
        }
    }

    /// A reasoning delta of the part `id`.
    pub fn reasoning_delta(&self, id: &Wtf8, delta: Wtf8) -> ChunkStep {
        match self.part(PartKind::Reasoning, id) {
            Some(index) => ChunkStep::Extend(index, delta),
            None => ChunkStep::Event(AgentEvent::ReasoningDelta { delta }),
        }
    }

    /// One UI message stream chunk as what it folds to, in a message of `len` chunks.
    /// `[DONE]` is not a chunk: the framing reader skips it.
    pub fn ui_chunk(&mut self, chunk: &Json, len: usize) -> FormatResult<Vec<ChunkStep>> {
        object(chunk, "")?;
        let tag = string(chunk, "type", "")?;
        let event = match tag.as_bytes() {
            b"file" => return Ok(vec![ChunkStep::Chunk(file_chunk(chunk, "")?)]),
            b"start-step" => {
                self.new_step = true;
                return Ok(Vec::new());
            }
            b"text-start" => {
                let id = string(chunk, "id", "")?;
                let text = Chunk::Text { text: Wtf8::new() };
                return Ok(self.open_part(PartKind::Text, id, len, text));
            }
            b"text-delta" => {
                let id = string(chunk, "id", "")?;
                let delta = string(chunk, "delta", "")?.clone();
                return Ok(vec![self.text_delta(id, delta)]);
            }
            b"reasoning-start" => {
                let id = string(chunk, "id", "")?;
                self.reasoning_metadata.remove(id);
                self.remember(chunk, id);
                let thinking = Chunk::Thinking {
                    text: Wtf8::new(),
                    metadata: None,
                };
                return Ok(self.open_part(PartKind::Reasoning, id, len, thinking));
            }
            b"reasoning-delta" => {
                let id = string(chunk, "id", "")?;
                self.remember(chunk, id);
                let delta = string(chunk, "delta", "")?.clone();
                return Ok(vec![self.reasoning_delta(id, delta)]);
            }
            b"reasoning-end" => {
                let id = string(chunk, "id", "")?.clone();
                let end = self.reasoning_end(chunk, &id);
                return Ok(match (self.part(PartKind::Reasoning, &id), end) {
                    (
                        Some(index),
                        AgentEvent::ReasoningEnd {
                            metadata: Some(metadata),
                        },
                    ) => {
                        vec![ChunkStep::Seal(index, metadata)]
                    }
                    (Some(_), _) => Vec::new(),
                    (None, end) => vec![ChunkStep::Event(end)],
                });
            }
            b"tool-input-start" => {
                if let Some(id) = chunk.get("toolCallId").and_then(Json::as_str) {
                    self.tool_meta.remove(id);
                }
                self.note_tool(chunk, false);
                return Ok(Vec::new());
            }
            b"tool-input-available" => {
                let call = call(chunk, "toolCallId", "toolName", "input")?;
                self.note_tool(chunk, false);
                return Ok(self.call_step(call));
            }
            b"tool-input-error" => {
                let call = call(chunk, "toolCallId", "toolName", "input")?;
                let result = failure(chunk, "toolCallId", "errorText")?;
                self.note_tool(chunk, false);
                let mut steps = self.call_step(call);
                steps.push(ChunkStep::Event(result));
                return Ok(steps);
            }
            b"tool-output-available" | b"tool-output-error" => {
                let result = match tag.as_bytes() {
                    b"tool-output-available" => AgentEvent::ToolResult {
                        tool_call_id: string(chunk, "toolCallId", "")?.clone(),
                        result: payload(chunk, "output"),
                        is_error: Json::Bool(false),
                    },
                    _ => failure(chunk, "toolCallId", "errorText")?,
                };
                let mut steps = vec![ChunkStep::Event(result)];
                steps.extend(
                    self.note_tool(chunk, true)
                        .map(|(id, meta)| ChunkStep::Meta(id, meta)),
                );
                return Ok(steps);
            }
            b"error" => AgentEvent::Error {
                error: string(chunk, "errorText", "")?.clone(),
                status_code: None,
            },
            // An agent event in a UI stream means a stream read as the wrong protocol:
            // ignoring it would lose it.
            bytes if is_agent_event_type(bytes) => {
                return Err(FormatError::new(
                    "type",
                    format!("'{tag}' is an agent event, not a UI message stream chunk"),
                ))
            }
            _ => return Ok(Vec::new()),
        };
        Ok(vec![ChunkStep::Event(event)])
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

/// What one `UIMessage` part stands for: a text or reasoning part is a chunk of its own,
/// a `step-start` makes the step's first call open a batch of its own (as in the stream).
/// Tool parts are `tool-<name>` (static) or `dynamic-tool` with `toolName`; their `state`
/// says how far the call got.
fn part_events(state: &mut StreamState, part: &Json, path: &str) -> FormatResult<Vec<ChunkStep>> {
    object(part, path)?;
    let tag = string(part, "type", path)?;
    let bytes = tag.as_bytes();
    let events = match bytes {
        b"file" => return Ok(vec![ChunkStep::Chunk(file_chunk(part, path)?)]),
        b"step-start" => {
            state.new_step = true;
            return Ok(Vec::new());
        }
        b"text" => {
            return Ok(vec![ChunkStep::Chunk(Chunk::Text {
                text: string(part, "text", path)?.clone(),
            })])
        }
        b"reasoning" => {
            return Ok(vec![ChunkStep::Chunk(Chunk::Thinking {
                text: string(part, "text", path)?.clone(),
                metadata: present(part.get("providerMetadata")).cloned(),
            })])
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
    let mut events = events.into_iter();
    let Some(call) = events.next() else {
        return Ok(Vec::new());
    };
    if let AgentEvent::ToolCall { id, .. } = &call {
        match meta_fields(part, false) {
            fields if fields.is_empty() => state.tool_meta.remove(id),
            fields => state.tool_meta.insert(id.clone(), fields),
        };
    }
    let mut steps = state.call_step(call);
    steps.extend(events.map(ChunkStep::Event));
    Ok(steps)
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
    let mut state = StreamState::default();
    for (i, part) in array(message, "parts", "")?.iter().enumerate() {
        for folded in part_events(&mut state, part, &index("parts", i))? {
            apply_owned(&mut chunks, folded);
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
        let len = folded.chunks().len();
        let steps = state.ui_chunk(chunk, len).map_err(|e| within(e, &index("", i)))?;
        for step in steps {
            apply_owned(&mut folded, step);
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
/// `reasoning` parts (the metadata as `providerMetadata`, when it is what the SDK's schema
/// takes: an object of objects), both `state: 'done'`; each tool
/// call becomes a `tool-<name>` part (`dynamic-tool` with `toolName` when its `meta` says
/// `dynamic`; the `meta`'s `title`, `providerExecuted`, `toolMetadata` and provider
/// metadata as the part's), `output-available` with its result,
/// `output-error` with its result as `errorText` when `isError` is `true` (a result that
/// is not a string is written as its JSON text), `input-available` without a result; an
/// input or output that is absent is `null` (the SDK's chunks must carry both keys).
/// System chunks become text parts (of a `system` message). Error chunks, shell output
/// and a call's `isError` values other than `true`/`false` have no part: they are left
/// out, as the SDK's own persisted message has no error either. An assistant message's
/// steps each begin with a `step-start` part, as the SDK writes them: the message is one
/// step, and a new one begins after each tool batch; a step holds at least one part (a
/// message of error chunks alone has no part at all).
pub fn write_message(message: &FormatMessage) -> Json {
    let mut parts = Vec::new();
    write_parts(message, &mut parts);
    Json::Object(vec![
        (Wtf8::from("id"), Json::string(message.id.as_str())),
        (
            Wtf8::from("role"),
            Json::string(crate::reading::model_json::role_name(message.role)),
        ),
        (Wtf8::from("parts"), Json::Array(parts)),
    ])
}

/// Messages as the `UIMessage`s a `useChat` client holds: each run of assistant messages
/// (those between two messages of another role) is one response, one `UIMessage` named
/// by its first message, its messages one after the other as its steps — as the SDK keeps
/// a multi-step agent turn. Every other message is its own (see [`write_message`]).
pub fn write_messages(messages: &[FormatMessage]) -> Vec<Json> {
    let mut out: Vec<Json> = Vec::new();
    let mut in_response = false;
    for message in messages {
        let assistant = message.role == MessageRole::Assistant;
        if assistant && in_response {
            if let Some(Json::Object(fields)) = out.last_mut() {
                if let Some((_, Json::Array(parts))) = fields.iter_mut().find(|(k, _)| *k == "parts") {
                    write_parts(message, parts);
                }
            }
        } else {
            out.push(write_message(message));
        }
        in_response = assistant;
    }
    out
}

/// Whether a value is what the SDK's `providerMetadataSchema` takes: an object whose
/// values are objects.
pub fn is_provider_metadata(value: &Json) -> bool {
    match value {
        Json::Object(fields) => fields.iter().all(|(_, v)| matches!(v, Json::Object(_))),
        _ => false,
    }
}

/// A value a chunk must carry (`input`, `output`): absent is `null`.
pub fn carried(value: &Json) -> Json {
    match value {
        Json::Undefined => Json::Null,
        other => other.clone(),
    }
}

/// A result given as an error, as the SDK's `errorText` holds it.
pub fn result_error_text(result: &Json) -> Wtf8 {
    match result {
        Json::String(text) => text.clone(),
        other => Wtf8::from_wtf8_unchecked(other.to_json()),
    }
}

/// The fields of a call's `meta` that its part (and its stream chunks) carry, as the SDK's
/// schema takes them: `title` a string, `providerExecuted` a boolean, `toolMetadata` an
/// object, provider metadata an object of objects.
pub fn call_meta(meta: Option<&Json>) -> Vec<(&'static str, Json)> {
    let meta = match meta {
        Some(Json::Object(meta)) => &meta[..],
        _ => &[],
    };
    let kept = |key: &str| meta.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
    let mut fields = Vec::new();
    for key in [
        "title",
        "providerExecuted",
        "toolMetadata",
        "callProviderMetadata",
        "resultProviderMetadata",
    ] {
        let Some(value) = kept(key) else { continue };
        let fits = match key {
            "title" => matches!(value, Json::String(_)),
            "providerExecuted" => matches!(value, Json::Bool(_)),
            "toolMetadata" => matches!(value, Json::Object(_)),
            _ => is_provider_metadata(value),
        };
        if fits {
            fields.push((key, value.clone()));
        }
    }
    fields
}

/// Whether a call's `meta` says it is a dynamic tool.
pub fn is_dynamic(meta: Option<&Json>) -> bool {
    meta.and_then(|m| m.get("dynamic")) == Some(&Json::Bool(true))
}

/// A message's parts, after `parts` (see [`write_message`]).
fn write_parts(message: &FormatMessage, parts: &mut Vec<Json>) {
    let assistant = message.role == MessageRole::Assistant;
    // A step begins before its first part.
    let mut in_step = false;
    for chunk in &message.chunks {
        if matches!(chunk, Chunk::Error { .. }) {
            continue;
        }
        if assistant && !in_step {
            parts.push(Json::object([("type", Json::string("step-start"))]));
            in_step = true;
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
                if let Some(metadata) = metadata.as_ref().filter(|m| is_provider_metadata(m)) {
                    fields.push((Wtf8::from("providerMetadata"), metadata.clone()));
                }
                parts.push(Json::Object(fields));
            }
            Chunk::ToolBatch { calls } => {
                for call in calls {
                    let mut fields = if is_dynamic(call.meta.as_ref()) {
                        vec![
                            (Wtf8::from("type"), Json::string("dynamic-tool")),
                            (Wtf8::from("toolName"), text_of(&call.name)),
                        ]
                    } else {
                        let mut tag = Wtf8::from("tool-");
                        tag.push_wtf8(call.name.as_bytes());
                        vec![(Wtf8::from("type"), Json::String(tag))]
                    };
                    fields.push((Wtf8::from("toolCallId"), text_of(&call.id)));
                    let input = (Wtf8::from("input"), carried(&call.arguments));
                    match &call.result {
                        Some((result, Json::Bool(true))) => {
                            fields.push((Wtf8::from("state"), Json::string("output-error")));
                            fields.push(input);
                            fields.push((Wtf8::from("errorText"), Json::String(result_error_text(result))));
                        }
                        Some((result, _)) => {
                            fields.push((Wtf8::from("state"), Json::string("output-available")));
                            fields.push(input);
                            fields.push((Wtf8::from("output"), carried(result)));
                        }
                        None => {
                            fields.push((Wtf8::from("state"), Json::string("input-available")));
                            fields.push(input);
                        }
                    }
                    fields.extend(
                        call_meta(call.meta.as_ref())
                            .into_iter()
                            .map(|(key, value)| (Wtf8::from(key), value)),
                    );
                    parts.push(Json::Object(fields));
                }
                // The next part begins a new step.
                in_step = false;
            }
            Chunk::File {
                media_type,
                data,
                url,
                filename,
            } => {
                let url = file_url(media_type, data.as_ref(), url.as_ref());
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
}

/// `UIMessage[]` as messages.
pub fn read_messages(messages: &[Json]) -> FormatResult<Vec<FormatMessage>> {
    messages
        .iter()
        .enumerate()
        .map(|(i, message)| read_message(message).map_err(|e| within(e, &index("", i))))
        .collect()
}

impl PartKind {
    const ALL: [(PartKind, &'static str); 2] = [(PartKind::Text, "text"), (PartKind::Reasoning, "reasoning")];

    fn name(self) -> &'static str {
        match self {
            PartKind::Text => "text",
            PartKind::Reasoning => "reasoning",
        }
    }
}

impl StreamState {
    /// What it remembers, as JSON: per kind, each part id's chunk index (the next
    /// delta of a part lands there), the newest part, each reasoning part's latest
    /// metadata, whether a step began, and each call's `meta` so far.
    pub fn save(&self) -> Json {
        use crate::reading::resume::number;
        let parts = PartKind::ALL.map(|(kind, name)| {
            let mut ids: Vec<(Wtf8, Json)> = self
                .parts
                .iter()
                .filter(|((k, _), _)| *k == kind)
                .map(|((_, id), at)| (id.clone(), number(*at)))
                .collect();
            ids.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            (name, Json::Object(ids))
        });
        let last = match &self.last_part {
            Some((kind, id, at)) => Json::Array(vec![
                Json::string(kind.name()),
                Json::String(id.clone()),
                number(*at),
            ]),
            None => Json::Null,
        };
        let map =
            |m: &HashMap<Wtf8, Json>| Json::Object(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
        Json::object([
            ("parts", Json::object(parts)),
            ("lastPart", last),
            ("reasoningMetadata", map(&self.reasoning_metadata)),
            ("newStep", Json::Bool(self.new_step)),
            (
                "toolMeta",
                Json::Object(
                    self.tool_meta
                        .iter()
                        .map(|(id, meta)| (id.clone(), Json::Object(meta.clone())))
                        .collect(),
                ),
            ),
        ])
    }

    pub fn restore(state: &Json) -> Result<Self, String> {
        use crate::reading::resume::{flag, members, whole};
        let parts_state = state.get("parts").unwrap_or(&Json::Null);
        let mut parts = HashMap::new();
        for (kind, name) in PartKind::ALL {
            for (id, at) in members(parts_state, name).map_err(|e| format!(".parts{e}"))? {
                let at = whole(at)
                    .ok_or_else(|| format!(".parts.{name}: a chunk index must be a whole number"))?;
                parts.insert((kind, id.clone()), at);
            }
        }
        let last_part = match state.get("lastPart") {
            None | Some(Json::Null) => None,
            Some(Json::Array(last)) => match last.as_slice() {
                [Json::String(kind), Json::String(id), at] => {
                    let kind = PartKind::ALL
                        .iter()
                        .find(|(_, name)| *kind == *name)
                        .map(|(k, _)| *k)
                        .ok_or(".lastPart[0] must be 'text' or 'reasoning'")?;
                    let at = whole(at).ok_or(".lastPart[2] must be a whole number")?;
                    Some((kind, id.clone(), at))
                }
                _ => return Err(".lastPart must be [kind, id, index]".into()),
            },
            Some(_) => return Err(".lastPart must be [kind, id, index]".into()),
        };
        let reasoning_metadata = members(state, "reasoningMetadata")?.iter().cloned().collect();
        let mut tool_meta = HashMap::new();
        for (id, meta) in members(state, "toolMeta")? {
            let Json::Object(fields) = meta else {
                return Err(".toolMeta: each call's meta must be an object".into());
            };
            tool_meta.insert(id.clone(), fields.clone());
        }
        Ok(StreamState {
            reasoning_metadata,
            parts,
            last_part,
            new_step: flag(state, "newStep")?,
            tool_meta,
        })
    }
}

/// A file chunk's URL as a UI message part holds it: its `url`, else its base64 `data` as
/// a `data:` URL.
pub fn file_url(media_type: &Wtf8, data: Option<&Wtf8>, url: Option<&Wtf8>) -> Wtf8 {
    if let Some(url) = url {
        return url.clone();
    }
    let mut url = Wtf8::from("data:");
    url.push_wtf8(media_type.as_bytes());
    url.push_wtf8(b";base64,");
    if let Some(data) = data {
        url.push_wtf8(data.as_bytes());
    }
    url
}
