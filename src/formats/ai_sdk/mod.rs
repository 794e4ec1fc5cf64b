//! The Vercel AI SDK: its UI message stream (the SSE protocol `useChat` reads), the
//! `fullStream` parts of `streamText`, and its persisted `UIMessage`.
//!
//! - [`chunks`]: what each stream chunk stands for in the chunk model;
//! - [`live`]: a UI message stream folded live (and, recorded, read as a history);
//! - [`bytes`]: the same stream on the bytes path, without a value per chunk;
//! - [`ui_writer`]: any live conversation written out as a UI message stream.

pub mod bytes;
pub mod chunks;
pub mod live;
pub mod ui_writer;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ai_sdk::chunks::{is_ui_error, is_ui_only_type};
use crate::reading::format::{Format, History};
use crate::reading::frames::BytesFace;
use crate::reading::sniff::Sniff;
use crate::reading::writer::Serve;

/// Whether a stream's first value opens a UI message stream (see
/// [`crate::bytes`]'s detection, which decides the same by the same rule).
fn opens_ui_stream(sniff: &Sniff, at: usize) -> bool {
    !sniff.is_array()
        && sniff.value(at).is_some_and(|value| {
            let tag = value.get("type").and_then(Json::as_str).map(Wtf8::as_bytes);
            let has_id = value.get("id").is_some();
            tag.is_some_and(|tag| {
                is_ui_only_type(tag)
                    || (has_id && matches!(tag, b"text-delta" | b"reasoning-delta" | b"reasoning-end"))
            }) || is_ui_error(value)
        })
}

pub const AI_SDK: Format = Format {
    name: "ai-sdk",
    summary: "an AI SDK UI message stream, SSE or NDJSON (one assistant message per start chunk)",
    detect: opens_ui_stream,
    // Read as a UI message stream whatever its first frame is (an error may come first).
    history: Some(History::Recorded),
    stream: Some((|_| Box::new(live::UiStream::default()), "turn")),
    bytes: Some(BytesFace {
        opens: bytes::opens,
        reader: || Box::new(bytes::UiFrames::default()),
    }),
    serve: Some(Serve {
        key: "ui",
        new: |_| Box::<ui_writer::UiWriter>::default(),
        restore: |state, messages| {
            let (writer, touched) = ui_writer::UiWriter::restore(state, messages)?;
            Ok((Box::new(writer), touched))
        },
    }),
    ..Format::NONE
};
