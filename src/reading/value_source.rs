//! [`Source`] over this crate's own JSON values ([`Json`]), so the adapters' readers
//! (session updates, transcript lines) run on history read from bytes, off any JavaScript
//! thread. A missing key is `undefined`; dates are read by [`date::parse_iso`].

use std::marker::PhantomData;

use crate::bytes::value::Json;
use crate::reading::date;
use crate::reading::source::{Invalid, Key, Source, ValueType};

/// A value of the tree; `None` is `undefined`.
pub type Node<'a> = Option<&'a Json>;

#[derive(Default, Clone, Copy)]
pub struct TreeSource<'a>(PhantomData<&'a Json>);

impl<'a> Source for TreeSource<'a> {
    type Value = Node<'a>;
    type Error = Invalid;

    fn get(&self, object: Node<'a>, key: Key) -> Result<Node<'a>, Invalid> {
        Ok(object.and_then(|o| o.get(key.name())))
    }

    fn has(&self, object: Node<'a>, key: Key) -> Result<bool, Invalid> {
        Ok(object.and_then(|o| o.get(key.name())).is_some())
    }

    fn value_type(&self, value: Node<'a>) -> Result<ValueType, Invalid> {
        Ok(value.map_or(ValueType::Undefined, Json::kind))
    }

    fn tag<'b>(&self, value: Node<'a>, buf: &'b mut [u8; 32]) -> Result<Option<&'b [u8]>, Invalid> {
        let Some(Json::String(text)) = value else {
            return Ok(None);
        };
        let bytes = text.as_bytes();
        if bytes.len() >= buf.len() || !bytes.is_ascii() {
            return Ok(Some(&[]));
        }
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(Some(&buf[..bytes.len()]))
    }

    fn units(&self, value: Node<'a>) -> Result<Vec<u16>, Invalid> {
        Ok(match value {
            Some(Json::String(text)) => text.to_utf16(),
            _ => Vec::new(),
        })
    }

    fn array_len(&self, value: Node<'a>) -> Result<Option<usize>, Invalid> {
        Ok(match value {
            Some(Json::Array(items)) => Some(items.len()),
            _ => None,
        })
    }

    fn element(&self, array: Node<'a>, index: usize) -> Result<Node<'a>, Invalid> {
        Ok(match array {
            Some(Json::Array(items)) => items.get(index),
            _ => None,
        })
    }

    fn truthy(&self, value: Node<'a>) -> Result<bool, Invalid> {
        Ok(match value {
            None | Some(Json::Undefined | Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(number @ Json::Number(_)) => number.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
            Some(Json::String(s)) => !s.is_empty(),
            Some(Json::Array(_) | Json::Object(_)) => true,
        })
    }

    fn number(&self, value: Node<'a>) -> Result<f64, Invalid> {
        Ok(value.and_then(Json::as_f64).unwrap_or(f64::NAN))
    }

    fn time(&self, value: Node<'a>) -> Result<f64, Invalid> {
        Ok(match value {
            Some(number @ Json::Number(_)) => date::clip(number.as_f64().unwrap_or(f64::NAN)),
            Some(Json::String(text)) => text.as_str().map_or(f64::NAN, date::parse_iso),
            _ => f64::NAN,
        })
    }
}
