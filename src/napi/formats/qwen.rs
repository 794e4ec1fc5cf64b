//! The `qwen` namespace: a Qwen Code chat recording read as messages, and the shape of its
//! records, for the typings.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi_derive::napi;
use serde_json::Value;

use crate::formats::qwen::recording;
use crate::history::HistoryFormat;

use super::super::raw::call::caught;
use super::super::transcripts::{read_all, read_transcript};

/// Reads a Qwen Code chat recording (`ChatRecord` JSONL text, a Buffer, or its parsed
/// lines): the conversation to its last record, thoughts as thinking chunks, function
/// calls with their results as Qwen Code's stream-json shows them, telemetry skipped.
#[napi(
    namespace = "qwen",
    js_name = "toMessages",
    ts_args_type = "history: string | Uint8Array | QwenChatRecord[]",
    ts_return_type = "HistoryMessage[]"
)]
pub fn qwen_to_messages(env: &Env, history: Unknown) -> Result<Unknown<'static>> {
    caught("qwen.toMessages", || {
        read_transcript(env, "qwen.toMessages", history, HistoryFormat::Qwen, |items| {
            Ok(read_all(items, |lines, numbers, view, emit| {
                recording::read_lines(lines, numbers, view, emit)
            }))
        })
    })
}

/// One `ChatRecord` of a Qwen Code chat recording.
#[allow(dead_code)]
#[napi(object)]
pub struct QwenChatRecord {
    pub uuid: String,
    #[napi(ts_type = "string | null")]
    pub parent_uuid: Option<String>,
    pub session_id: String,
    pub timestamp: String,
    #[napi(ts_type = "'user' | 'assistant' | 'tool_result' | 'system'")]
    pub r#type: String,
    /// `chat_compression`, `slash_command`, `ui_telemetry`, …
    pub subtype: Option<String>,
    /// A Gemini `Content`: parts with `text` (and `thought: true`), `functionCall`,
    /// `functionResponse`, `inlineData`, `fileData`.
    #[napi(
        ts_type = "{ role: string; parts?: Array<{ text?: string; thought?: boolean; thoughtSignature?: string; functionCall?: { id?: string; name: string; args?: unknown }; functionResponse?: { id?: string; name: string; response?: unknown }; inlineData?: { mimeType: string; data: string }; fileData?: { mimeType?: string; fileUri: string }; [key: string]: unknown }> }"
    )]
    pub message: Option<Value>,
    /// A tool result's status (`success`, `error`, `cancelled`) and display.
    #[napi(ts_type = "{ callId?: string; status?: string; [key: string]: unknown }")]
    pub tool_call_result: Option<Value>,
    #[napi(ts_type = "unknown")]
    pub system_payload: Option<Value>,
    pub is_sidechain: Option<bool>,
}
