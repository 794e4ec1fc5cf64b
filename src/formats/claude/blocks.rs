//! What one content block of a Claude Code message adds to it: the transcript and the
//! stream carry the same Messages-API blocks (one line per block of a response), and read
//! them by these rules, so that a stream and the transcript the same run wrote give the
//! same messages.

use crate::bytes::value::{is_true, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::Chunk;
use crate::reading::blocks::{file_chunk, signature_metadata, tool_result_value};
use crate::reading::check::NO_CALL_ID;
#[cfg(doc)]
use crate::reading::check::NO_TOOL_USE_ID;
use crate::reading::model_json::FormatChunk;

/// What a block of an assistant message adds.
#[derive(Debug)]
pub enum Added {
    /// Text, appended as a `text-delta` is.
    Text(Wtf8),
    /// A chunk pushed as it is (a thinking block, sealed by its signature; an image).
    Chunk(FormatChunk),
    /// A tool call, added as `tool-call` adds it.
    Call { id: Wtf8, name: Wtf8, input: Json },
    /// Nothing: the block is skipped and counted as this.
    Unplaced(String),
    /// Nothing, and nothing to count (a text block without text, an image without a
    /// source).
    Nothing,
}

/// What `block` of an assistant message adds to it.
pub fn assistant_block(block: &Json) -> Added {
    match str_of(block, "type").map(Wtf8::as_bytes) {
        Some(b"text") => match str_of(block, "text") {
            Some(text) => Added::Text(text.clone()),
            None => Added::Nothing,
        },
        Some(b"thinking") => Added::Chunk(Chunk::Thinking {
            text: str_of(block, "thinking").cloned().unwrap_or_default(),
            metadata: signature(block),
        }),
        Some(b"redacted_thinking") => {
            Added::Chunk(redacted(str_of(block, "data").cloned().unwrap_or_default()))
        }
        Some(b"tool_use" | b"server_tool_use") => match (str_of(block, "id"), str_of(block, "name")) {
            (Some(id), Some(name)) => Added::Call {
                id: id.clone(),
                name: name.clone(),
                input: block.get("input").cloned().unwrap_or(Json::Undefined),
            },
            _ => Added::Unplaced(NO_CALL_ID.to_string()),
        },
        Some(b"image") => match file_chunk(block) {
            Some(file) => Added::Chunk(file),
            None => Added::Nothing,
        },
        _ => Added::Unplaced(unknown_block(block)),
    }
}

/// A thinking block's signature as the chunk's seal (none for an empty one).
pub fn signature(block: &Json) -> Option<Json> {
    str_of(block, "signature")
        .filter(|s| !s.is_empty())
        .map(|s| signature_metadata(&Wtf8::from("anthropic"), s))
}

/// A `redacted_thinking` block: an empty thinking chunk sealed with its data.
pub fn redacted(data: Wtf8) -> FormatChunk {
    Chunk::Thinking {
        text: Wtf8::new(),
        metadata: Some(Json::Object(vec![(
            Wtf8::from("anthropic"),
            Json::object([("redactedData", Json::String(data))]),
        )])),
    }
}

/// How a block no rule places is counted.
pub fn unknown_block(block: &Json) -> String {
    match str_of(block, "type") {
        Some(ty) => format!("a content block of a type this version does not know (\"{ty}\")"),
        None => "a content block without a \"type\"".to_string(),
    }
}

/// What a block of an API error Claude Code recorded as an assistant message adds: its
/// text as an error.
pub fn error_block(block: &Json) -> Option<FormatChunk> {
    str_of(block, "text").map(|text| Chunk::Error {
        message: text.clone(),
        status_code: None,
    })
}

/// What a block of a user message adds.
#[derive(Debug)]
pub enum UserAdded {
    /// A result for the call `id` (`is_error` as the block says).
    Result { id: Wtf8, result: Json, is_error: bool },
    /// A result that names no call: skipped and counted ([`NO_TOOL_USE_ID`]).
    NoCall,
    /// Text of the user's message.
    Text(Wtf8),
    /// A chunk of the user's message (an image, a document).
    Chunk(FormatChunk),
    /// Nothing: the block is skipped and counted as this.
    Unplaced(String),
    /// Part of the user's message that shows nothing (a text block without text).
    Nothing,
}

impl UserAdded {
    /// Whether the block is part of the user's own message (not a tool result).
    pub fn is_users(&self) -> bool {
        !matches!(self, UserAdded::Result { .. } | UserAdded::NoCall)
    }
}

/// What `block` of a user message adds.
pub fn user_block(block: &Json) -> UserAdded {
    match str_of(block, "type").map(Wtf8::as_bytes) {
        Some(b"tool_result") => match str_of(block, "tool_use_id") {
            Some(id) => UserAdded::Result {
                id: id.clone(),
                result: tool_result_value(block.get("content").cloned().unwrap_or(Json::Undefined)),
                is_error: is_true(block, "is_error"),
            },
            None => UserAdded::NoCall,
        },
        Some(b"text") => match str_of(block, "text") {
            Some(text) => UserAdded::Text(text.clone()),
            None => UserAdded::Nothing,
        },
        Some(b"image" | b"document") => match file_chunk(block) {
            Some(file) => UserAdded::Chunk(file),
            None => UserAdded::Nothing,
        },
        _ => UserAdded::Unplaced(unknown_block(block)),
    }
}
