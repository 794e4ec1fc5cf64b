//! The rules' mechanics over the caller's JavaScript values, mutated in place.
//!
//! [`JsChunks`] is a [`ChunkStore`] over a JavaScript `Chunk[]`: it reads and writes the
//! very objects the caller holds, creating objects only where the original helper did and
//! with its key order. [`JsEvents`] is the [`EventSource`] that checks a JavaScript event.

use std::cell::Cell;

use crate::decode::{EventSource, Field, ValueType};
use crate::model::{Chunk, EventType, ShellStream, ToolCallEntry};
use crate::reducer::{ChunkStore, ChunkType, TextPart};

use super::js::{Interned, Js, JsError, JsResult, Value};

/// The caller's chunk array.
pub struct JsChunks<'a, 's> {
    js: &'a Js<'s>,
    array: Value,
    len: usize,
    /// The element last read by [`ChunkStore::kind`], reused by the mutation that follows.
    cached: Cell<Option<(usize, Value)>>,
}

impl<'a, 's> JsChunks<'a, 's> {
    /// `None` when `array` is not an array.
    pub fn new(js: &'a Js<'s>, array: Value) -> JsResult<Option<Self>> {
        Ok(js.array_len(array)?.map(|len| JsChunks {
            js,
            array,
            len,
            cached: Cell::new(None),
        }))
    }

    fn chunk(&self, index: usize) -> JsResult<Value> {
        if let Some((cached, value)) = self.cached.get() {
            if cached == index {
                return Ok(value);
            }
        }
        let value = self.js.element(self.array, index)?;
        self.cached.set(Some((index, value)));
        Ok(value)
    }

    /// The `calls` array of the batch at `index`; the helper would throw on anything else.
    fn calls(&self, index: usize) -> JsResult<(Value, usize)> {
        let calls = self.js.get(self.chunk(index)?, Interned::Calls)?;
        match self.js.array_len(calls)? {
            Some(len) => Ok((calls, len)),
            None => Err(JsError::Type(format!(
                "chunks[{index}] is a tool-batch whose \"calls\" is not an array"
            ))),
        }
    }

    fn call(&self, index: usize, call: usize) -> JsResult<Value> {
        let (calls, _) = self.calls(index)?;
        self.js.element(calls, call)
    }

    fn push(&mut self, chunk: Value) -> JsResult<()> {
        self.js.set_element(self.array, self.len, chunk)?;
        self.len += 1;
        Ok(())
    }

    fn new_call(&self, call: ToolCallEntry<Value, Value>) -> JsResult<Value> {
        self.js.object(&[
            (Interned::Id, call.id),
            (Interned::ToolName, call.name),
            (Interned::Arguments, call.arguments),
        ])
    }
}

impl ChunkStore for JsChunks<'_, '_> {
    type Text = Value;
    type Value = Value;
    type Error = JsError;

    fn len(&self) -> JsResult<usize> {
        Ok(self.len)
    }

    fn is(&self, index: usize, ty: ChunkType) -> JsResult<bool> {
        let js = self.js;
        // A hole, `null` or a primitive has no own `type`: reading it gives `undefined`.
        let tag = js.get(self.chunk(index)?, Interned::Type)?;
        let wanted = match ty {
            ChunkType::Text => Interned::Text,
            ChunkType::Thinking => Interned::Thinking,
            ChunkType::ToolBatch => Interned::ToolBatch,
        };
        js.strict_equals(tag, js.name(wanted)?)
    }

    fn is_sealed(&self, index: usize) -> JsResult<bool> {
        let metadata = self.js.get(self.chunk(index)?, Interned::Metadata)?;
        Ok(self.js.value_type(metadata)? != ValueType::Undefined)
    }

    fn extend_text(&mut self, index: usize, delta: Value) -> JsResult<()> {
        let chunk = self.chunk(index)?;
        let text = self.js.get(chunk, Interned::Text)?;
        let text = self.js.plus(text, delta)?;
        self.js.set(chunk, Interned::Text, text)
    }

