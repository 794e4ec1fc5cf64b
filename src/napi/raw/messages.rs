//! [`MessageList`] over the caller's JavaScript message array.

use std::cell::Cell;

use crate::system::MessageList;

use super::js::{Interned, Js, JsError, JsResult, Value};

/// A `system` chunk to record: the caller's `kind` and `text`, exactly as given.
pub struct SystemChunk {
    pub kind: Value,
    pub text: Value,
}

/// The caller's message array. As with the helper, the newest message is read before
/// `idFactory` runs and the length again when the new message is pushed, so messages
/// `idFactory` adds are kept; a frozen or read-only target is a `TypeError` and nothing
/// is returned.
pub struct JsMessages<'a, 's> {
    js: &'a Js<'s>,
    array: Value,
    /// The newest message as `last_is_system` read it, with its index.
    last: Cell<Option<(usize, Value)>>,
}

impl<'a, 's> JsMessages<'a, 's> {
    /// `None` when `array` is not an array.
    pub fn new(js: &'a Js<'s>, array: Value) -> JsResult<Option<Self>> {
        if !js.is_array(array)? {
            return Ok(None);
        }
        Ok(Some(JsMessages {
            js,
            array,
            last: Cell::new(None),
        }))
    }

    fn chunk_object(&self, chunk: &SystemChunk) -> JsResult<Value> {
        self.js.object(&[
            (Interned::Type, self.js.name(Interned::System)?),
            (Interned::Kind, chunk.kind),
            (Interned::Text, chunk.text),
        ])
    }
}

impl MessageList for JsMessages<'_, '_> {
    type Chunk = SystemChunk;
    type Id = Value;
    type Error = JsError;

    fn last_is_system(&self) -> JsResult<bool> {
        let js = self.js;
        let len = js.array_len_of(self.array, "\"messages\"")?.unwrap_or(0);
        let Some(index) = len.checked_sub(1) else {
            return Ok(false);
        };
        let last = js.element(self.array, index)?;
        self.last.set(Some((index, last)));
        if !js.is_object(last)? {
            return Ok(false);
        }
        let role = js.get(last, Interned::Role)?;
        let mut buf = [0u8; 32];
        Ok(js.tag(role, &mut buf)? == Some(b"system"))
    }

    fn push_to_last(&mut self, chunk: SystemChunk) -> JsResult<Value> {
        let js = self.js;
        let Some((index, last)) = self.last.get() else {
            return Err(JsError::Internal("no newest message".into()));
        };
        let chunks = js.get(last, Interned::Chunks)?;
        if !js.is_array(chunks)? {
            return Err(JsError::Type(format!(
                "messages[{index}] is a system message whose \"chunks\" is not an array"
            )));
        }
        let object = self.chunk_object(&chunk)?;
        js.push(chunks, object, || format!("messages[{index}].chunks"))?;
        js.get(last, Interned::Id)
    }

    fn push_system_message(&mut self, id: &Value, chunk: SystemChunk) -> JsResult<()> {
        let js = self.js;
        let chunks = js.array(&[self.chunk_object(&chunk)?])?;
        let message = js.object(&[
            (Interned::Id, *id),
            (Interned::Role, js.name(Interned::System)?),
            (Interned::Chunks, chunks),
        ])?;
        js.push(self.array, message, || "messages".into())
    }
}
