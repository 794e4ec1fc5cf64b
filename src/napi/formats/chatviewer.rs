//! The shapes of a ChatViewer transcript (`ChatMessageData`), for the typings: the
//! transcript is read by `adaptJSONLMessages` (the webui's adapters) and `loadHistory`.
#![allow(dead_code)]

use napi_derive::napi;
use serde_json::Value;

use super::super::views::types::ToolCallData;

/// The type of a ChatViewer transcript line.
#[napi(string_enum = "snake_case")]
pub enum ChatMessageDataType {
    User,
    Assistant,
    ToolCall,
}

/// A text part of a Qwen message.
#[napi(object)]
pub struct MessagePart {
    pub text: String,
}

/// A transcript line's message: Qwen `parts`, or Claude `content`.
#[napi(object)]
pub struct ChatMessageBody {
    /// `thinking` makes the row a thinking row.
    pub role: Option<String>,
    pub parts: Option<Vec<MessagePart>>,
    pub content: Option<String>,
}

/// One line of a ChatViewer transcript.
#[napi(object)]
pub struct ChatMessageData {
    pub uuid: String,
    /// An ISO date (local time without an offset), or milliseconds.
    #[napi(ts_type = "string | number")]
    pub timestamp: Value,
    pub r#type: ChatMessageDataType,
    pub message: Option<ChatMessageBody>,
    pub tool_call: Option<ToolCallData>,
}