    fn push_chunk(&mut self, chunk: Chunk<Value, Value>) -> JsResult<()> {
        let js = self.js;
        let object = match chunk {
            Chunk::Text { text } => {
                js.object(&[(Interned::Type, js.name(Interned::Text)?), (Interned::Text, text)])?
            }
            Chunk::Thinking { text, metadata } => {
                let object = js.object(&[
                    (Interned::Type, js.name(Interned::Thinking)?),
                    (Interned::Text, text),
                ])?;
                if let Some(metadata) = metadata {
                    js.set(object, Interned::Metadata, metadata)?;
                }
                object
            }
            Chunk::ToolBatch { calls } => {
                let calls = calls
                    .into_iter()
                    .map(|call| self.new_call(call))
                    .collect::<JsResult<Vec<_>>>()?;
                js.object(&[
                    (Interned::Type, js.name(Interned::ToolBatch)?),
                    (Interned::Calls, js.array(&calls)?),
                ])?
            }
            Chunk::Error { message, status_code } => {
                let object = js.object(&[
                    (Interned::Type, js.name(Interned::Error)?),
                    (Interned::Message, message),
                ])?;
                if let Some(code) = status_code {
                    js.set(object, Interned::StatusCode, js.create_number(code)?)?;
                }
                object
            }
            Chunk::System { kind, text } => {
                let kind = js.create_utf16(&kind.as_str().encode_utf16().collect::<Vec<_>>())?;
                js.object(&[
                    (Interned::Type, js.name(Interned::System)?),
                    (Interned::Kind, kind),
                    (Interned::Text, text),
                ])?
            }
            // No event makes a file chunk; it is written here so that every chunk the
            // model has can be stored.
            Chunk::File {
                media_type,
                data,
                url,
                filename,
            } => {
                let tag = js.create_utf16(&"file".encode_utf16().collect::<Vec<_>>())?;
                let mut fields = vec![(c"type", tag), (c"mediaType", media_type)];
                fields.extend(data.map(|v| (c"data", v)));
                fields.extend(url.map(|v| (c"url", v)));
                fields.extend(filename.map(|v| (c"filename", v)));
                js.object_named(&fields)?
            }
        };
        self.push(object)
    }

