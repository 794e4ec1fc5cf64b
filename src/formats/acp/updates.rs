//! Agent Client Protocol v1: `session/update` notifications.
//!
//! An update arrives as `{ sessionId, update }` or as the bare `update`, tagged by
//! `sessionUpdate`. Two readings of a stream of them:
//!
//! - [`to_agent_events`]: one update → the canonical [`AgentEvent`]s, for
//!   `appendEventToChunks`. Agent text → `text-delta`, thought text → `reasoning-delta`,
//!   `tool_call` → `tool-call` (`name` = `kind`, else `title`; `arguments` = `rawInput`),
//!   and a call reaching `completed` / `failed` → `tool-result` (`result` = its
//!   `content`, `isError` when failed). Everything else (user text, plans, commands,
//!   modes, non-text content, variants added later) → nothing.
//! - [`webview_messages`]: all updates → the webview state of seed `000`
//!   (`ACPMessage[]`): consecutive text of one role coalesced into one message, each tool
//!   call one entry that later updates replace field by field.

use std::collections::HashMap;
use std::hash::Hash;

use crate::model::AgentEvent;

use crate::reading::source::{Expect, Key, Reader, Source, Step, ValueType};
use crate::views::tool_call::{read_tool_call, result_event, tool_call_events, Payload, ToolCallFields};

/// Who a text chunk is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    /// The agent's thoughts.
    Thinking,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Thinking => "thinking",
        }
    }
}

/// One `session/update`, read and checked as far as the adapters use it.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionUpdate<V> {
    /// A text chunk (`user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`);
    /// `text: None` for a non-text block (image, audio, resource …).
    ///
    /// `message_id` is the chunk's `messageId` when it is a string (ACP reads any other
    /// value as absent): chunks of one message share it, and a new one starts a new
    /// message. `block` is the content block itself.
    Chunk {
        role: Role,
        text: Option<V>,
        message_id: Option<V>,
        block: V,
    },
    ToolCall(ToolCallFields<V>),
    ToolCallUpdate(ToolCallFields<V>),
    /// `plan`: the agent's whole current plan, `entries` as sent.
    Plan {
        entries: V,
    },
    /// `available_commands_update`, `current_mode_update`, `config_option_update`,
    /// `session_info_update`, `usage_update`: session state, no message content.
    Other,
    /// A `sessionUpdate` this version does not know: skipped (and counted by readers).
    Unknown,
}

/// Reads one notification (`{ sessionId, update }`, a bare update, or the whole JSON-RPC
/// `session/update` message; any other JSON-RPC message is [`SessionUpdate::Other`]).
/// `steps` name it in errors (`updates[3]`).
pub fn read_update<S: Source>(
    reader: &Reader<'_, S>,
    value: S::Value,
    steps: &[Step],
) -> Result<SessionUpdate<S::Value>, S::Error> {
    let source = reader.source;
    reader.check(value, Expect::Object, steps)?;
    let mut at = steps.to_vec();
    let mut value = value;
    // A whole JSON-RPC message: a `session/update` notification is read by its params;
    // any other message (a request, a response) is no update.
    let method = source.get(value, Key::Method)?;
    if source.value_type(method)? == ValueType::String || source.has(value, Key::Jsonrpc)? {
        let mut buf = [0u8; 32];
        if source.tag(method, &mut buf)? != Some(b"session/update") {
            return Ok(SessionUpdate::Other);
        }
        value = reader.required(value, Key::Params, Expect::Object, &at)?;
        at.push(Step::Field("params"));
    }
    let mut update = value;
    if source.value_type(source.get(value, Key::SessionUpdate)?)? == ValueType::Undefined {
        update = reader.required(value, Key::Update, Expect::Object, &at)?;
        at.push(Step::Field("update"));
    }
    let tag = reader.required(update, Key::SessionUpdate, Expect::String, &at)?;
    let mut buf = [0u8; 32];
    let role = match source.tag(tag, &mut buf)? {
        Some(b"user_message_chunk") => Role::User,
        Some(b"agent_message_chunk") => Role::Assistant,
        Some(b"agent_thought_chunk") => Role::Thinking,
        Some(b"tool_call") => {
            return Ok(SessionUpdate::ToolCall(read_tool_call(
                reader, update, &at, true,
            )?))
        }
        Some(b"tool_call_update") => {
            return Ok(SessionUpdate::ToolCallUpdate(read_tool_call(
                reader, update, &at, false,
            )?))
        }
        Some(b"plan") => {
            let entries = source.get(update, Key::Entries)?;
            return Ok(match source.value_type(entries)? {
                ValueType::Array => SessionUpdate::Plan { entries },
                _ => SessionUpdate::Other,
            });
        }
        Some(
            b"available_commands_update"
            | b"current_mode_update"
            | b"config_option_update"
            | b"session_info_update"
            | b"usage_update",
        ) => return Ok(SessionUpdate::Other),
        _ => return Ok(SessionUpdate::Unknown),
    };
    let message_id = source.get(update, Key::MessageId)?;
    let message_id = (source.value_type(message_id)? == ValueType::String).then_some(message_id);
    let block = reader.required(update, Key::Content, Expect::Object, &at)?;
    at.push(Step::Field("content"));
    let ty = reader.required(block, Key::Type, Expect::String, &at)?;
    let text = if reader.is_tag(ty, b"text")? {
        Some(reader.required(block, Key::Text, Expect::String, &at)?)
    } else {
        None
    };
    Ok(SessionUpdate::Chunk {
        role,
        text,
        message_id,
        block,
    })
}

