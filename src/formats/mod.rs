//! Wire formats and views, each read into (or rendered from) the canonical model.
//!
//! - [`acp`]: Agent Client Protocol v1 `session/update` notifications → agent events, and
//!   → the webview state (`ACPMessage[]`);
//! - [`webui`]: `adaptACPMessages`, the webview state → `UnifiedMessage` rows;
//! - [`chatviewer`]: `adaptJSONLMessages`, a ChatViewer transcript → `UnifiedMessage` rows;
//! - [`unified`]: the `UnifiedMessage` row, its timeline flags, and `toUnifiedMessages`
//!   (the chunk model as rows);
//! - [`timsort`]: `Array.prototype.sort`'s exact order, for the transcript sort.
//!
//! The adapters read their input through [`source::Source`] and pass strings and payloads
//! on as handles, so the Node binding hands out the caller's own values, and
//! [`json::JsonSource`] runs the same rules over `serde_json` values.

pub mod acp;
pub mod chatviewer;
pub mod json;
pub mod source;
pub mod timsort;
pub mod unified;
pub mod webui;
