//! Wire formats and views, each read into (or rendered from) the canonical model.
//!
//! - [`acp`]: Agent Client Protocol v1 `session/update` notifications → agent events, and
//!   → the webview state (`ACPMessage[]`); [`acp_fold`] folds them into messages, and
//!   [`acp_rpc`] reads the JSON-RPC traffic around them;
//! - [`webui`]: `adaptACPMessages`, the webview state → `UnifiedMessage` rows;
//! - [`chatviewer`]: `adaptJSONLMessages`, a ChatViewer transcript → `UnifiedMessage` rows;
//! - [`unified`]: the `UnifiedMessage` row, its timeline flags, and `toUnifiedMessages`
//!   (the chunk model as rows);
//! - [`timsort`]: `Array.prototype.sort`'s exact order, for the transcript sort;
//! - [`pi`], [`pi_tree`], [`pi_events`], [`pi_stream`]: Pi / OpenClaw session files, pi's agent events and
//!   OpenClaw's gateway frames;
//! - [`sn`]: Solar Network thoughts and their SSE stream;
//! - [`timeline`]: the timeline view of a message's chunks;
//! - [`streams`]: the live folds (and detection) of the agent-event, ACP and Solar Network
//!   streams; [`live`]: what every live fold folds into; [`conversation`]: a stream
//!   folded as it arrives (the one path from a stream to messages); [`ui_writer`]: a
//!   conversation written out as an AI SDK UI message stream as it grows.
//!
//! [`FORMATS`] is the one table of formats: `loadHistory`, detection and the command all
//! read it. A new format is a module here and a row there ([`registry::Format`] says
//! what a row holds).
//!
//! History readers fold the events each stored block stands for through
//! [`crate::append_event`], so a history and the stream it was recorded from give the same
//! chunks. The webui adapters read their input through [`source::Source`] and pass strings
//! and payloads on as handles, so the Node binding hands out the caller's own values, and
//! [`json::JsonSource`] runs the same rules over `serde_json` values.

pub mod acp;
pub mod ai_sdk;
pub mod chatviewer;
pub mod claude;
pub mod pi;
pub mod qwen;
pub mod sn;
pub mod streams;

use crate::reading::format::Format;

/// Every format, in the order detection tries them (a more particular shape before a
/// more general one).
pub static FORMATS: &[Format] = &[
    streams::ACP,
    claude::transcript::CLAUDE,
    qwen::recording::QWEN,
    streams::CHATVIEWER,
    pi::gateway::PI_EVENTS,
    pi::session::PI,
    streams::SN,
    pi::gateway::PI_STREAM,
    streams::SN_STREAM,
    ai_sdk::chunks::AI_SDK,
    streams::EVENTS,
];
