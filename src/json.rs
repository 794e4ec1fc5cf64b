//! Events from `serde_json` values, checked exactly as the Node binding checks
//! JavaScript values.
//!
//! JSON has no `undefined`, but JavaScript does: an absent field is `None` here and a
//! present one (`null` included) is `Some`, so `{"type":"reasoning-end","metadata":null}`
//! seals a thinking block while `{"type":"reasoning-end"}` does not, as in JavaScript.

use serde_json::Value;

use crate::decode::{decode_event, EventSource, Field, InvalidEvent, ValueType};
use crate::model::{AgentEvent, EventType, ShellStream};

/// A JSON value as JavaScript would see it after `JSON.parse`: `None` is `undefined`.
pub type JsonValue = Option<Value>;

/// An event decoded from JSON.
pub type JsonEvent = AgentEvent<String, JsonValue>;

struct JsonSource;

impl EventSource for JsonSource {
    type Text = String;
    type Value = JsonValue;
    type Error = InvalidEvent;

    fn field(&self, object: &JsonValue, field: Field) -> Result<JsonValue, InvalidEvent> {
        Ok(match object {
            Some(Value::Object(map)) => map.get(field.key()).cloned(),
            _ => None,
        })
    }

    fn value_type(&self, value: &JsonValue) -> Result<ValueType, InvalidEvent> {
        Ok(value_type(value.as_ref()))
    }

    fn text(&self, value: JsonValue) -> Result<String, InvalidEvent> {
        Ok(match value {
            Some(Value::String(text)) => text,
            _ => String::new(),
        })
    }

    fn event_type(&self, value: &JsonValue) -> Result<Option<EventType>, InvalidEvent> {
        Ok(match value {
            Some(Value::String(tag)) => Some(EventType::from_tag(tag.as_bytes())),
            _ => None,
        })
    }

    fn shell_stream(&self, value: &JsonValue) -> Result<Option<ShellStream>, InvalidEvent> {
        Ok(match value {
            Some(Value::String(name)) => Some(ShellStream::from_name(name)),
            _ => None,
        })
    }

    fn number(&self, value: &JsonValue) -> Result<f64, InvalidEvent> {
        Ok(match value {
            Some(Value::Number(number)) => number.as_f64().unwrap_or(f64::NAN),
            _ => f64::NAN,
        })
    }
}

/// What `typeof` (with `null` and arrays apart) says of a parsed JSON value; `None` is an
/// absent one, `undefined`.
pub fn value_type(value: Option<&Value>) -> ValueType {
    match value {
        None => ValueType::Undefined,
        Some(Value::Null) => ValueType::Null,
        Some(Value::Bool(_)) => ValueType::Boolean,
        Some(Value::Number(_)) => ValueType::Number,
        Some(Value::String(_)) => ValueType::String,
        Some(Value::Array(_)) => ValueType::Array,
        Some(Value::Object(_)) => ValueType::Object,
    }
}

/// Checks a JSON event and decodes it; payloads are cloned out of `event`.
pub fn event_from_json(event: &Value) -> Result<JsonEvent, InvalidEvent> {
    decode_event(&JsonSource, &Some(event.clone()))
}
