//! The bytes path: NDJSON or SSE bytes in, chunks out, without building a value per
//! event in the host language. Strings stay in their JSON escaped form and payloads in
//! their source text, so the output is exact to the UTF-16 unit and to the number
//! spelling; the rules are the same `append_event` as everywhere else.

pub(crate) mod event;
mod frame;
pub(crate) mod scan;
mod stream;
pub mod text;
mod ui;
pub(crate) mod write;

pub use frame::{Frame, Framer, Framing};
pub use scan::SyntaxError;
pub use stream::{
    read_turns, reduce_to_json, ByteChunk, EventStream, FrameProblem, StreamError, Turn, TurnReader,
};
pub use write::chunks_json;
