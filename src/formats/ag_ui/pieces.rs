//! How a message of the chunk model is cut into AG-UI messages, its *pieces*.
//!
//! An AG-UI message holds less than a `ChatMessage`: an assistant message one content
//! string and the tool calls after it, a reasoning message one text, a user message a
//! string or content parts. So a `ChatMessage` is written as the AG-UI messages its chunks
//! need, in order, and read back by joining them again:
//!
//! - a thinking chunk is a `reasoning` piece;
//! - a text chunk opens an `assistant` piece, which a tool batch after it joins; a tool
//!   batch with no piece to join (a second one, one after a thinking chunk) is a piece
//!   of its own;
//! - in a user message, text chunks and files a content part can hold are one `user`
//!   piece; in a system message, each text chunk is a `system` piece;
//! - system, error and file chunks no content part holds are `activity` pieces
//!   (`agent-chunks.system`, `agent-chunks.error`, `agent-chunks.file`): the client keeps
//!   them beside the conversation and never sends them to the model.
//!
//! The first piece has the message's id, piece *k* the id `<id>.<k>`.
//! [`crate::formats::ag_ui::messages`] writes and reads the pieces.

use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, MessageRole};
use crate::reading::model_json::FormatChunk;

/// What a piece is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `user` message: text chunks and files.
    User,
    /// A `system` message: one text chunk.
    System,
    /// An `assistant` message: a text chunk (`text`), a tool batch (`calls`), or both in
    /// that order; neither for an empty message.
    Assistant { text: bool, calls: bool },
    /// A `reasoning` message: one thinking chunk.
    Reasoning,
    /// An `activity` message: a system, error or file chunk.
    Activity,
}

/// One piece: what it is and which chunks of its message it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub kind: Kind,
    /// Its first chunk.
    pub start: usize,
    /// How many chunks it holds.
    pub len: usize,
}

impl Piece {
    /// The chunk holding its content (text or thinking), when it has one.
    pub fn content(&self) -> Option<usize> {
        match self.kind {
            Kind::Assistant { text: true, .. } | Kind::System | Kind::Reasoning => Some(self.start),
            _ => None,
        }
    }

    /// The chunk holding its tool calls, when it has one.
    pub fn calls(&self) -> Option<usize> {
        match self.kind {
            Kind::Assistant { text, calls: true } => Some(self.start + usize::from(text)),
            _ => None,
        }
    }
}

/// The role a message whose first piece is `kind` has when nothing else says.
pub fn natural_role(kind: Kind) -> MessageRole {
    match kind {
        Kind::User => MessageRole::User,
        Kind::System => MessageRole::System,
        _ => MessageRole::Assistant,
    }
}

/// Whether a file chunk fits a content part: one source, inline data or a URL.
pub fn simple_file(chunk: &FormatChunk) -> bool {
    matches!(chunk, Chunk::File { data, url, .. } if data.is_some() != url.is_some())
}

/// Adds `chunk` (the next chunk of a message of `role`) to the message's pieces.
pub fn grow(pieces: &mut Vec<Piece>, role: MessageRole, chunk: &FormatChunk) {
    let start = pieces.last().map_or(0, |p| p.start + p.len);
    let last = pieces.last_mut();
    let kind = match (chunk, role) {
        (Chunk::Text { .. }, MessageRole::User) => Kind::User,
        (Chunk::File { .. }, MessageRole::User) if simple_file(chunk) => Kind::User,
        (Chunk::Text { .. }, MessageRole::System) => Kind::System,
        (Chunk::Text { .. }, MessageRole::Assistant) => Kind::Assistant {
            text: true,
            calls: false,
        },
        (Chunk::Thinking { .. }, _) => Kind::Reasoning,
        (Chunk::ToolBatch { .. }, _) => {
            if let Some(last) = last {
                if let Kind::Assistant { text: true, calls } = &mut last.kind {
                    if !*calls {
                        *calls = true;
                        last.len += 1;
                        return;
                    }
                }
            }
            Kind::Assistant {
                text: false,
                calls: true,
            }
        }
        (Chunk::File { .. } | Chunk::System { .. } | Chunk::Error { .. }, _) => Kind::Activity,
    };
    if kind == Kind::User {
        if let Some(last) = pieces.last_mut().filter(|p| p.kind == Kind::User) {
            last.len += 1;
            return;
        }
    }
    pieces.push(Piece { kind, start, len: 1 });
}

