//! Wire formats and views over the chunk model, in plain Rust.
//!
//! Each format reads into the canonical model by folding the events it stands for
//! through [`crate::append_event`], so a history and the stream it was recorded from give
//! the same chunks.

pub mod check;
pub mod model_json;
pub mod pi;
pub mod sn;
pub mod timeline;
pub mod value;
pub mod wtf8;
