//! AI SDK UI message streams on the bytes path.
//!
//! A stream is read as one when its first frame is `[DONE]`, a chunk type only that
//! protocol has (`start`, `text-start`, `tool-input-available`, …), or a `text-delta` /
//! `reasoning-delta` / `reasoning-end` with an `id`. Its text and reasoning deltas written
//! as `JSON.stringify` writes them are read without building a value (most of a stream);
//! every other chunk is parsed exactly (strings as WTF-8, numbers as their source text)
//! and mapped by [`crate::formats::ai_sdk`], then written back as JSON source text.

use crate::bytes::value::{self, write_str_with, Json};
use crate::bytes::wtf8::Wtf8;
use crate::formats::ai_sdk::chunks::{fold, is_ui_only_type, Folded, StreamState};
use crate::model::{AgentEvent, Chunk, ToolCallEntry};
use crate::owned::IndexedChunks;
use crate::reading::model_json::{FormatChunk, FormatEvent};
use crate::reducer::{append_event, ChunkStore};

use crate::bytes::scan::string_at;
use crate::bytes::text::{JsonText, Payload};

/// The end marker the SDK writes after the last chunk.
pub const DONE: &[u8] = b"[DONE]";

/// What the first frame says the stream is.
pub fn starts_ui_stream(text: &str, tag: Option<&[u8]>, has_id: bool) -> bool {
    text.as_bytes() == DONE
        || tag.is_some_and(|tag| {
            is_ui_only_type(tag)
                || (has_id && matches!(tag, b"text-delta" | b"reasoning-delta" | b"reasoning-end"))
        })
}

/// A UI stream's text or reasoning delta as `JSON.stringify` writes it:
/// `{"type":"text-delta","id":"…","delta":"…"}`, with its part's id (plain ASCII).
/// Anything else is left to [`UiStream::frame`]'s general path.
pub fn stringified_ui_delta(text: &str) -> Option<(&str, AgentEvent<JsonText, Payload>)> {
    const TEXT: &str = r#"{"type":"text-delta","id":""#;
    const REASONING: &str = r#"{"type":"reasoning-delta","id":""#;
    let (rest, reasoning) = if let Some(rest) = text.strip_prefix(TEXT) {
        (rest, false)
    } else {
        (text.strip_prefix(REASONING)?, true)
    };
    // The id: a plain string (an escape or quote sends the chunk the general way).
    let end = rest.find('"')?;
    let id = &rest[..end];
    if id.contains('\\') || !id.is_ascii() {
        return None;
    }
    let rest = rest[end..].strip_prefix(r#"","delta":"#)?;
    if !rest.ends_with('}') {
        return None;
    }
    let (body, after) = string_at(rest, 0).ok()?;
    if after != rest.len() - 1 {
        return None;
    }
    let delta = JsonText::from(body);
    Some((
        id,
        match reasoning {
            false => AgentEvent::TextDelta { delta },
            // A reasoning delta may carry `providerMetadata`: only one without reaches here.
            true => AgentEvent::ReasoningDelta { delta },
        },
    ))
}

/// A string's escaped JSON body.
fn body(text: &[u8]) -> JsonText {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_str_with::<true>(&mut out, text);
    out.pop();
    out.remove(0);
    // ASCII: the writer escapes everything else.
    JsonText(String::from_utf8(out).unwrap_or_default())
}

fn payload(value: Json) -> Payload {
    match value {
        Json::Undefined => Payload::Undefined,
        value => {
            let mut out = Vec::new();
            value::write_ascii(&mut out, &value);
            Payload::Json(String::from_utf8(out).unwrap_or_default().into())
        }
    }
}

/// An event of the formats' model in the bytes path's terms.
fn bytes_event(event: FormatEvent) -> AgentEvent<JsonText, Payload> {
    match event {
        AgentEvent::TextDelta { delta } => AgentEvent::TextDelta {
            delta: body(delta.as_bytes()),
        },
        AgentEvent::ReasoningDelta { delta } => AgentEvent::ReasoningDelta {
            delta: body(delta.as_bytes()),
        },
        AgentEvent::ReasoningEnd { metadata } => AgentEvent::ReasoningEnd {
            metadata: metadata.map(payload),
        },
        AgentEvent::ToolCall { id, name, arguments } => AgentEvent::ToolCall {
            id: body(id.as_bytes()),
            name: body(name.as_bytes()),
            arguments: payload(arguments),
        },
        AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error,
        } => AgentEvent::ToolResult {
            tool_call_id: body(tool_call_id.as_bytes()),
            result: payload(result),
            is_error: payload(is_error),
        },
        AgentEvent::Error { error, status_code } => AgentEvent::Error {
            error: body(error.as_bytes()),
            status_code,
        },
        // The UI stream mapping makes none of these.
        AgentEvent::ShellOutput { .. }
        | AgentEvent::Notice { .. }
        | AgentEvent::ModelChanged { .. }
        | AgentEvent::ConfigReload
        | AgentEvent::Lifecycle(_)
        | AgentEvent::Unknown => AgentEvent::Unknown,
    }
}

