//! The webui's tool call record (`ToolCallData`): an ACP `tool_call` as the webview keeps
//! it, later updates replacing it field by field. ACP streams send it; a ChatViewer line
//! stores it whole. Read as events, a call is a `tool-call` (`name` its `kind`, else its
//! `title`; `arguments` its `rawInput`), and a call that reached `completed` / `failed`
//! also a `tool-result` (`result` its `content`, `isError` when failed).

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::model::AgentEvent;
use crate::reading::model_json::FormatEvent;
use crate::reading::source::{Expect, Key, Reader, Source, Step, ValueType};
use crate::reading::value_source::Node;
use crate::views::unified::ToolStatus;

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

    pub fn finished(&self) -> Option<ToolStatus> {
        self.status
            .and_then(|(_, status)| status)
            .filter(|s| s.is_final())
    }
}

/// A value an event carries: an input value, `undefined`, or a boolean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Payload<V> {
    Given(V),
    Undefined,
    Bool(bool),
}

impl<V> Payload<V> {
    pub fn from_option(value: Option<V>) -> Self {
        value.map_or(Payload::Undefined, Payload::Given)
    }
}

/// Reads a `tool_call` (`is_call`: a new call, which must have a title) or a
/// `tool_call_update`.
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

/// The events a whole tool call stands for: its call, and its result once it finished.
pub fn tool_call_events<V: Copy>(call: &ToolCallFields<V>) -> Vec<AgentEvent<V, Payload<V>>> {
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

/// The result event of a call that finished.
pub fn result_event<V: Copy>(fields: &ToolCallFields<V>) -> Option<AgentEvent<V, Payload<V>>> {
    let status = fields.finished()?;
    Some(AgentEvent::ToolResult {
        tool_call_id: fields.id,
        result: Payload::from_option(fields.content),
        is_error: Payload::Bool(status == ToolStatus::Failed),
    })
}

fn text(node: Node<'_>) -> Wtf8 {
    node.and_then(Json::as_str).cloned().unwrap_or_default()
}

/// The events of a tool call read from values of the crate's own JSON, owned.
pub fn owned_event(event: AgentEvent<Node<'_>, Payload<Node<'_>>>) -> FormatEvent {
    let payload = |p: Payload<Node<'_>>| match p {
        Payload::Given(node) => node.cloned().unwrap_or(Json::Undefined),
        Payload::Undefined => Json::Undefined,
        Payload::Bool(b) => Json::Bool(b),
    };
    match event {
        AgentEvent::TextDelta { delta } => AgentEvent::TextDelta { delta: text(delta) },
        AgentEvent::ReasoningDelta { delta } => AgentEvent::ReasoningDelta { delta: text(delta) },
        AgentEvent::ToolCall { id, name, arguments } => AgentEvent::ToolCall {
            id: text(id),
            name: text(name),
            arguments: payload(arguments),
        },
        AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error,
        } => AgentEvent::ToolResult {
            tool_call_id: text(tool_call_id),
            result: payload(result),
            is_error: payload(is_error),
        },
        // A tool call makes no other event.
        _ => AgentEvent::Unknown,
    }
}
