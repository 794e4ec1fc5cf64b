//! Views of the chunk model.

pub mod serde_source;
pub mod timeline;
pub mod tool_call;
pub mod unified;
pub mod webui;
