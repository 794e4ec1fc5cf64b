//! [`MessageList`] over the caller's JavaScript message array.

use crate::system::MessageList;

use super::js::{Interned, Js, JsError, JsResult, Value};

/// A `system` chunk to record: the caller's `kind` and `text`, exactly as given.
pub struct SystemChunk {
    pub kind: Value,
    pub text: Value,
}

pub struct JsMessages<'a, 's> {
    js: &'a Js<'s>,
    array: Value,
    len: usize,
}

impl<'a, 's> JsMessages<'a, 's> {
    /// `None` when `array` is not an array.
    pub fn new(js: &'a Js<'s>, array: Value) -> JsResult<Option<Self>> {
        Ok(js.array_len(array)?.map(|len| JsMessages { js, array, len }))
    }

    fn last(&self) -> JsResult<Option<Value>> {
        match self.len {
            0 => Ok(None),
            len => self.js.element(self.array, len - 1).map(Some),
        }
    }

    fn chunk_object(&self, chunk: &SystemChunk) -> JsResult<Value> {
        self.js.object(&[
            (Interned::Type, self.js.name(Interned::System)?),
            (Interned::Kind, chunk.kind),
            (Interned::Text, chunk.text),
        ])
    }

    /// The newest message's `chunks`, checked before anything is pushed.
    pub fn last_chunks(&self) -> JsResult<(Value, usize)> {
        let Some(last) = self.last()? else {
            return Err(JsError::Internal("no newest message".into()));
        };
        let chunks = self.js.get(last, Interned::Chunks)?;
        match self.js.array_len(chunks)? {
            Some(len) => Ok((chunks, len)),
            None => Err(JsError::Type(format!(
                "messages[{}] is a system message whose \"chunks\" is not an array",
                self.len - 1
            ))),
        }
    }
}

impl MessageList for JsMessages<'_, '_> {
    type Chunk = SystemChunk;
    type Id = Value;
    type Error = JsError;

    fn last_is_system(&self) -> JsResult<bool> {
        let Some(last) = self.last()? else {
            return Ok(false);
        };
        if !self.js.is_object(last)? {
            return Ok(false);
        }
        let role = self.js.get(last, Interned::Role)?;
        let mut buf = [0u8; 32];
        Ok(self.js.tag(role, &mut buf)? == Some(b"system"))
    }

    fn push_to_last(&mut self, chunk: SystemChunk) -> JsResult<Value> {
        let (chunks, len) = self.last_chunks()?;
        let object = self.chunk_object(&chunk)?;
        self.js.set_element(chunks, len, object)?;
        let last = self.js.element(self.array, self.len - 1)?;
        self.js.get(last, Interned::Id)
    }

    fn push_system_message(&mut self, id: &Value, chunk: SystemChunk) -> JsResult<()> {
        let js = self.js;
        let chunks = js.array(&[self.chunk_object(&chunk)?])?;
        let message = js.object(&[
            (Interned::Id, *id),
            (Interned::Role, js.name(Interned::System)?),
            (Interned::Chunks, chunks),
        ])?;
        js.set_element(self.array, self.len, message)?;
        self.len += 1;
        Ok(())
    }
}
