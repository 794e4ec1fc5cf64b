//! Views of the chunk model.

pub mod timeline;
pub mod unified;
pub mod webui;
