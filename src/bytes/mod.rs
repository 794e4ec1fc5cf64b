//! The bytes path: NDJSON or SSE bytes in, chunks out, without building a value per
//! event in the host language. Strings stay in their JSON escaped form and payloads in
//! their source text, so the output is exact to the UTF-16 unit and to the number
//! spelling; the rules are the same `append_event` as everywhere else.

pub(crate) mod event;
pub(crate) mod frame;

pub(crate) mod scan;
pub mod text;
pub mod value;
pub(crate) mod write;
pub mod wtf8;

pub use frame::{Frame, Framer, Framing};
pub use scan::SyntaxError;
pub use write::chunks_json;