/// What a frame folds to: an event or a part's delta read without building a value (most
/// of a stream), or what the general path made of the chunk.
pub enum Step {
    Event(AgentEvent<JsonText, Payload>),
    Extend(usize, JsonText),
    Folded(Folded),
}

impl Step {
    pub fn fold(self, chunks: &mut IndexedChunks<JsonText, Payload>) {
        match self {
            Step::Event(event) => {
                let Ok(()) = append_event(chunks, event);
            }
            Step::Extend(index, delta) => {
                if index < chunks.chunks().len() {
                    let Ok(()) = chunks.extend_text(index, delta);
                }
            }
            Step::Folded(folded) => fold(
                chunks,
                folded,
                |t| body(t.as_bytes()),
                payload,
                bytes_event,
                bytes_chunk,
            ),
        }
    }
}

fn optional_body(text: Option<Wtf8>) -> Option<JsonText> {
    text.map(|text| body(text.as_bytes()))
}

fn bytes_chunk(chunk: FormatChunk) -> Chunk<JsonText, Payload> {
    match chunk {
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => Chunk::File {
            media_type: body(media_type.as_bytes()),
            data: optional_body(data),
            url: optional_body(url),
            filename: optional_body(filename),
        },
        Chunk::Text { text } => Chunk::Text {
            text: body(text.as_bytes()),
        },
        Chunk::Thinking { text, metadata } => Chunk::Thinking {
            text: body(text.as_bytes()),
            metadata: metadata.map(payload),
        },
        Chunk::ToolBatch { calls } => Chunk::ToolBatch {
            calls: calls
                .into_iter()
                .map(|call| {
                    let mut entry = ToolCallEntry::new(
                        body(call.id.as_bytes()),
                        body(call.name.as_bytes()),
                        payload(call.arguments),
                    );
                    entry.meta = call.meta.map(payload);
                    entry
                })
                .collect(),
        },
        Chunk::Error { message, status_code } => Chunk::Error {
            message: body(message.as_bytes()),
            status_code,
        },
        Chunk::System { kind, text } => Chunk::System {
            kind,
            text: body(text.as_bytes()),
        },
    }
}

/// What one UI stream frame means.
pub enum UiFrame {
    Steps(Vec<Step>),
    /// A `start` chunk: a new message begins, with its `messageId` (a JSON string body).
    Start(Option<JsonText>),
    Done,
}

/// The state of one UI message stream.
#[derive(Debug, Default)]
pub struct UiStream {
    state: StreamState,
    /// The `messageId` of the open message: a `start` with the same id continues it, as
    /// the SDK keeps one message.
    open_id: Option<Wtf8>,
}

impl UiStream {
    /// The frame's meaning in a message of `len` chunks, or why it is not a UI stream
    /// chunk.
    pub fn frame(&mut self, text: &str, len: usize) -> Result<UiFrame, String> {
        if text.as_bytes() == DONE {
            return Ok(UiFrame::Done);
        }
        if let Some((id, event)) = stringified_ui_delta(text) {
            let step = match (
                self.state
                    .part_of(id.as_bytes(), matches!(event, AgentEvent::ReasoningDelta { .. })),
                event,
            ) {
                (Some(index), AgentEvent::TextDelta { delta } | AgentEvent::ReasoningDelta { delta }) => {
                    Step::Extend(index, delta)
                }
                (_, event) => Step::Event(event),
            };
            return Ok(UiFrame::Steps(vec![step]));
        }
        let chunk = value::parse_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        if matches!(chunk.get("type"), Some(Json::String(tag)) if tag == "start") {
            let id = match chunk.get("messageId") {
                Some(Json::String(id)) => Some(id.clone()),
                _ => None,
            };
            if id.is_some() && id == self.open_id {
                return Ok(UiFrame::Steps(Vec::new()));
            }
            self.state.start_message();
            self.open_id = id.clone();
            return Ok(UiFrame::Start(id.map(|id| body(id.as_bytes()))));
        }
        let steps = self.state.ui_chunk(&chunk, len).map_err(|e| e.to_string())?;
        Ok(UiFrame::Steps(steps.into_iter().map(Step::Folded).collect()))
    }
}
