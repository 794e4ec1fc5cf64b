//! What a history reader gives: the messages it hands on, and its errors.

use std::fmt;

use crate::model::MessageRole;
use crate::reading::model_json::{FormatChunk, FormatMessage};

/// Why a history could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryError {
    /// 1-based line of the input, when a line is at fault.
    pub line: Option<u64>,
    /// Byte offset from the start of the input, when known.
    pub offset: Option<u64>,
    pub message: String,
}

impl HistoryError {
    pub fn at_line(line: usize, message: impl fmt::Display) -> Self {
        HistoryError {
            line: Some(line as u64),
            offset: None,
            message: format!("line {line}: {message}"),
        }
    }
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HistoryError {}

/// A finished message, in the model its reader builds.
#[derive(Debug)]
pub enum Message<'a> {
    /// Read from a wire format (text as WTF-8, payloads as values).
    Format(FormatMessage),
    /// Message `index` of a recorded stream as it stands (only with
    /// [`ReadOptions::settle`]): the next message when `index` is the number handed on so
    /// far, else one handed on before that a later value changed, which it replaces.
    Settled {
        index: usize,
        id: &'a str,
        role: MessageRole,
        chunks: &'a [FormatChunk],
    },
}
