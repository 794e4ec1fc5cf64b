//! AI SDK UI message streams on the bytes path.
//!
//! A stream is read as one when its first frame is `[DONE]`, a chunk type only that
//! protocol has (`start`, `text-start`, `tool-input-available`, …), or a `text-delta` /
//! `reasoning-delta` / `reasoning-end` with an `id`. Its text and reasoning deltas written
//! as `JSON.stringify` writes them are read without building a value (most of a stream);
//! every other chunk is parsed exactly (strings as WTF-8, numbers as their source text)
//! and mapped by [`crate::formats::ai_sdk`], then written back as JSON source text.

use crate::formats::ai_sdk::{is_ui_only_type, Folded, StreamState};
use crate::formats::model_json::FormatEvent;
use crate::formats::value::{self, write_str_with, Json};
use crate::formats::wtf8::Wtf8;
use crate::model::{AgentEvent, Chunk};
use crate::owned::IndexedChunks;
use crate::reducer::{append_event, ChunkStore};

use super::scan::string_at;
use super::text::{JsonText, Payload};

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
/// `{"type":"text-delta","id":"…","delta":"…"}`. Anything else is left to [`UiStream::events`].
pub fn stringified_ui_delta(text: &str) -> Option<AgentEvent<JsonText, Payload>> {
    const TEXT: &str = r#"{"type":"text-delta","id":""#;
    const REASONING: &str = r#"{"type":"reasoning-delta","id":""#;
    let (rest, reasoning) = if let Some(rest) = text.strip_prefix(TEXT) {
        (rest, false)
    } else {
        (text.strip_prefix(REASONING)?, true)
    };
    // The id: a plain string (an escape or quote sends the chunk the general way).
    let end = rest.find('"')?;
    if rest[..end].contains('\\') {
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
    Some(match reasoning {
        false => AgentEvent::TextDelta { delta },
        // A reasoning delta may carry `providerMetadata`: only one without reaches here.
        true => AgentEvent::ReasoningDelta { delta },
    })
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

/// What a frame folds to: an event, or a chunk no event makes (a file).
pub enum Step {
    Event(AgentEvent<JsonText, Payload>),
    Chunk(Chunk<JsonText, Payload>),
}

impl Step {
    pub fn fold(self, chunks: &mut IndexedChunks<JsonText, Payload>) {
        match self {
            Step::Event(event) => {
                let Ok(()) = append_event(chunks, event);
            }
            Step::Chunk(chunk) => {
                let Ok(()) = chunks.push_chunk(chunk);
            }
        }
    }
}

fn optional_body(text: Option<Wtf8>) -> Option<JsonText> {
    text.map(|text| body(text.as_bytes()))
}

fn step(folded: Folded) -> Step {
    match folded {
        Folded::Event(event) => Step::Event(bytes_event(event)),
        Folded::File(Chunk::File {
            media_type,
            data,
            url,
            filename,
        }) => Step::Chunk(Chunk::File {
            media_type: body(media_type.as_bytes()),
            data: optional_body(data),
            url: optional_body(url),
            filename: optional_body(filename),
        }),
        // The mapping makes no other chunk.
        Folded::File(_) => Step::Event(AgentEvent::Unknown),
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
}

impl UiStream {
    /// The frame's meaning, or why it is not a UI stream chunk.
    pub fn frame(&mut self, text: &str) -> Result<UiFrame, String> {
        if text.as_bytes() == DONE {
            return Ok(UiFrame::Done);
        }
        if let Some(event) = stringified_ui_delta(text) {
            return Ok(UiFrame::Steps(vec![Step::Event(event)]));
        }
        let chunk = value::parse_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        if matches!(chunk.get("type"), Some(Json::String(tag)) if tag == "start") {
            return Ok(UiFrame::Start(match chunk.get("messageId") {
                Some(Json::String(id)) => Some(body(id.as_bytes())),
                _ => None,
            }));
        }
        let steps = self.state.ui_chunk(&chunk).map_err(|e| e.to_string())?;
        Ok(UiFrame::Steps(steps.into_iter().map(step).collect()))
    }
}
