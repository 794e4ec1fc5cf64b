//! Events from scanned JSON: the same checks as every other source (`decode.rs`).

use crate::decode::{decode_event, EventSource, Field, InvalidEvent, ValueType};
use crate::model::{AgentEvent, EventType, ShellStream};

use super::scan::{Fields, Node};
use super::text::{decode_string, JsonText, Payload};

/// What a field of a scanned event holds.
#[derive(Clone, Copy)]
enum Slot<'n, 'a> {
    Undefined,
    /// The event object itself.
    Event(&'n Fields<'a>),
    Value(&'n Node<'a>),
}

struct ScannedEvent<'n, 'a>(std::marker::PhantomData<&'n Node<'a>>);

impl<'n, 'a> EventSource for ScannedEvent<'n, 'a> {
    type Text = JsonText;
    type Value = Slot<'n, 'a>;
    type Error = InvalidEvent;

    fn field(&self, object: &Slot<'n, 'a>, field: Field) -> Result<Slot<'n, 'a>, InvalidEvent> {
        let found = match object {
            Slot::Event(fields) => fields.get(field),
            Slot::Value(node) => node.member(field),
            Slot::Undefined => None,
        };
        Ok(found.map_or(Slot::Undefined, Slot::Value))
    }

    fn value_type(&self, value: &Slot<'n, 'a>) -> Result<ValueType, InvalidEvent> {
        Ok(match value {
            Slot::Undefined => ValueType::Undefined,
            Slot::Event(_) | Slot::Value(Node::Object { .. }) => ValueType::Object,
            Slot::Value(Node::Null) => ValueType::Null,
            Slot::Value(Node::Bool(_)) => ValueType::Boolean,
            Slot::Value(Node::Number(_)) => ValueType::Number,
            Slot::Value(Node::String(_)) => ValueType::String,
            Slot::Value(Node::Array(_)) => ValueType::Array,
        })
    }

    fn text(&self, value: Slot<'n, 'a>) -> Result<JsonText, InvalidEvent> {
        Ok(match value {
            Slot::Value(Node::String(body)) => JsonText::from(*body),
            _ => JsonText::default(),
        })
    }

    fn event_type(&self, value: &Slot<'n, 'a>) -> Result<Option<EventType>, InvalidEvent> {
        let Slot::Value(Node::String(body)) = value else {
            return Ok(None);
        };
        // A tag with an escape never equals a plain one: decode only then.
        Ok(Some(match EventType::from_tag(body.as_bytes()) {
            EventType::Unknown if body.contains('\\') => match decode_string(body) {
                Some(tag) => EventType::from_tag(tag.as_bytes()),
                None => EventType::Unknown,
            },
            ty => ty,
        }))
    }

    fn shell_stream(&self, value: &Slot<'n, 'a>) -> Result<Option<ShellStream>, InvalidEvent> {
        Ok(match value {
            Slot::Value(Node::String(body)) => Some(match decode_string(body) {
                Some(name) => ShellStream::from_name(&name),
                None => ShellStream::Other,
            }),
            _ => None,
        })
    }

    fn number(&self, value: &Slot<'n, 'a>) -> Result<f64, InvalidEvent> {
        Ok(match value {
            // The scanner checked the JSON number grammar, which Rust's parser accepts.
            Slot::Value(Node::Number(raw)) => raw.parse().unwrap_or(f64::NAN),
            _ => f64::NAN,
        })
    }
}

/// Checks a scanned event object and decodes it, with payloads as their source text.
pub fn event_from_fields<'a>(
    source: &'a str,
    event: &Fields<'a>,
) -> Result<AgentEvent<JsonText, Payload>, InvalidEvent> {
    let event = decode_event(&ScannedEvent(std::marker::PhantomData), &Slot::Event(event))?;
    Ok(event.map_payloads(|slot| match slot {
        Slot::Value(node) => Payload::Json(node.raw(source).into()),
        Slot::Undefined | Slot::Event(_) => Payload::Undefined,
    }))
}
