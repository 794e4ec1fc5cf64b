//! Events from scanned JSON: the same checks as every other source (`decode.rs`).

use crate::decode::{decode_event, EventSource, Field, InvalidEvent, ValueType};
use crate::model::{AgentEvent, EventType, ShellStream};

use super::scan::Node;
use super::text::{decode_string, JsonText, Payload};

/// A scanned value, or `None` for an absent field (`undefined`).
type Slot<'a> = Option<Node<'a>>;

struct ScannedEvent<'a>(std::marker::PhantomData<&'a str>);

impl<'a> EventSource for ScannedEvent<'a> {
    type Text = JsonText;
    type Value = Slot<'a>;
    type Error = InvalidEvent;

    fn field(&self, object: &Slot<'a>, field: Field) -> Result<Slot<'a>, InvalidEvent> {
        Ok(object.as_ref().and_then(|node| node.member(field.key())).cloned())
    }

    fn value_type(&self, value: &Slot<'a>) -> Result<ValueType, InvalidEvent> {
        Ok(match value {
            None => ValueType::Undefined,
            Some(Node::Null) => ValueType::Null,
            Some(Node::Bool(_)) => ValueType::Boolean,
            Some(Node::Number(_)) => ValueType::Number,
            Some(Node::String(_)) => ValueType::String,
            Some(Node::Array(_)) => ValueType::Array,
            Some(Node::Object { .. }) => ValueType::Object,
        })
    }

    fn text(&self, value: Slot<'a>) -> Result<JsonText, InvalidEvent> {
        Ok(match value {
            Some(Node::String(body)) => JsonText(body.to_owned()),
            _ => JsonText::default(),
        })
    }

    fn event_type(&self, value: &Slot<'a>) -> Result<Option<EventType>, InvalidEvent> {
        Ok(match value {
            Some(Node::String(body)) if !body.contains('\\') => Some(EventType::from_tag(body.as_bytes())),
            Some(Node::String(body)) => Some(match decode_string(body) {
                Some(tag) => EventType::from_tag(tag.as_bytes()),
                None => EventType::Unknown,
            }),
            _ => None,
        })
    }

    fn shell_stream(&self, value: &Slot<'a>) -> Result<Option<ShellStream>, InvalidEvent> {
        Ok(match value {
            Some(Node::String(body)) => Some(match decode_string(body) {
                Some(name) => ShellStream::from_name(&name),
                None => ShellStream::Other,
            }),
            _ => None,
        })
    }

    fn number(&self, value: &Slot<'a>) -> Result<f64, InvalidEvent> {
        Ok(match value {
            // The scanner checked the JSON number grammar, which Rust's parser accepts.
            Some(Node::Number(raw)) => raw.parse().unwrap_or(f64::NAN),
            _ => f64::NAN,
        })
    }
}

/// Checks a scanned event object and decodes it, with payloads as their source text.
pub fn event_from_node<'a>(
    source: &'a str,
    event: Node<'a>,
) -> Result<AgentEvent<JsonText, Payload>, InvalidEvent> {
    let event = decode_event(&ScannedEvent(std::marker::PhantomData), &Some(event))?;
    Ok(event.map_payloads(|slot| match slot {
        None => Payload::Undefined,
        Some(node) => Payload::Json(node.raw(source).to_owned()),
    }))
}
