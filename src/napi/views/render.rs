//! The adapters' results as JavaScript objects, keys in the seed's order.

use crate::formats::acp::updates::{Role, WebviewMessage};
use crate::model::AgentEvent;
use crate::views::tool_call::Payload;
use crate::views::unified::{
    Content, Timestamp, ToolCallSlot, ToolCallView, ToolOutput, ToolStatus, UnifiedId, UnifiedMessage,
    UnifiedType,
};

use super::super::raw::js::{Interned, Js, JsResult, Value};

/// Renders rows; `now` is the clock value for rows stamped [`Timestamp::Now`], read
/// only if one is.
pub struct Renderer<'a, 's> {
    pub js: &'a Js<'s>,
    now: Option<Value>,
    clock: Option<f64>,
}

impl<'a, 's> Renderer<'a, 's> {
    /// `clock`: the caller's `options.now`, or `None` for `Date.now()`.
    pub fn new(js: &'a Js<'s>, clock: Option<f64>) -> Self {
        Renderer { js, now: None, clock }
    }

    /// The same clock value for every row of one call.
    fn now(&mut self) -> JsResult<Value> {
        if let Some(now) = self.now {
            return Ok(now);
        }
        let millis = match self.clock {
            Some(millis) => millis,
            None => self.js.now()?,
        };
        let now = self.js.create_number(millis)?;
        self.now = Some(now);
        Ok(now)
    }

    pub fn rows(&mut self, rows: &[UnifiedMessage<Value>]) -> JsResult<Value> {
        let objects = rows
            .iter()
            .map(|row| self.row(row))
            .collect::<JsResult<Vec<_>>>()?;
        self.js.array(&objects)
    }

    fn row(&mut self, row: &UnifiedMessage<Value>) -> JsResult<Value> {
        let js = self.js;
        let mut fields = Vec::with_capacity(7);
        fields.push((Interned::Id, self.id(&row.id)?));
        fields.push((Interned::Type, row_type(js, &row.kind)?));
        let timestamp = match row.timestamp {
            Timestamp::Now => self.now()?,
            Timestamp::Given(value) => value,
            Timestamp::Millis(millis) => js.create_number(millis)?,
        };
        fields.push((Interned::Timestamp, timestamp));
        if let Some(content) = &row.content {
            fields.push((Interned::Content, text(js, content)?));
        }
        if let Some(slot) = &row.tool_call {
            let call = match slot {
                ToolCallSlot::Given(value) => *value,
                ToolCallSlot::Built(view) => tool_call_view(js, view)?,
            };
            fields.push((Interned::ToolCall, call));
        }
        fields.push((Interned::IsFirst, js.boolean(row.is_first)?));
        fields.push((Interned::IsLast, js.boolean(row.is_last)?));
        js.object(&fields)
    }

    fn id(&self, id: &UnifiedId<Value>) -> JsResult<Value> {
        let js = self.js;
        match *id {
            UnifiedId::Given(value) => Ok(value),
            UnifiedId::Message(index) => js.plus(js.name(Interned::MsgPrefix)?, number_text(js, index)?),
            UnifiedId::Tool(value) => js.plus(js.name(Interned::ToolPrefix)?, value),
            UnifiedId::Chunk(value, index) => {
                let dashed = js.plus(value, js.name(Interned::Dash)?)?;
                js.plus(dashed, number_text(js, index)?)
            }
        }
    }
}

fn number_text(js: &Js, index: usize) -> JsResult<Value> {
    js.create_utf16(&index.to_string().encode_utf16().collect::<Vec<_>>())
}

fn row_type(js: &Js, kind: &UnifiedType<Value>) -> JsResult<Value> {
    js.name(match kind {
        UnifiedType::Given(value) => return Ok(*value),
        UnifiedType::User => Interned::User,
        UnifiedType::Assistant => Interned::Assistant,
        UnifiedType::Thinking => Interned::Thinking,
        UnifiedType::ToolCall => Interned::ToolCallRow,
        UnifiedType::System => Interned::System,
        UnifiedType::Error => Interned::Error,
    })
}

/// Strings joined by V8 (`+`), so they stay exact to the UTF-16 unit.
fn join(js: &Js, pieces: &[Value]) -> JsResult<Value> {
    let mut joined = js.name(Interned::Empty)?;
    for (i, &piece) in pieces.iter().enumerate() {
        joined = if i == 0 { piece } else { js.plus(joined, piece)? };
    }
    Ok(joined)
}

fn text(js: &Js, content: &Content<Value>) -> JsResult<Value> {
    match content {
        Content::Given(value) => Ok(*value),
        Content::Joined(pieces) => join(js, pieces),
        Content::Empty => js.name(Interned::Empty),
    }
}

fn status(js: &Js, status: ToolStatus) -> JsResult<Value> {
    js.name(match status {
        ToolStatus::Pending => Interned::Pending,
        ToolStatus::InProgress => Interned::InProgress,
        ToolStatus::Completed => Interned::Completed,
        ToolStatus::Failed => Interned::Failed,
    })
}

