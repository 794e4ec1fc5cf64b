//! Formats read on the bytes path besides agent events (`ChunkStream`, and an `events`
//! stream that turns out to be another format's): a stream's first frame tells which
//! format it is ([`BytesFace::opens`]), and the format's [`FrameReader`] says what each
//! frame does to the message, without building a value where it can.

use crate::bytes::text::{JsonText, Payload};
use crate::bytes::value::{self, write_str_with, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{AgentEvent, Chunk, ToolCallEntry};
use crate::owned::IndexedChunks;
use crate::reading::model_json::{FormatChunk, FormatEvent};
use crate::reading::steps::{apply, ChunkStep};
use crate::reducer::{append_event, ChunkStore};

/// A format the bytes path reads: a row's `bytes` face.
#[derive(Clone, Copy)]
pub struct BytesFace {
    /// Whether a stream whose first frame is this text is in the format.
    pub opens: fn(&str) -> bool,
    /// A reader of the format's frames, from the first on.
    pub reader: fn() -> Box<dyn FrameReader>,
}

/// A format's frames read one at a time.
pub trait FrameReader: std::fmt::Debug + Send {
    /// The frame's meaning in a message of `len` chunks, or why it is no frame of the
    /// format.
    fn frame(&mut self, text: &str, len: usize) -> Result<FrameMeaning, String>;

    /// What one of the format's frames is called, in the error for one that is not.
    fn frame_name(&self) -> &'static str;
}

/// What a frame means.
pub enum FrameMeaning {
    Steps(Vec<FrameStep>),
    /// A new message begins, with its id (a JSON string body) when it has one.
    Start(Option<JsonText>),
    /// Nothing to fold (an end marker).
    Nothing,
}

/// A string's escaped JSON body.
pub fn body(text: &[u8]) -> JsonText {
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
/// of a stream), or what the general path made of the value.
pub enum FrameStep {
    Event(AgentEvent<JsonText, Payload>),
    Extend(usize, JsonText),
    Chunk(ChunkStep),
}

impl FrameStep {
    pub fn fold(self, chunks: &mut IndexedChunks<JsonText, Payload>) {
        match self {
            FrameStep::Event(event) => {
                let Ok(()) = append_event(chunks, event);
            }
            FrameStep::Extend(index, delta) => {
                if index < chunks.chunks().len() {
                    let Ok(()) = chunks.extend_text(index, delta);
                }
            }
            FrameStep::Chunk(step) => apply(
                chunks,
                step,
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
