//! The machinery every format reads with.

pub mod array;
pub mod blocks;
pub mod check;
pub mod date;
pub mod fold;
pub mod format;
pub mod frames;
pub mod history;
pub mod hook_context;
pub mod items;
pub mod line_tree;
pub mod lines;
pub mod model_json;
pub mod resume;
pub mod rpc;
pub mod sniff;
pub mod source;
pub mod steps;
pub mod stored;
pub mod timsort;
pub mod value_source;
pub mod writer;
