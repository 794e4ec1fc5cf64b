//! AI SDK UI message streams on the bytes path.
//!
//! A stream is read as one when its first frame is `[DONE]`, a chunk type only that
//! protocol has (`start`, `text-start`, `tool-input-available`, …), or a `text-delta` /
//! `reasoning-delta` / `reasoning-end` with an `id`. Its text and reasoning deltas written
//! as `JSON.stringify` writes them are read without building a value (most of a stream);
//! every other chunk is parsed exactly (strings as WTF-8, numbers as their source text)
//! and mapped by [`crate::formats::ai_sdk`], then written back as JSON source text.

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::formats::ai_sdk::chunks::{is_ui_error, is_ui_only_type, StreamState};
use crate::model::AgentEvent;
use crate::reading::frames::{body, FrameMeaning, FrameReader, FrameStep};

use crate::bytes::scan::{scan, string_at, Fields, Node};
use crate::bytes::text::{JsonText, Payload};
use crate::decode::Field;

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
/// Anything else is left to [`UiFrames::frame`]'s general path.
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

/// The state of one UI message stream.
#[derive(Debug, Default)]
pub struct UiFrames {
    state: StreamState,
    /// The `messageId` of the open message: a `start` with the same id continues it, as
    /// the SDK keeps one message.
    open_id: Option<Wtf8>,
}

impl FrameReader for UiFrames {
    fn frame_name(&self) -> &'static str {
        "UI message stream chunk"
    }

    /// The frame's meaning in a message of `len` chunks, or why it is not a UI stream
    /// chunk.
    fn frame(&mut self, text: &str, len: usize) -> Result<FrameMeaning, String> {
        if text.as_bytes() == DONE {
            return Ok(FrameMeaning::Nothing);
        }
        if let Some((id, event)) = stringified_ui_delta(text) {
            let step = match (
                self.state
                    .part_of(id.as_bytes(), matches!(event, AgentEvent::ReasoningDelta { .. })),
                event,
            ) {
                (Some(index), AgentEvent::TextDelta { delta } | AgentEvent::ReasoningDelta { delta }) => {
                    FrameStep::Extend(index, delta)
                }
                (_, event) => FrameStep::Event(event),
            };
            return Ok(FrameMeaning::Steps(vec![step]));
        }
        let chunk = value::parse_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        if matches!(chunk.get("type"), Some(Json::String(tag)) if tag == "start") {
            let id = match chunk.get("messageId") {
                Some(Json::String(id)) => Some(id.clone()),
                _ => None,
            };
            if id.is_some() && id == self.open_id {
                return Ok(FrameMeaning::Steps(Vec::new()));
            }
            self.state.start_message();
            self.open_id = id.clone();
            return Ok(FrameMeaning::Start(id.map(|id| body(id.as_bytes()))));
        }
        let steps = self.state.ui_chunk(&chunk, len).map_err(|e| e.to_string())?;
        Ok(FrameMeaning::Steps(
            steps.into_iter().map(FrameStep::Chunk).collect(),
        ))
    }
}

/// Whether a stream whose first frame is `text` is a UI message stream.
pub fn opens(text: &str) -> bool {
    let mut fields = Fields::default();
    if !matches!(scan(text, &mut fields), Ok(true)) {
        return starts_ui_stream(text, None, false);
    }
    let tag = match fields.get(Field::Type) {
        Some(Node::String(body)) => Some(body.as_bytes()),
        _ => None,
    };
    starts_ui_stream(text, tag, fields.get(Field::Id).is_some())
        || tag == Some(b"error")
            && fields.get(Field::Error).is_none()
            && value::parse_str(text).is_ok_and(|chunk| is_ui_error(&chunk))
}
