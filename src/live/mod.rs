//! Streams folded as they arrive.

pub mod conversation;
pub mod stream;

pub use stream::{
    read_turns, reduce_to_json, ByteChunk, EventStream, FrameProblem, StreamError, Turn, TurnReader,
};
