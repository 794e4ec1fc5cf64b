//! What the tests of the stream formats share (`mod common;` in each): a recording written
//! as lines, folded whole by a format of the table, a history read through its row, and
//! messages as JSON text to compare.
// Each test crate uses some of these.
#![allow(dead_code)]

use agent_chunks::formats::find;
use agent_chunks::history::{read_with, HistoryFormat, Message};
use agent_chunks::live::{fold_stream, FoldedStream};
use agent_chunks::reading::check::Skips;
use agent_chunks::reading::format::{Input, ReadOptions};
use agent_chunks::reading::model_json::{message_json, FormatMessage};
use agent_chunks::MessageRole;

/// `text` as NDJSON: each a line, each ending with a line break.
pub fn lines(text: &[&str]) -> Vec<u8> {
    text.iter()
        .flat_map(|line| [line.as_bytes(), b"\n"].concat())
        .collect()
}

/// `bytes` folded whole by the stream format named `format` (every line it skips counted).
pub fn fold(format: &str, bytes: &[u8]) -> FoldedStream {
    fold_stream(find(format).unwrap(), bytes, false).unwrap()
}

/// `bytes` read as a history in `format` with `options`: its messages and what it skipped,
/// or the error's message.
pub fn read_history(
    bytes: &[u8],
    format: HistoryFormat,
    options: &ReadOptions,
) -> Result<(Vec<FormatMessage>, Skips), String> {
    let mut messages = Vec::new();
    let skips = read_with(Input::Bytes(bytes), format, options, &mut |m| {
        if let Message::Format(m) = m {
            messages.push(m);
        }
        true
    })
    .map_err(|e| e.message)?;
    Ok((messages, skips))
}

/// The assistant messages of `messages`.
pub fn assistants(messages: &[FormatMessage]) -> Vec<&FormatMessage> {
    messages
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .collect()
}

/// Each message as its JSON text.
pub fn json_texts(messages: &[FormatMessage]) -> Vec<String> {
    messages
        .iter()
        .map(|m| String::from_utf8(message_json(m).to_json()).unwrap())
        .collect()
}
