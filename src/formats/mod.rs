//! Wire formats and views, each read into (or rendered from) the canonical model.
//!
//! - [`acp`]: Agent Client Protocol v1 `session/update` notifications → agent events, and
//!   → the webview state (`ACPMessage[]`);
//! - [`webui`]: `adaptACPMessages`, the webview state → `UnifiedMessage` rows;
//! - [`chatviewer`]: `adaptJSONLMessages`, a ChatViewer transcript → `UnifiedMessage` rows;
//! - [`unified`]: the `UnifiedMessage` row, its timeline flags, and `toUnifiedMessages`
//!   (the chunk model as rows);
//! - [`timsort`]: `Array.prototype.sort`'s exact order, for the transcript sort;
//! - [`pi`]: Pi / OpenClaw session JSONL and its gateway stream;
//! - [`sn`]: Solar Network thoughts and their SSE stream;
//! - [`timeline`]: the timeline view of a message's chunks.
//!
//! History readers fold the events each stored block stands for through
//! [`crate::append_event`], so a history and the stream it was recorded from give the same
//! chunks. The webui adapters read their input through [`source::Source`] and pass strings
//! and payloads on as handles, so the Node binding hands out the caller's own values, and
//! [`json::JsonSource`] runs the same rules over `serde_json` values.

pub mod acp;
pub mod ai_sdk;
pub mod chatviewer;
pub mod check;
pub mod date;
pub mod json;
pub mod model_json;
pub mod pi;
pub mod sn;
pub mod source;
pub mod timeline;
pub mod timsort;
pub mod tree;
pub mod unified;
pub mod value;
pub mod webui;
pub mod wtf8;
