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
use crate::views::unified::ToolStatus;

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

/// The fields of a `tool_call` or `tool_call_update`; `None` is a field not sent (absent
/// or `null`). Payloads are handles, passed on as they are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolCallFields<V> {
    pub id: V,
    pub title: Option<V>,
    pub kind: Option<V>,
    /// The status as sent, and what it means when it is one of the four ACP statuses.
    pub status: Option<(V, Option<ToolStatus>)>,
    pub content: Option<V>,
    pub locations: Option<V>,
    pub raw_input: Option<V>,
    pub raw_output: Option<V>,
}

impl<V: Copy> ToolCallFields<V> {
    /// ACP v1 update semantics: every field sent replaces the stored one, whole.
    pub fn replace_with(&mut self, update: &ToolCallFields<V>) {
        fn take<T: Copy>(slot: &mut Option<T>, sent: Option<T>) {
            if sent.is_some() {
                *slot = sent;
            }
        }
        take(&mut self.title, update.title);
        take(&mut self.kind, update.kind);
        take(&mut self.status, update.status);
        take(&mut self.content, update.content);
        take(&mut self.locations, update.locations);
        take(&mut self.raw_input, update.raw_input);
        take(&mut self.raw_output, update.raw_output);
    }

    fn finished(&self) -> Option<ToolStatus> {
        self.status
            .and_then(|(_, status)| status)
            .filter(|s| s.is_final())
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

/// A value an event carries: an input value, `undefined`, or a boolean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Payload<V> {
    Given(V),
    Undefined,
    Bool(bool),
}

impl<V> Payload<V> {
    fn from_option(value: Option<V>) -> Self {
        value.map_or(Payload::Undefined, Payload::Given)
    }
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

pub fn read_tool_call<S: Source>(
    reader: &Reader<'_, S>,
    update: S::Value,
    at: &[Step],
    is_call: bool,
) -> Result<ToolCallFields<S::Value>, S::Error> {
    let source = reader.source;
    let id = reader.required(update, Key::ToolCallId, Expect::String, at)?;
    // A new call must have a title; an update may leave it out.
    let title = if is_call {
        Some(reader.required(update, Key::Title, Expect::String, at)?)
    } else {
        reader.field(update, Key::Title, Expect::OptionalString, at)?
    };
    let kind = reader.field(update, Key::Kind, Expect::OptionalString, at)?;
    let status = match reader.field(update, Key::Status, Expect::OptionalString, at)? {
        Some(status) => {
            let mut buf = [0u8; 32];
            Some((
                status,
                source.tag(status, &mut buf)?.and_then(ToolStatus::from_tag),
            ))
        }
        None => None,
    };
    let sent = |key: Key| -> Result<Option<S::Value>, S::Error> {
        let value = source.get(update, key)?;
        Ok(match source.value_type(value)? {
            ValueType::Undefined | ValueType::Null => None,
            _ => Some(value),
        })
    };
    Ok(ToolCallFields {
        id,
        title,
        kind,
        status,
        content: sent(Key::Content)?,
        locations: sent(Key::Locations)?,
        raw_input: sent(Key::RawInput)?,
        raw_output: sent(Key::RawOutput)?,
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
        SessionUpdate::ToolCall(call) => {
            let name = call.kind.or(call.title);
            let mut events = Vec::with_capacity(2);
            if let Some(name) = name {
                events.push(AgentEvent::ToolCall {
                    id: call.id,
                    name,
                    arguments: Payload::from_option(call.raw_input),
                });
            }
            events.extend(result_event(call));
            events
        }
        SessionUpdate::ToolCallUpdate(update) => result_event(update).into_iter().collect(),
        SessionUpdate::Chunk { .. }
        | SessionUpdate::Plan { .. }
        | SessionUpdate::Other
        | SessionUpdate::Unknown => Vec::new(),
    }
}

fn result_event<V: Copy>(fields: &ToolCallFields<V>) -> Option<AgentEvent<V, Payload<V>>> {
    let status = fields.finished()?;
    Some(AgentEvent::ToolResult {
        tool_call_id: fields.id,
        result: Payload::from_option(fields.content),
        is_error: Payload::Bool(status == ToolStatus::Failed),
    })
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
