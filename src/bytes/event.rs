//! Events from scanned JSON: the same checks as every other source (`decode.rs`).

use crate::decode::{decode_event, EventSource, Field, InvalidEvent, ValueType};
use crate::model::{AgentEvent, EventType, ShellStream};

use crate::bytes::scan::{Fields, Node};
use crate::bytes::text::{decode_string, JsonText, Payload};

/// What a field of a scanned event holds.
#[derive(Clone, Copy)]
enum Slot<'n, 'a> {
    Undefined,
    /// The event object itself.
    Event(&'n Fields<'a>),
    Value(&'n Node<'a>),
}

/// A scanned event, its texts made by `text` from their escaped JSON bodies.
struct ScannedEvent<'n, 'a, F> {
    text: F,
    nodes: std::marker::PhantomData<&'n Node<'a>>,
}

impl<'n, 'a, T, F: Fn(&'a str) -> T> EventSource for ScannedEvent<'n, 'a, F> {
    type Text = T;
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

    fn text(&self, value: Slot<'n, 'a>) -> Result<T, InvalidEvent> {
        // Only called on strings; an empty body stands for anything else.
        Ok((self.text)(match value {
            Slot::Value(Node::String(body)) => body,
            _ => "",
        }))
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
    let event = decode_fields(source, event, JsonText::from)?;
    Ok(event.map_payloads(|raw| match raw {
        Some(raw) => Payload::Json(raw.into()),
        None => Payload::Undefined,
    }))
}

/// Checks a scanned event object and decodes it: each text made by `text` from its
/// escaped JSON body, each payload its exact source text (`None` when absent).
pub fn decode_fields<'a, T>(
    source: &'a str,
    event: &Fields<'a>,
    text: impl Fn(&'a str) -> T,
) -> Result<AgentEvent<T, Option<&'a str>>, InvalidEvent> {
    let scanned = ScannedEvent {
        text,
        nodes: std::marker::PhantomData,
    };
    let event = decode_event(&scanned, &Slot::Event(event))?;
    Ok(event.map_payloads(|slot| match slot {
        Slot::Value(node) => Some(node.raw(source)),
        Slot::Undefined | Slot::Event(_) => None,
    }))
}