/// The events an update stands for, in order.
pub fn to_agent_events<V: Copy>(update: &SessionUpdate<V>) -> Vec<AgentEvent<V, Payload<V>>> {
    match update {
        SessionUpdate::Chunk {
            role: Role::Assistant,
            text: Some(text),
            ..
        } => vec![AgentEvent::TextDelta { delta: *text }],
        SessionUpdate::Chunk {
            role: Role::Thinking,
            text: Some(text),
            ..
        } => vec![AgentEvent::ReasoningDelta { delta: *text }],
        SessionUpdate::ToolCall(call) => tool_call_events(call),
        SessionUpdate::ToolCallUpdate(update) => result_event(update).into_iter().collect(),
        SessionUpdate::Chunk { .. }
        | SessionUpdate::Plan { .. }
        | SessionUpdate::Other
        | SessionUpdate::Unknown => Vec::new(),
    }
}

/// One entry of the webview state.
#[derive(Debug, Clone, PartialEq)]
pub enum WebviewMessage<V> {
    /// `{ type: 'message', data: { role, content } }`, `content` the pieces joined.
    Message { role: Role, pieces: Vec<V> },
    /// `{ type: 'in-progress-tool-call' | 'completed-tool-call', data: ToolCallData }`.
    ToolCall(ToolCallFields<V>),
}

impl<V> WebviewMessage<V> {
    /// Whether a tool call entry is `completed-tool-call` (status `completed` or `failed`).
    pub fn is_completed_call(&self) -> bool
    where
        V: Copy,
    {
        matches!(self, WebviewMessage::ToolCall(call) if call.finished().is_some())
    }
}

/// The webview state after `updates`, in order. `key` gives a tool call id's identity
/// (its UTF-16 text in the binding).
///
/// - text of the role of the newest entry extends it; other text starts a new message;
/// - a non-text content block adds nothing (and leaves the newest entry as it is);
/// - `tool_call` starts an entry, or (when an update came first) fills in the existing
///   one; `tool_call_update` replaces the fields it sends, or starts the entry when its
///   call has not been seen yet;
/// - other updates change nothing.
pub fn webview_messages<V: Copy, K: Eq + Hash, E>(
    updates: &[SessionUpdate<V>],
    mut key: impl FnMut(V) -> Result<K, E>,
) -> Result<Vec<WebviewMessage<V>>, E> {
    let mut messages: Vec<WebviewMessage<V>> = Vec::new();
    let mut calls: HashMap<K, usize> = HashMap::new();
    for update in updates {
        match update {
            SessionUpdate::Chunk {
                role,
                text: Some(text),
                ..
            } => match messages.last_mut() {
                Some(WebviewMessage::Message { role: last, pieces }) if last == role => pieces.push(*text),
                _ => messages.push(WebviewMessage::Message {
                    role: *role,
                    pieces: vec![*text],
                }),
            },
            SessionUpdate::ToolCall(fields) | SessionUpdate::ToolCallUpdate(fields) => {
                match calls.get(&key(fields.id)?) {
                    Some(&index) => {
                        if let WebviewMessage::ToolCall(call) = &mut messages[index] {
                            call.replace_with(fields);
                        }
                    }
                    None => {
                        calls.insert(key(fields.id)?, messages.len());
                        messages.push(WebviewMessage::ToolCall(*fields));
                    }
                }
            }
            SessionUpdate::Chunk { text: None, .. }
            | SessionUpdate::Plan { .. }
            | SessionUpdate::Other
            | SessionUpdate::Unknown => {}
        }
    }
    Ok(messages)
}
