//! Streams folded as they arrive: a [`Conversation`] of any stream format of the table
//! (and its recordings read as histories, [`history`]), and one message's agent events
//! from bytes ([`EventStream`], the drop-in's `ChunkStream`).

pub mod conversation;
pub mod history;
pub mod stream;

pub use stream::{
    read_turns, reduce_to_json, ByteChunk, EventStream, FrameProblem, StreamError, Turn, TurnReader,
};

use crate::bytes::value::Json;
use crate::live::conversation::{served_keys, Conversation, LiveOptions};
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::Origin;
use crate::reading::format::Format;
use crate::reading::model_json::FormatMessage;
use crate::reading::resume::Envelope;

/// A folded stream: its messages, their origins, the values skipped.
#[derive(Debug)]
pub struct FoldedStream {
    pub messages: Vec<FormatMessage>,
    pub origins: Vec<Origin>,
    pub skips: Skips,
    /// The conversation's resume state at the end (see [`crate::reading::resume`]): a live
    /// conversation given the messages and this goes on as if it had read the stream.
    pub resume: Json,
}

/// Folds a whole recorded stream (NDJSON, or SSE when its first line is an SSE field, or
/// a recorder's export: one JSON document holding the values in `messages`) in `format`:
/// a [`Conversation`] given all of it.
/// A value that is not JSON is an error at its line.
pub fn fold_stream(format: &'static Format, bytes: &[u8], strict: bool) -> FormatResult<FoldedStream> {
    let options = LiveOptions {
        strict,
        recording: true,
        ..LiveOptions::default()
    };
    let mut live = Conversation::new(format, options).map_err(|e| FormatError::new("", e))?;
    match crate::reading::sniff::document_records(bytes) {
        // Each record is named by its 1-based place in `messages`.
        Some(records) => {
            for record in records {
                live.push_value(record)?;
            }
        }
        None => {
            live.push_bytes(bytes).map_err(|(_, e)| e.error)?;
            // A recording still being written may end inside a frame. Its reading skips
            // such a tail as cut short, but the state to go on from holds it as pending,
            // to be pushed again with the rest of its frame. A tail the end reads (a last
            // line without its line break) is in the state, which numbers the next line
            // as that line: what is pushed next begins by ending it.
            let before_end = (live.pending() > 0).then(|| live.resume_state());
            let changes = live.end().map_err(|(_, e)| e.error)?;
            if let Some(before_end) = before_end {
                let resume = if changes.is_empty() {
                    before_end
                } else {
                    let mut state = Envelope::from_json(&live.resume_state(), &served_keys())
                        .map_err(|e| FormatError::new("", e))?;
                    state.line = Envelope::from_json(&before_end, &served_keys())
                        .map_err(|e| FormatError::new("", e))?
                        .line;
                    state.to_json()
                };
                let (messages, origins, skips) = live.finish();
                return Ok(FoldedStream {
                    messages,
                    origins,
                    skips,
                    resume,
                });
            }
        }
    }
    let resume = live.resume_state();
    let (messages, origins, skips) = live.finish();
    Ok(FoldedStream {
        messages,
        origins,
        skips,
        resume,
    })
}
