//! The `chatviewer` history: the rows the ChatViewer shows, as messages.

use std::collections::HashMap;
use std::io::Read;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::chatviewer::adapter::{adapt_jsonl_messages, NOT_A_ROW};
use crate::model::{AgentEvent, Chunk, MessageRole, SystemChunkKind};
use crate::reading::blocks::{block_pieces, is_bookkeeping_line, Piece};
use crate::reading::check::Skips;
use crate::reading::format::{Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::{format_error, read_items, reader_of, At};
use crate::reading::model_json::FormatMessage;
use crate::reading::source::{Invalid, Reader};
use crate::reading::stored::StoredMessages;
use crate::reading::value_source::{Node, TreeSource};
use crate::views::tool_call::{owned_event, read_tool_call, tool_call_events};
use crate::views::unified::{Content, ToolCallSlot, UnifiedId, UnifiedType};

/// The `chatviewer` history.
pub fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_chatviewer(reader_of(input), options.strict, |message| {
        emit(Message::Format(message))
    })
}

fn text(node: Node<'_>) -> Wtf8 {
    node.and_then(Json::as_str).cloned().unwrap_or_default()
}

fn read_chatviewer(
    reader: impl Read,
    strict: bool,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    // The rows are ordered by timestamp, so all of them are needed before the first
    // message; each is checked as soon as it is read. A line the ChatViewer cannot show
    // (a field missing or of another type) is skipped and counted, as the ChatViewer
    // passes over a row it cannot render; `strict` refuses it, and so does an element of
    // a JSON array (one document, all of it or nothing). A Claude Code transcript's
    // bookkeeping lines (session titles, file snapshots) are not messages.
    let (mut items, mut places) = (Vec::new(), Vec::new());
    let mut unread = Skips::new(strict);
    let mut skips = read_items(reader, strict, |item, at| {
        if is_bookkeeping_line(&item) {
            return Ok(true);
        }
        let one = Json::Array(vec![item]);
        if let Err(e) = adapt_jsonl_messages(&TreeSource::default(), Some(&one)) {
            let error = chatviewer_error(e, &[at]);
            match at {
                At::Line(line) if !strict => {
                    let problem = error
                        .message
                        .strip_prefix(&format!("line {line}: "))
                        .unwrap_or(&error.message);
                    unread
                        .unreadable(line, NOT_A_ROW, problem)
                        .map_err(format_error)?;
                    return Ok(true);
                }
                _ => return Err(error),
            }
        }
        if let Json::Array(one) = one {
            items.extend(one);
            places.push(at);
        }
        Ok(true)
    })?;
    skips.merge(unread);
    let all = Json::Array(items);
    let source = TreeSource::default();
    // The adapter checks each line and orders them as the webui does.
    let rows = adapt_jsonl_messages(&source, Some(&all)).map_err(|e| chatviewer_error(e, &places))?;
    let reader = Reader {
        source: &source,
        root: "toolCall",
    };
    // The API response a Claude-shaped line belongs to, by the line's uuid; and where
    // the line is, to count the content blocks that cannot be placed.
    let mut responses: HashMap<&Wtf8, &Wtf8> = HashMap::new();
    let mut lines: HashMap<&Wtf8, At> = HashMap::new();
    if let Json::Array(items) = &all {
        for (item, at) in items.iter().zip(&places) {
            if let Some(uuid) = item.get("uuid").and_then(Json::as_str) {
                lines.insert(uuid, *at);
            }
            let response = item
                .get("message")
                .and_then(|m| m.get("id"))
                .and_then(Json::as_str);
            if let (Some(uuid), Some(response)) = (item.get("uuid").and_then(Json::as_str), response) {
                responses.insert(uuid, response);
            }
        }
    }
    let mut stored = StoredMessages::new();
    let mut open_response: Option<&Wtf8> = None;
    for row in rows {
        let uuid_text = match row.id {
            UnifiedId::Given(uuid) => uuid.and_then(Json::as_str),
            _ => None,
        };
        let uuid = uuid_text
            .map(|u| u.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = || uuid.clone();
        let is_type = |tag: &[u8]| matches!(row.kind, UnifiedType::Given(ty) if text(ty).as_bytes() == tag);
        if let Some(Content::Given(Some(Json::Array(blocks)))) = &row.content {
            // Claude-shaped content blocks: text, thinking, tool calls and their results.
            let (side, pieces, unplaced) = block_pieces(blocks, is_type(b"user"));
            // A block this reading cannot place is counted, never dropped without a word.
            for (i, why) in unplaced {
                let (line, what) = match uuid_text.and_then(|u| lines.get(u)) {
                    Some(At::Line(line)) => (*line, format!("message.content[{i}]: {why}")),
                    Some(At::Element(index)) => (1, format!("[{index}].message.content[{i}]: {why}")),
                    None => (1, format!("message.content[{i}]: {why}")),
                };
                skips.skip(line, what).map_err(format_error)?;
            }
            let response = uuid_text.and_then(|u| responses.get(u).copied());
            let results_only = pieces
                .iter()
                .all(|p| matches!(p, Piece::Event(AgentEvent::ToolResult { .. })));
            let continues = side == MessageRole::Assistant
                && stored.open_role() == Some(MessageRole::Assistant)
                && response.is_some()
                && response == open_response;
            if !(continues || results_only && !pieces.is_empty()) {
                stored.start(side, Some(&uuid), id);
                open_response = response;
            }
            for piece in pieces {
                match piece {
                    Piece::Event(AgentEvent::ToolCall { id, name, arguments }) => {
                        stored.ensure(MessageRole::Assistant, || uuid.clone());
                        stored.call(id, name, arguments);
                    }
                    Piece::Event(AgentEvent::ToolResult {
                        tool_call_id,
                        result,
                        is_error,
                    }) => {
                        stored.set_result(&tool_call_id, Some((result, is_error)));
                    }
                    Piece::Event(event) => {
                        stored.ensure(side, || uuid.clone());
                        stored.event(event);
                    }
                    Piece::Chunk(chunk) => {
                        stored.ensure(side, || uuid.clone());
                        stored.push(chunk);
                    }
                }
            }
        } else {
            open_response = None;
            let content = match row.content {
                Some(Content::Joined(pieces)) => {
                    let mut joined = Wtf8::new();
                    for piece in pieces {
                        joined.push_wtf8(text(piece).as_bytes());
                    }
                    Some(joined)
                }
                Some(Content::Given(Some(Json::String(given)))) => Some(given.clone()),
                _ => None,
            }
            .filter(|t| !t.is_empty());
            match row.kind {
                UnifiedType::User => {
                    stored.start(MessageRole::User, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::TextDelta { delta });
                    }
                }
                _ if is_type(b"user") => {
                    stored.start(MessageRole::User, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::TextDelta { delta });
                    }
                }
                _ if is_type(b"system") => {
                    if let Some(text) = content {
                        stored.start(MessageRole::System, Some(&uuid), id);
                        stored.push(Chunk::System {
                            kind: SystemChunkKind::Notice,
                            text,
                        });
                    }
                }
                UnifiedType::Thinking => {
                    stored.start(MessageRole::Assistant, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::ReasoningDelta { delta });
                    }
                }
                UnifiedType::ToolCall => {
                    stored.start(MessageRole::Assistant, Some(&uuid), id);
                    let call = match row.tool_call {
                        Some(ToolCallSlot::Given(call)) => call,
                        _ => None,
                    };
                    if let Some(Json::Object(_)) = call {
                        let fields = read_tool_call(&reader, call, &[], true).map_err(|e| HistoryError {
                            line: None,
                            offset: None,
                            message: format!("the message with uuid {uuid:?}: {e}"),
                        })?;
                        for event in tool_call_events(&fields) {
                            match owned_event(event) {
                                AgentEvent::ToolCall { id, name, arguments } => {
                                    stored.call(id, name, arguments);
                                }
                                AgentEvent::ToolResult {
                                    tool_call_id,
                                    result,
                                    is_error,
                                } => {
                                    stored.set_result(&tool_call_id, Some((result, is_error)));
                                }
                                _ => {}
                            }
                        }
                    }
                }
                _ => {
                    stored.start(MessageRole::Assistant, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::TextDelta { delta });
                    }
                }
            }
        }
        if !stored.hand_on(&mut emit) {
            return Ok(skips);
        }
    }
    stored.finish(&mut emit);
    Ok(skips)
}

/// The adapter names items `messages[i]`; say which line or element that is.
fn chatviewer_error(e: Invalid, places: &[At]) -> HistoryError {
    let index = e
        .path
        .strip_prefix("messages[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|i| i.parse::<usize>().ok());
    match index.and_then(|i| places.get(i)) {
        Some(&At::Line(line)) => {
            let rest = e
                .path
                .split_once(']')
                .map_or("", |(_, rest)| rest)
                .trim_start_matches('.');
            let path = if rest.is_empty() {
                "the line".to_string()
            } else {
                rest.to_string()
            };
            HistoryError::at_line(
                line,
                format_args!("{path} must be {}, got {}", e.expected, e.got.name()),
            )
        }
        // Items are checked one at a time, each as `messages[0]`.
        Some(&At::Element(index)) => HistoryError {
            line: None,
            offset: None,
            message: e
                .to_string()
                .replacen("messages[0]", &format!("messages[{index}]"), 1),
        },
        _ => HistoryError {
            line: None,
            offset: None,
            message: e.to_string(),
        },
    }
}
