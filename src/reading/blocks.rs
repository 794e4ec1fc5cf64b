//! Content blocks of the Messages API (`text`, `thinking` with its `signature`,
//! `tool_use`, `tool_result`, `image`, `document`) as the chunk model reads them, for the
//! transcripts that store messages in them, and the lines such a transcript writer
//! interleaves that are no message. A thinking block's signature and a tool result's
//! content read the same way wherever they are stored.

use crate::bytes::value::{is_true, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, MessageRole};
use crate::reading::model_json::FormatEvent;

/// Line types that are bookkeeping, not conversation: session state, titles, file
/// snapshots, hook and tool progress, prompts queued while the model works.
pub const BOOKKEEPING: [&str; 16] = [
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "progress",
    "last-prompt",
    "permission-mode",
    "attachment",
    "ai-title",
    "agent-name",
    "away_summary",
    "turn_duration",
    "tag",
    "pr-link",
    "worktree-state",
    "mode",
];

/// Whether a line is a transcript writer's bookkeeping line (a session title, a file
/// snapshot, a queued prompt …), not a conversation line.
pub fn is_bookkeeping_line(line: &Json) -> bool {
    str_of(line, "type").is_some_and(|ty| BOOKKEEPING.iter().any(|b| ty == b))
}

/// `{ [provider]: { signature } }`.
pub fn signature_metadata(provider: &Wtf8, signature: &Wtf8) -> Json {
    Json::Object(vec![(
        provider.clone(),
        Json::object([("signature", Json::String(signature.clone()))]),
    )])
}

/// A tool result's content as a call's `result`: the joined text when every block is a
/// text block, else the content as given.
pub fn tool_result_value(content: Json) -> Json {
    let Json::Array(blocks) = &content else {
        return content;
    };
    let mut joined = Wtf8::new();
    for block in blocks {
        match (block.get("type").and_then(Json::as_str), block.get("text")) {
            (Some(tag), Some(Json::String(text))) if *tag == "text" => joined.push_wtf8(text.as_bytes()),
            _ => return content,
        }
    }
    Json::String(joined)
}

pub fn blocks(content: Option<&Json>) -> &[Json] {
    match content {
        Some(Json::Array(blocks)) => blocks,
        _ => &[],
    }
}

/// A content as one text: a string as it is, the text blocks joined.
pub fn plain_text(content: Option<&Json>) -> Wtf8 {
    match content {
        Some(Json::String(text)) => text.clone(),
        _ => {
            let mut text = Wtf8::new();
            for block in blocks(content) {
                if let Some(t) = str_of(block, "text") {
                    text.push_wtf8(t.as_bytes());
                }
            }
            text
        }
    }
}

/// An Anthropic `image` / `document` block: `source` base64 (`media_type`, `data`) or a
/// `url`.
pub fn file_chunk(block: &Json) -> Option<Chunk<Wtf8, Json>> {
    let source = block.get("source")?;
    let media_type = str_of(source, "media_type").cloned().unwrap_or_else(|| {
        Wtf8::from(if str_of(block, "type").is_some_and(|t| *t == "document") {
            "application/pdf"
        } else {
            "image/*"
        })
    });
    Some(Chunk::File {
        media_type,
        data: str_of(source, "data").cloned(),
        url: str_of(source, "url").cloned(),
        filename: str_of(block, "title").cloned(),
    })
}

/// One piece of a message read from content blocks, for readers that fold line by line.
#[derive(Debug)]
pub enum Piece {
    Event(FormatEvent),
    Chunk(Chunk<Wtf8, Json>),
}

/// A line's content blocks as the pieces they add, and the side they belong to: a user
/// line of tool results only belongs to the assistant's message, whose calls they answer.
/// The blocks that add nothing are given back as `(index, why)`, for the reader to count.
pub fn block_pieces(blocks: &[Json], user: bool) -> (MessageRole, Vec<Piece>, Vec<(usize, String)>) {
    let results_only = !blocks.is_empty()
        && blocks
            .iter()
            .all(|b| str_of(b, "type").is_some_and(|t| *t == "tool_result"));
    let side = if user && !results_only {
        MessageRole::User
    } else {
        MessageRole::Assistant
    };
    let mut pieces = Vec::with_capacity(blocks.len());
    let mut unplaced = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let before = pieces.len();
        let kind = str_of(block, "type");
        match kind.map(Wtf8::as_bytes) {
            Some(b"text") => {
                if let Some(text) = str_of(block, "text") {
                    pieces.push(Piece::Event(FormatEvent::TextDelta { delta: text.clone() }));
                }
            }
            Some(b"thinking") if !user => {
                if let Some(text) = str_of(block, "thinking") {
                    pieces.push(Piece::Event(FormatEvent::ReasoningDelta { delta: text.clone() }));
                }
                if let Some(signature) = str_of(block, "signature").filter(|s| !s.is_empty()) {
                    pieces.push(Piece::Event(FormatEvent::ReasoningEnd {
                        metadata: Some(signature_metadata(&Wtf8::from("anthropic"), signature)),
                    }));
                }
            }
            Some(b"tool_use") if !user => {
                if let (Some(id), Some(name)) = (str_of(block, "id"), str_of(block, "name")) {
                    pieces.push(Piece::Event(FormatEvent::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: block.get("input").cloned().unwrap_or(Json::Undefined),
                    }));
                }
            }
            Some(b"tool_result") => {
                if let Some(id) = str_of(block, "tool_use_id") {
                    pieces.push(Piece::Event(FormatEvent::ToolResult {
                        tool_call_id: id.clone(),
                        result: tool_result_value(block.get("content").cloned().unwrap_or(Json::Undefined)),
                        is_error: Json::Bool(is_true(block, "is_error")),
                    }));
                }
            }
            Some(b"image" | b"document") => pieces.extend(file_chunk(block).map(Piece::Chunk)),
            _ => {}
        }
        if pieces.len() == before {
            let why = match kind {
                Some(kind) if user && matches!(kind.as_bytes(), b"thinking" | b"tool_use") => {
                    format!("a \"{kind}\" content block in a user line")
                }
                Some(kind) if KNOWN_BLOCKS.iter().any(|k| *kind == *k) => {
                    format!("a \"{kind}\" content block without the fields it needs")
                }
                Some(kind) => format!("unknown content block \"{kind}\""),
                None => "a content block without a \"type\"".to_string(),
            };
            unplaced.push((i, why));
        }
    }
    (side, pieces, unplaced)
}

/// The content block types [`block_pieces`] reads.
const KNOWN_BLOCKS: &[&str] = &["text", "thinking", "tool_use", "tool_result", "image", "document"];