/// The pieces of a message: one for a message of no chunks.
pub fn cut(role: MessageRole, chunks: &[FormatChunk]) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for chunk in chunks {
        grow(&mut pieces, role, chunk);
    }
    if pieces.is_empty() {
        pieces.push(Piece {
            kind: empty(role),
            start: 0,
            len: 0,
        });
    }
    pieces
}

/// What a message of no chunks is written as: a user message of no parts, else an
/// assistant message of nothing.
pub fn empty(role: MessageRole) -> Kind {
    match role {
        MessageRole::User => Kind::User,
        _ => Kind::Assistant {
            text: false,
            calls: false,
        },
    }
}

/// The AG-UI id of piece `k` of the message `id`.
pub fn piece_id(id: &str, k: usize) -> Wtf8 {
    match k {
        0 => Wtf8::from(id),
        k => Wtf8::from(format!("{id}.{k}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::value::Json;
    use crate::model::{SystemChunkKind, ToolCallEntry};

    fn text() -> FormatChunk {
        Chunk::Text {
            text: Wtf8::from("t"),
        }
    }
    fn thinking() -> FormatChunk {
        Chunk::Thinking {
            text: Wtf8::from("r"),
            metadata: None,
        }
    }
    fn batch() -> FormatChunk {
        Chunk::ToolBatch {
            calls: vec![ToolCallEntry::new(Wtf8::from("c"), Wtf8::from("f"), Json::Null)],
        }
    }
    fn kinds(role: MessageRole, chunks: &[FormatChunk]) -> Vec<(Kind, usize, usize)> {
        cut(role, chunks)
            .into_iter()
            .map(|p| (p.kind, p.start, p.len))
            .collect()
    }
    const TEXT: Kind = Kind::Assistant {
        text: true,
        calls: false,
    };
    const BOTH: Kind = Kind::Assistant {
        text: true,
        calls: true,
    };
    const CALLS: Kind = Kind::Assistant {
        text: false,
        calls: true,
    };

    #[test]
    fn a_batch_joins_the_text_before_it_once() {
        use MessageRole::Assistant as A;
        assert_eq!(kinds(A, &[text(), batch()]), [(BOTH, 0, 2)]);
        assert_eq!(
            kinds(A, &[text(), batch(), batch()]),
            [(BOTH, 0, 2), (CALLS, 2, 1)]
        );
        assert_eq!(kinds(A, &[batch(), text()]), [(CALLS, 0, 1), (TEXT, 1, 1)]);
        assert_eq!(
            kinds(A, &[thinking(), batch(), text(), text()]),
            [(Kind::Reasoning, 0, 1), (CALLS, 1, 1), (TEXT, 2, 1), (TEXT, 3, 1)]
        );
    }

    #[test]
    fn user_text_and_files_are_one_piece_system_text_one_each() {
        let file = Chunk::File {
            media_type: Wtf8::from("image/png"),
            data: Some(Wtf8::from("AA")),
            url: None,
            filename: None,
        };
        let odd = Chunk::File {
            media_type: Wtf8::from("image/png"),
            data: None,
            url: None,
            filename: None,
        };
        assert_eq!(
            kinds(MessageRole::User, &[text(), file.clone(), text(), odd]),
            [(Kind::User, 0, 3), (Kind::Activity, 3, 1)]
        );
        let notice = Chunk::System {
            kind: SystemChunkKind::Notice,
            text: Wtf8::from("n"),
        };
        assert_eq!(
            kinds(MessageRole::System, &[text(), text(), notice]),
            [(Kind::System, 0, 1), (Kind::System, 1, 1), (Kind::Activity, 2, 1)]
        );
    }

    #[test]
    fn a_message_of_no_chunks_is_one_empty_piece() {
        assert_eq!(kinds(MessageRole::User, &[]), [(Kind::User, 0, 0)]);
        let nothing = Kind::Assistant {
            text: false,
            calls: false,
        };
        assert_eq!(kinds(MessageRole::System, &[]), [(nothing, 0, 0)]);
    }
}
