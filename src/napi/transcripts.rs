//! `acp.toMessages`, `claude.toMessages` and `qwen.toMessages`: a whole session (JSONL
//! text, a Buffer, or its lines already parsed) as messages, by the rules `loadHistory`
//! reads those formats with.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::formats::acp::fold as acp_fold;
use crate::formats::claude::transcript as claude;
use crate::formats::qwen::recording as qwen;
use crate::history::{self, HistoryFormat, Message};
use crate::reading::format::{Input, ReadOptions, View};
use crate::reading::model_json::FormatMessage;

use super::entry::caught;
use super::formats::{give_messages, history, History};
use super::json_bridge::Bridge;

fn read(env: &Env, name: &'static str, value: Unknown, format: HistoryFormat) -> Result<Unknown<'static>> {
    let b = Bridge::new(env, name)?;
    let mut messages: Vec<FormatMessage> = Vec::new();
    let mut collect = |message: FormatMessage| {
        messages.push(message);
        true
    };
    match history(&b, value.raw(), "history", true)? {
        History::Text(text) => {
            // The format's own reader gives the whole transcript.
            let options = ReadOptions {
                view: View::Transcript,
                ..ReadOptions::default()
            };
            history::read_with(
                Input::Bytes(text.bytes()),
                format,
                &options,
                &mut |message| match message {
                    Message::Format(message) => collect(message),
                    // Not asked for (`settle`).
                    Message::Settled { .. } => true,
                },
            )
            .map_err(|e| b.type_error(e))?;
        }
        History::Items(items) => match format.name() {
            "acp" => {
                messages = acp_fold::to_messages(&items).map_err(|e| b.type_error(format!("history{e}")))?;
            }
            "claude" => {
                let numbers: Vec<usize> = (1..=items.len()).collect();
                claude::read_lines(&items, &numbers, View::Transcript, collect);
            }
            _ => {
                let numbers: Vec<usize> = (1..=items.len()).collect();
                qwen::read_lines(&items, &numbers, View::Transcript, collect);
            }
        },
    }
    give_messages(&b, env, &messages)
}

/// Folds ACP `session/update` notifications (a recording, or all a client received so
/// far) into messages as an ACP client shows them: a new `messageId` starts a new
/// message, a tool call is one entry named by its `title` and kept as its latest updates
/// say, a `plan` is a `plan` system chunk where it came. `loadHistory(…, 'acp')` reads
/// files by the same rules.
#[napi(
    namespace = "acp",
    js_name = "toMessages",
    ts_args_type = "history: string | Uint8Array | Array<SessionNotification | SessionUpdate>",
    ts_return_type = "HistoryMessage[]"
)]
pub fn acp_to_messages(env: &Env, history: Unknown) -> Result<Unknown<'static>> {
    caught("acp.toMessages", || {
        read(env, "acp.toMessages", history, HistoryFormat::Acp)
    })
}

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
        read(env, "claude.toMessages", history, HistoryFormat::Claude)
    })
}

/// Reads a Qwen Code chat recording (`ChatRecord` JSONL text, a Buffer, or its parsed
/// lines): the conversation to its last record, thoughts as thinking chunks, function
/// calls with their responses as results, telemetry skipped.
#[napi(
    namespace = "qwen",
    js_name = "toMessages",
    ts_args_type = "history: string | Uint8Array | QwenChatRecord[]",
    ts_return_type = "HistoryMessage[]"
)]
pub fn qwen_to_messages(env: &Env, history: Unknown) -> Result<Unknown<'static>> {
    caught("qwen.toMessages", || {
        read(env, "qwen.toMessages", history, HistoryFormat::Qwen)
    })
}
