//! Typings of the session files `claude.toMessages` and `qwen.toMessages` read: the fields
//! the readers use; the tools write more, which the readers pass over.

#![allow(dead_code)]

use napi_derive::napi;
use serde_json::Value;

/// One line of a Claude Code transcript: a conversation line (`user`, `assistant`,
/// `system`, chained by `parentUuid`), or a bookkeeping line (`summary`,
/// `file-history-snapshot`, …) without a `uuid`.
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

/// One `ChatRecord` of a Qwen Code chat recording.
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