    fn compose_text(&mut self, parts: &[TextPart<'_, Value>]) -> JsResult<Value> {
        let mut units = Vec::new();
        for part in parts {
            match part {
                TextPart::Literal(literal) => units.extend(literal.encode_utf16()),
                TextPart::Given(given) => self.js.utf16_into(**given, &mut units)?,
            }
        }
        self.js.create_utf16(&units)
    }

    fn seal_thinking(&mut self, index: usize, metadata: Value) -> JsResult<()> {
        self.js.set(self.chunk(index)?, Interned::Metadata, metadata)
    }

    fn push_call(&mut self, index: usize, call: ToolCallEntry<Value, Value>) -> JsResult<()> {
        let (calls, len) = self.calls(index)?;
        let entry = self.new_call(call)?;
        self.js.set_element(calls, len, entry)
    }

    fn find_call(&self, index: usize, id: &Value) -> JsResult<Option<usize>> {
        let js = self.js;
        let (calls, len) = self.calls(index)?;
        for position in 0..len {
            let call = js.element(calls, position)?;
            match js.value_type(call)? {
                ValueType::Undefined | ValueType::Null => {
                    return Err(JsError::Type(format!(
                        "chunks[{index}].calls[{position}] is not a tool call entry"
                    )))
                }
                ValueType::Object | ValueType::Array | ValueType::Function
                    if js.strict_equals(js.get(call, Interned::Id)?, *id)? =>
                {
                    return Ok(Some(position));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    fn set_result(&mut self, index: usize, call: usize, result: Value, is_error: Value) -> JsResult<()> {
        let entry = self.call(index, call)?;
        self.js.set(entry, Interned::Result, result)?;
        self.js.set(entry, Interned::IsError, is_error)
    }

    fn last_call(&self, index: usize) -> JsResult<Option<usize>> {
        let (calls, len) = self.calls(index)?;
        if len == 0 {
            return Ok(None);
        }
        let entry = self.js.element(calls, len - 1)?;
        Ok(self.js.truthy(entry)?.then_some(len - 1))
    }

    fn append_shell_output(
        &mut self,
        index: usize,
        call: usize,
        stream: ShellStream,
        data: Value,
    ) -> JsResult<()> {
        let js = self.js;
        let entry = self.call(index, call)?;
        if !js.is_object(entry)? {
            return Err(JsError::Type(format!(
                "chunks[{index}].calls[{call}] is not an object, so it cannot take shell output"
            )));
        }
        let previous = js.get(entry, Interned::ShellOutput)?;
        let (stdout, stderr) = match js.value_type(previous)? {
            ValueType::Undefined | ValueType::Null => (js.name(Interned::Empty)?, js.name(Interned::Empty)?),
            _ => (
                js.get(previous, Interned::Stdout)?,
                js.get(previous, Interned::Stderr)?,
            ),
        };
        let empty = js.name(Interned::Empty)?;
        let pick = |wanted: ShellStream| if stream == wanted { data } else { empty };
        let stdout = js.plus(stdout, pick(ShellStream::Stdout))?;
        let stderr = js.plus(stderr, pick(ShellStream::Stderr))?;
        let output = js.object(&[(Interned::Stdout, stdout), (Interned::Stderr, stderr)])?;
        js.set(entry, Interned::ShellOutput, output)
    }
}

/// Reads a JavaScript event for [`crate::decode::decode_event`].
pub struct JsEvents<'a, 's> {
    pub js: &'a Js<'s>,
}

fn field_name(field: Field) -> Interned {
    match field {
        Field::Type => Interned::Type,
        Field::Delta => Interned::Delta,
        Field::Metadata => Interned::Metadata,
        Field::ToolCall => Interned::ToolCall,
        Field::Id => Interned::Id,
        Field::Name => Interned::ToolName,
        Field::Arguments => Interned::Arguments,
        Field::ToolResult => Interned::ToolResult,
        Field::ToolCallId => Interned::ToolCallId,
        Field::Result => Interned::Result,
        Field::IsError => Interned::IsError,
        Field::Stream => Interned::Stream,
        Field::Data => Interned::Data,
        Field::Error => Interned::Error,
        Field::StatusCode => Interned::StatusCode,
        Field::Message => Interned::Message,
        Field::ModelId => Interned::ModelId,
        Field::KeyId => Interned::KeyId,
        Field::TurnId => Interned::TurnId,
    }
}

impl EventSource for JsEvents<'_, '_> {
    type Text = Value;
    type Value = Value;
    type Error = JsError;

    fn field(&self, object: &Value, field: Field) -> JsResult<Value> {
        self.js.get(*object, field_name(field))
    }

    fn value_type(&self, value: &Value) -> JsResult<ValueType> {
        self.js.value_type(*value)
    }

    fn text(&self, value: Value) -> JsResult<Value> {
        Ok(value)
    }

    fn event_type(&self, value: &Value) -> JsResult<Option<EventType>> {
        let mut buf = [0u8; 32];
        Ok(self.js.tag(*value, &mut buf)?.map(EventType::from_tag))
    }

    fn shell_stream(&self, value: &Value) -> JsResult<Option<ShellStream>> {
        let mut buf = [0u8; 32];
        Ok(self.js.tag(*value, &mut buf)?.map(|tag| match tag {
            b"stdout" => ShellStream::Stdout,
            b"stderr" => ShellStream::Stderr,
            _ => ShellStream::Other,
        }))
    }

    fn number(&self, value: &Value) -> JsResult<f64> {
        self.js.number(*value)
    }
}
