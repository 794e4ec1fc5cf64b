//! Streams of parts: protocols that open a text or reasoning part, extend it by its id
//! and end it, and announce calls, results and their metadata apart. What one of their
//! values does to a message's chunks is a [`ChunkStep`]: an agent event, folded by the
//! rules, or a change to the chunk of a part that the rules alone cannot say.

use std::hash::Hash;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::model::{AgentEvent, Chunk};
use crate::owned::{IndexedChunks, Text};
use crate::reading::model_json::{FormatChunk, FormatEvent};
use crate::reducer::{append_event, ChunkStore};

/// What one value of a stream of parts stands for, for a message whose chunks are a list:
/// an agent event, a chunk pushed as it is (a file, a new text or reasoning part, the
/// first call of a step), or a change to the chunk of a part (at its index in the list).
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkStep {
    Event(FormatEvent),
    Chunk(FormatChunk),
    /// Text appended to the text or thinking chunk at this index.
    Extend(usize, Wtf8),
    /// Metadata that seals the thinking chunk at this index (unless it is sealed).
    Seal(usize, Json),
    /// The `meta` of the newest call with this id, whole.
    Meta(Wtf8, Json),
}

/// Applies a step to a message's chunks (a part's index past the end, which no stream
/// makes, changes nothing).
pub fn apply<T: Text + Clone + Eq + Hash, V>(
    chunks: &mut IndexedChunks<T, V>,
    step: ChunkStep,
    text: impl Fn(Wtf8) -> T,
    value: impl Fn(Json) -> V,
    event: impl Fn(FormatEvent) -> AgentEvent<T, V>,
    chunk: impl Fn(FormatChunk) -> Chunk<T, V>,
) {
    let len = chunks.chunks().len();
    let Ok(()) = match step {
        ChunkStep::Event(e) => append_event(chunks, event(e)),
        ChunkStep::Chunk(c) => chunks.push_chunk(chunk(c)),
        ChunkStep::Extend(index, delta) if index < len => chunks.extend_text(index, text(delta)),
        ChunkStep::Seal(index, metadata) if index < len => match chunks.is_sealed(index) {
            Ok(false) => chunks.seal_thinking(index, value(metadata)),
            _ => Ok(()),
        },
        ChunkStep::Meta(id, meta) => {
            if let Some(call) = chunks.call_mut(&text(id)) {
                call.meta = Some(value(meta));
            }
            Ok(())
        }
        ChunkStep::Extend(..) | ChunkStep::Seal(..) => Ok(()),
    };
}

/// [`apply`] into chunks of the formats' model.
pub fn apply_owned(chunks: &mut IndexedChunks<Wtf8, Json>, step: ChunkStep) {
    apply(chunks, step, |t| t, |v| v, |e| e, |c| c);
}
