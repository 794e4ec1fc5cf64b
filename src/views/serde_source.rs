//! [`Source`] over `serde_json` values, for Rust callers of the webui adapters and tests.
//!
//! JSON has no `undefined`: a missing key reads as `None`. Dates are the caller's
//! business (JavaScript's date parsing is not reimplemented here): the source is built
//! with the function that turns a `timestamp` into milliseconds.

use serde_json::Value;

use crate::reading::source::{Invalid, Key, Source, ValueType};
use crate::views::webui::UnknownMessageType;

/// A JSON value as JavaScript sees it after `JSON.parse`; `None` is `undefined`.
pub type JsonRef<'a> = Option<&'a Value>;

/// Why a JSON input was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonError {
    Invalid(Invalid),
    /// `Unknown message type: …`, with the type as given.
    UnknownMessageType(Value),
}

impl From<Invalid> for JsonError {
    fn from(e: Invalid) -> Self {
        JsonError::Invalid(e)
    }
}

impl<'a> From<UnknownMessageType<JsonRef<'a>>> for JsonError {
    fn from(e: UnknownMessageType<JsonRef<'a>>) -> Self {
        JsonError::UnknownMessageType(e.0.cloned().unwrap_or(Value::Null))
    }
}

pub struct JsonSource<F> {
    time: F,
}

impl<F: Fn(&Value) -> f64> JsonSource<F> {
    /// `time` computes `new Date(timestamp).getTime()` for a string or number timestamp.
    pub fn new(time: F) -> Self {
        JsonSource { time }
    }
}

impl<'a, F: Fn(&Value) -> f64> Source for &'a JsonSource<F> {
    type Value = JsonRef<'a>;
    type Error = JsonError;

    fn get(&self, object: JsonRef<'a>, key: Key) -> Result<JsonRef<'a>, JsonError> {
        Ok(match object {
            Some(Value::Object(map)) => map.get(key.name()),
            _ => None,
        })
    }

    fn has(&self, object: JsonRef<'a>, key: Key) -> Result<bool, JsonError> {
        Ok(matches!(object, Some(Value::Object(map)) if map.contains_key(key.name())))
    }

    fn value_type(&self, value: JsonRef<'a>) -> Result<ValueType, JsonError> {
        Ok(crate::json::value_type(value))
    }

    fn tag<'b>(&self, value: JsonRef<'a>, buf: &'b mut [u8; 32]) -> Result<Option<&'b [u8]>, JsonError> {
        let Some(Value::String(text)) = value else {
            return Ok(None);
        };
        let bytes = text.as_bytes();
        if bytes.len() >= buf.len() || !text.is_ascii() {
            return Ok(Some(&[]));
        }
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(Some(&buf[..bytes.len()]))
    }

    fn units(&self, value: JsonRef<'a>) -> Result<Vec<u16>, JsonError> {
        Ok(match value {
            Some(Value::String(text)) => text.encode_utf16().collect(),
            _ => Vec::new(),
        })
    }

    fn array_len(&self, value: JsonRef<'a>) -> Result<Option<usize>, JsonError> {
        Ok(match value {
            Some(Value::Array(items)) => Some(items.len()),
            _ => None,
        })
    }

    fn element(&self, array: JsonRef<'a>, index: usize) -> Result<JsonRef<'a>, JsonError> {
        Ok(match array {
            Some(Value::Array(items)) => items.get(index),
            _ => None,
        })
    }

    fn truthy(&self, value: JsonRef<'a>) -> Result<bool, JsonError> {
        Ok(match value {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(_) | Value::Object(_)) => true,
        })
    }

    fn number(&self, value: JsonRef<'a>) -> Result<f64, JsonError> {
        Ok(value.and_then(Value::as_f64).unwrap_or(f64::NAN))
    }

    fn time(&self, value: JsonRef<'a>) -> Result<f64, JsonError> {
        Ok(value.map_or(f64::NAN, |v| (self.time)(v)))
    }
}