/// `ToolCallData` for a call of the chunk model.
fn tool_call_view(js: &Js, view: &ToolCallView<Value>) -> JsResult<Value> {
    let mut fields = vec![
        (Interned::ToolCallId, view.id),
        (Interned::Kind, view.name),
        (Interned::Title, view.name),
        (Interned::Status, status(js, view.status)?),
        (Interned::RawInput, view.raw_input),
    ];
    match view.output {
        Some(ToolOutput::Given(content)) => fields.push((Interned::Content, content)),
        Some(ToolOutput::Text(value)) => {
            let block = js.object(&[
                (Interned::Type, js.name(Interned::Text)?),
                (Interned::Text, value),
            ])?;
            let item = js.object(&[
                (Interned::Type, js.name(Interned::Content)?),
                (Interned::Content, block),
            ])?;
            fields.push((Interned::Content, js.array(&[item])?));
        }
        None => {}
    }
    js.object(&fields)
}

/// `ACPMessage[]`.
pub fn webview(js: &Js, messages: &[WebviewMessage<Value>]) -> JsResult<Value> {
    let mut objects = Vec::with_capacity(messages.len());
    for message in messages {
        let object = match message {
            WebviewMessage::Message { role, pieces } => {
                let role = js.name(match role {
                    Role::User => Interned::User,
                    Role::Assistant => Interned::Assistant,
                    Role::Thinking => Interned::Thinking,
                })?;
                let data = js.object(&[(Interned::Role, role), (Interned::Content, join(js, pieces)?)])?;
                js.object(&[
                    (Interned::Type, js.name(Interned::Message)?),
                    (Interned::Data, data),
                ])?
            }
            WebviewMessage::ToolCall(call) => {
                let mut fields = vec![
                    (Interned::ToolCallId, call.id),
                    (
                        Interned::Kind,
                        call.kind.map_or_else(|| js.name(Interned::Other), Ok)?,
                    ),
                    (
                        Interned::Title,
                        call.title.map_or_else(|| js.name(Interned::Empty), Ok)?,
                    ),
                    (
                        Interned::Status,
                        call.status
                            .map(|(value, _)| value)
                            .map_or_else(|| js.name(Interned::Pending), Ok)?,
                    ),
                ];
                let optional = [
                    (Interned::RawInput, call.raw_input),
                    (Interned::Content, call.content),
                    (Interned::Locations, call.locations),
                    (Interned::RawOutput, call.raw_output),
                ];
                fields.extend(
                    optional
                        .into_iter()
                        .filter_map(|(key, value)| value.map(|v| (key, v))),
                );
                let ty = if message.is_completed_call() {
                    Interned::CompletedToolCall
                } else {
                    Interned::InProgressToolCall
                };
                let data = js.object(&fields)?;
                js.object(&[(Interned::Type, js.name(ty)?), (Interned::Data, data)])?
            }
        };
        objects.push(object);
    }
    js.array(&objects)
}

fn payload(js: &Js, payload: Payload<Value>) -> JsResult<Value> {
    match payload {
        Payload::Given(value) => Ok(value),
        Payload::Undefined => js.undefined(),
        Payload::Bool(b) => js.boolean(b),
    }
}

/// `AgentEvent[]`, in the shapes `appendEventToChunks` reads.
pub fn events(js: &Js, events: &[AgentEvent<Value, Payload<Value>>]) -> JsResult<Value> {
    let mut objects = Vec::with_capacity(events.len());
    for event in events {
        let object = match event {
            AgentEvent::TextDelta { delta } => js.object(&[
                (Interned::Type, js.name(Interned::TextDeltaType)?),
                (Interned::Delta, *delta),
            ])?,
            AgentEvent::ReasoningDelta { delta } => js.object(&[
                (Interned::Type, js.name(Interned::ReasoningDeltaType)?),
                (Interned::Delta, *delta),
            ])?,
            AgentEvent::ToolCall { id, name, arguments } => {
                let call = js.object(&[
                    (Interned::Id, *id),
                    (Interned::ToolName, *name),
                    (Interned::Arguments, payload(js, *arguments)?),
                ])?;
                js.object(&[
                    (Interned::Type, js.name(Interned::ToolCallType)?),
                    (Interned::ToolCall, call),
                ])?
            }
            AgentEvent::ToolResult {
                tool_call_id,
                result,
                is_error,
            } => {
                let result = js.object(&[
                    (Interned::ToolCallId, *tool_call_id),
                    (Interned::Result, payload(js, *result)?),
                    (Interned::IsError, payload(js, *is_error)?),
                ])?;
                js.object(&[
                    (Interned::Type, js.name(Interned::ToolResultType)?),
                    (Interned::ToolResult, result),
                ])?
            }
            // The ACP reading makes no other events.
            _ => continue,
        };
        objects.push(object);
    }
    js.array(&objects)
}
