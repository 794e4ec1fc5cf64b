//! The `claude` namespace: a Claude Code transcript read as messages, and the shape of
//! its lines, for the typings.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi_derive::napi;
use serde_json::Value;

use crate::formats::claude::transcript;
use crate::history::HistoryFormat;

use super::super::raw::call::caught;
use super::super::transcripts::{read_all, read_transcript};

/// Reads a Claude Code transcript (JSONL text, a Buffer, or its parsed lines): the
/// conversation from the root to the last line, one message per stored message (the
/// lines of one API response are one message), tool results on their calls.
#[napi(
    namespace = "claude",
    js_name = "toMessages",
    ts_args_type = "history: string | Uint8Array | ClaudeTranscriptLine[]",
    ts_return_type = "HistoryMessage[]"
)]
pub fn claude_to_messages(env: &Env, history: Unknown) -> Result<Unknown<'static>> {
    caught("claude.toMessages", || {
        read_transcript(
            env,
            "claude.toMessages",
            history,
            HistoryFormat::Claude,
            |items| {
                Ok(read_all(items, |lines, numbers, view, emit| {
                    transcript::read_lines(lines, numbers, view, emit)
                }))
            },
        )
    })
}

/// One line of a Claude Code transcript: a conversation line (`user`, `assistant`,
/// `system`, chained by `parentUuid`), or a bookkeeping line (`summary`,
/// `file-history-snapshot`, …) without a `uuid`.
#[allow(dead_code)]
#[napi(object)]
pub struct ClaudeTranscriptLine {
    #[napi(
        ts_type = "'user' | 'assistant' | 'system' | 'summary' | 'file-history-snapshot' | (string & {})"
    )]
    pub r#type: String,
    pub uuid: Option<String>,
    #[napi(ts_type = "string | null")]
    pub parent_uuid: Option<String>,
    /// A compaction boundary's link to the line before it.
    #[napi(ts_type = "string | null")]
    pub logical_parent_uuid: Option<String>,
    pub session_id: Option<String>,
    /// A sub-agent's line.
    pub is_sidechain: Option<bool>,
    /// Context for the model that Claude Code does not show.
    pub is_meta: Option<bool>,
    /// The summary a compaction left.
    pub is_compact_summary: Option<bool>,
    /// An API error recorded as an assistant message.
    pub is_api_error_message: Option<bool>,
    pub timestamp: Option<String>,
    /// `system` lines: `local_command`, `compact_boundary`, …
    pub subtype: Option<String>,
    /// `system` lines: the text shown.
    pub content: Option<String>,
    /// The Anthropic message: `{ role, content }`, an assistant's with its `id`.
    #[napi(
        ts_type = "{ id?: string; role: string; content: string | Array<{ type: string; [key: string]: unknown }>; [key: string]: unknown }"
    )]
    pub message: Option<Value>,
    /// Claude Code's own structured copy of a tool result (not read).
    #[napi(ts_type = "unknown")]
    pub tool_use_result: Option<Value>,
}
