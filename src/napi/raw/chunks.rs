//! The rules' mechanics over the caller's JavaScript values, mutated in place.
//!
//! [`JsChunks`] is a [`ChunkStore`] over a JavaScript `Chunk[]`: it reads and writes the
//! very objects the caller holds, creating objects only where the original helper did and
//! with its key order. [`JsEvents`] is the [`EventSource`] that checks a JavaScript event.

use std::cell::Cell;
use std::ptr;

use napi::sys;

use crate::decode::{EventSource, Field, ValueType};
use crate::model::{Chunk, EventType, ShellStream, ToolCallEntry};
use crate::reducer::{ChunkStore, ChunkType, Target, TextPart};

use super::js::{Interned, Js, JsError, JsResult, Value};
use super::mechanics::{FoundCall, Shape, ShellRefusal};

/// The caller's chunk array.
///
/// The length is read when a rule needs it, never kept across the caller's code (a
/// getter on the event, a Proxy trap), and pushes read it again at the moment they
/// write, as `Array.prototype.push` does: what the caller's code added is kept.
/// Writes are strict-mode assignments (`mechanics.js`), so a frozen or read-only target
/// throws the helper's own `TypeError` and never loses an event silently.
pub struct JsChunks<'a, 's> {
    js: &'a Js<'s>,
    array: Value,
    /// The element last read by [`ChunkStore::is`], reused by the mutation that follows:
    /// the helper, too, changes the chunk object it read, wherever it is by then.
    cached: Cell<Option<(usize, Value)>>,
    /// The `calls` array last read, with its chunk's index and its length then: the
    /// helper reads a batch's `calls` once per event.
    cached_calls: Cell<Option<(usize, Value, usize)>>,
    /// The call entry last found (by id, or as the last call), as the helper keeps it.
    cached_call: Cell<Option<(usize, usize, Value)>>,
    /// A `tool-result` event's `toolResult`, whose `isError` is read after `result` is
    /// written, as the helper reads it (see [`JsChunks::defer_is_error`]); with `true`
    /// when its `result` is read then too (see [`JsChunks::defer_result`]).
    held_tool_result: Cell<Option<(Value, bool)>>,
    /// The `text` of the chunk a delta will extend, read before the delta (see [`JsChunks::hold`]).
    held_text: Cell<Option<Value>>,
    /// The call entry shell output goes to, and its `shellOutput` and `stdout` as they
    /// were before the event's fields were read.
    held_shell: Cell<Option<(Value, Value, Value)>>,
    /// What the caller's side read before this call, in the helper's order: the array's
    /// `length` and, when it is at least 1, the last element and its `type` (see
    /// [`JsChunks::prime`]). Taken by the first [`ChunkStore::len`].
    primed: Cell<Option<ReadLength>>,
    /// The `type` of the element at this index, as read before this call.
    primed_type: Cell<Option<(usize, Value)>>,
    /// The index of the last element as read before this call, which the caller's side
    /// holds.
    front_last: Cell<Option<usize>>,
    /// Where the caller's side makes new chunks itself (see [`JsChunks::hand_back`]):
    /// the event's fields it read, and what stands in for the delta it reads later.
    hand_back: Option<HandBack>,
    /// The text [`ChunkStore::compose_text`] left to the caller's side, as operands.
    composed: Cell<Option<[u8; COMPOSED]>>,
    /// The chunk left to the caller's side to push, encoded as `handOff` of
    /// `mechanics.js` reads it.
    handed_back: Cell<Option<f64>>,
}

/// The error for a call entry shell output goes to that is no object.
pub fn not_an_entry(index: usize, call: usize) -> JsError {
    JsError::Type(format!(
        "chunks[{index}].calls[{call}] is not an object, so it cannot take shell output"
    ))
}

/// What the caller's side holds for a hand-back: the fields it read (up to four, each
/// with the field it is), and the value standing in for the event's delta.
#[derive(Clone, Copy)]
pub struct HandBack {
    pub fields: [Option<(Field, Value)>; 4],
    pub delta: Option<Value>,
}

/// Operands of a hand-back (`operand` of `mechanics.js`): the fields read before the
/// call are 1 to 4, the event's delta (read by the caller's side after the call) is
/// [`DELTA`], and [`CONSTANTS`] and above are [`constants`].
pub const DELTA: u8 = 5;
pub const CONSTANTS: u8 = 8;
/// Parts of a composed text a hand-back can carry (shape 6 of `pushNew`).
const COMPOSED: usize = 5;

/// Strings the rules write that are no interned name: the kinds of the system chunks
/// events make and the literal parts of the texts they compose. A text or kind not
/// listed here is made by the binding instead, so the list decides only speed.
const LITERALS: [&str; 7] = [
    "notice",
    "model-changed",
    "config-reload",
    "Switched to ",
    " (",
    ")",
    "Configuration reloaded",
];
const _: () = assert!(CONSTANTS as usize + Interned::COUNT + LITERALS.len() <= 128);

/// The constants hand-backs name, in their order: every interned name, then
/// [`LITERALS`] (see `makeAppend` of `mechanics.js`).
pub fn constants(js: &Js) -> JsResult<Vec<Value>> {
    let mut values = Vec::with_capacity(Interned::COUNT + LITERALS.len());
    for name in Interned::ALL {
        values.push(js.name(name)?);
    }
    for literal in LITERALS {
        values.push(js.ascii_string(literal)?);
    }
    Ok(values)
}

fn name_operand(name: Interned) -> u8 {
    CONSTANTS + name as u8
}

fn literal_operand(text: &str) -> Option<u8> {
    let position = LITERALS.iter().position(|literal| *literal == text)?;
    Some(CONSTANTS + (Interned::COUNT + position) as u8)
}

/// A hand-back as `handOff` of `mechanics.js` reads it: 8 × the operands (base 128, the
/// first lowest) + the shape.
fn encode(shape: Shape, operands: &[u8]) -> f64 {
    let mut code = 0f64;
    for &operand in operands.iter().rev() {
        code = code * 128.0 + operand as f64;
    }
    code * 8.0 + shape as u8 as f64
}

/// An array's `length` as read, with its last element and that element's `type` when
/// they were read too.
pub type ReadLength = (Value, Option<(Value, Value)>);

impl<'a, 's> JsChunks<'a, 's> {
    /// `None` when `array` is not an array.
    pub fn new(js: &'a Js<'s>, array: Value) -> JsResult<Option<Self>> {
        if !js.is_array(array)? {
            return Ok(None);
        }
        Ok(Some(JsChunks {
            js,
            array,
            cached: Cell::new(None),
            cached_calls: Cell::new(None),
            cached_call: Cell::new(None),
            held_tool_result: Cell::new(None),
            held_text: Cell::new(None),
            held_shell: Cell::new(None),
            primed: Cell::new(None),
            primed_type: Cell::new(None),
            front_last: Cell::new(None),
            hand_back: None,
            composed: Cell::new(None),
            handed_back: Cell::new(None),
        }))
    }

    /// Leaves the chunks the rules make to the caller's side (`handOff` of
    /// `mechanics.js`), which makes them as literals from the operands `hand_back` names:
    /// one call fewer than making them here. Only for a call from the compiled front,
    /// whose rule ends with that push.
    pub fn hand_back(&mut self, hand_back: HandBack) {
        self.hand_back = Some(hand_back);
    }

    /// The chunk left to the caller's side to push, if any (see [`JsChunks::hand_back`]).
    pub fn handed_back(&self) -> Option<f64> {
        self.handed_back.get()
    }

    /// The operand for `value` when the caller's side holds it.
    fn operand(&self, value: Value) -> Option<u8> {
        let hand_back = self.hand_back.as_ref()?;
        if hand_back.delta == Some(value) {
            return Some(DELTA);
        }
        hand_back
            .fields
            .iter()
            .position(|field| matches!(field, Some((_, read)) if *read == value))
            .map(|position| position as u8 + 1)
    }

    /// The operand of the field `wanted` read by the caller's side.
    fn field_operand(&self, wanted: Field) -> Option<u8> {
        let hand_back = self.hand_back.as_ref()?;
        hand_back
            .fields
            .iter()
            .position(|field| matches!(field, Some((read, _)) if *read == wanted))
            .map(|position| position as u8 + 1)
    }

    /// The hand-back for `chunk`, when every value it holds is one the caller's side
    /// has.
    fn hand_back_of(&self, chunk: &Chunk<Value, Value>) -> Option<f64> {
        self.hand_back.as_ref()?;
        match chunk {
            Chunk::Text { text } => Some(encode(
                Shape::TypeText,
                &[name_operand(Interned::Text), self.operand(*text)?],
            )),
            Chunk::Thinking { text, metadata: None } => Some(encode(
                Shape::TypeText,
                &[name_operand(Interned::Thinking), self.operand(*text)?],
            )),
            Chunk::ToolBatch { calls } if calls.len() == 1 => {
                let call = &calls[0];
                Some(encode(
                    Shape::TypeCall,
                    &[
                        name_operand(Interned::ToolBatch),
                        self.operand(call.id)?,
                        self.operand(call.name)?,
                        self.operand(call.arguments)?,
                    ],
                ))
            }
            Chunk::Error { message, status_code } => {
                let tag = name_operand(Interned::Error);
                Some(match status_code {
                    Some(_) => encode(
                        Shape::TypeMessageStatus,
                        &[
                            tag,
                            self.operand(*message)?,
                            self.field_operand(Field::StatusCode)?,
                        ],
                    ),
                    None => encode(Shape::TypeMessage, &[tag, self.operand(*message)?]),
                })
            }
            Chunk::System { kind, text } => {
                let tag = name_operand(Interned::System);
                let kind = literal_operand(kind.as_str())?;
                Some(match self.composed.take() {
                    Some(parts) => {
                        let mut operands = [0; 2 + COMPOSED];
                        operands[0] = tag;
                        operands[1] = kind;
                        operands[2..].copy_from_slice(&parts);
                        encode(Shape::TypeKindComposed, &operands)
                    }
                    None => encode(Shape::TypeKindText, &[tag, kind, self.operand(*text)?]),
                })
            }
            _ => None,
        }
    }

    /// Takes the array's `length`, and the last element and its `type` when `last` is
    /// given, as already read (by `mechanics.js`, in the helper's order): the first
    /// [`ChunkStore::len`] checks that length instead of reading it, and the last
    /// element and its type are not read again.
    pub fn prime(&self, (length, last): ReadLength) {
        self.primed.set(Some((length, last)));
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
        if let Some((cached, calls, len)) = self.cached_calls.get() {
            if cached == index {
                return Ok((calls, len));
            }
        }
        let calls = self.js.get(self.chunk(index)?, Interned::Calls)?;
        match self.js.array_len_of(calls, &format!("chunks[{index}].calls"))? {
            Some(len) => {
                self.cached_calls.set(Some((index, calls, len)));
                Ok((calls, len))
            }
            None => Err(calls_not_array(index)),
        }
    }

    fn call(&self, index: usize, call: usize) -> JsResult<Value> {
        if let Some((cached, position, entry)) = self.cached_call.get() {
            if (cached, position) == (index, call) {
                return Ok(entry);
            }
        }
        let (calls, _) = self.calls(index)?;
        self.js.element(calls, call)
    }

    /// Reads what the original helper reads of the chunks before it reads the event's
    /// payload: the text a delta extends, the shell output a stream adds to. A getter on
    /// the event that changes them then has the effect it has with the helper.
    pub fn hold(&self, target: Target) -> JsResult<()> {
        match target {
            Target::Chunk(index) => {
                let text = self.js.get(self.chunk(index)?, Interned::Text)?;
                self.held_text.set(Some(text));
            }
            Target::Call(index, call) => {
                let entry = self.call(index, call)?;
                let (previous, stdout) = self.previous_output(entry)?;
                self.held_shell.set(Some((entry, previous, stdout)));
            }
            Target::Push | Target::Nowhere => {}
        }
        Ok(())
    }

    /// The shell output of `event` added to the call entry at (`index`, `call`), which
    /// the rules found, in one call where the mechanics are compiled (`None` where not):
    /// what [`JsChunks::hold`], the event's `stream` and `data` and
    /// [`ChunkStore::append_shell_output`] read and write, in that order.
    /// `Some(Some(refusal))` gives back what the binding refuses, with nothing written.
    pub fn shell_output_from(
        &self,
        index: usize,
        call: usize,
        event: Value,
    ) -> JsResult<Option<Option<ShellRefusal>>> {
        self.js.shell_output_from(self.call(index, call)?, event)
    }

    /// The helper's `last.text += event.delta` on the chunk at `index`, in one call where
    /// the mechanics are compiled (`None` where not): the chunk's `text`, then the
    /// event's `delta`, read in that order; written only when the delta is a string.
    /// `Some(Some(delta))` gives back a delta that is not, unwritten.
    pub fn extend_from(&self, index: usize, event: Value) -> JsResult<Option<Option<Value>>> {
        self.js.extend_from(self.chunk(index)?, event)
    }

    /// Makes the next [`ChunkStore::set_result`] read `isError` from `tool_result` after it
    /// writes `result` (undoing that write if the read or the second write fails).
    pub fn defer_is_error(&self, tool_result: Value) {
        self.held_tool_result.set(Some((tool_result, false)));
    }

    /// Makes the next [`ChunkStore::set_result`] read `result` and `isError` from
    /// `tool_result`, each just before its write, in one call (`setResult` of
    /// `mechanics.js`); the values it is given are then not used. `false` where the
    /// mechanics are not compiled (nothing is deferred).
    pub fn defer_result(&self, tool_result: Value) -> bool {
        if !self.js.state.mechanics.get() {
            return false;
        }
        self.held_tool_result.set(Some((tool_result, true)));
        true
    }

    /// The entry's `shellOutput` and its `stdout` (`""` when there is none).
    fn previous_output(&self, entry: Value) -> JsResult<(Value, Value)> {
        let js = self.js;
        let previous = js.get(entry, Interned::ShellOutput)?;
        let stdout = match js.value_type(previous)? {
            ValueType::Undefined | ValueType::Null => js.name(Interned::Empty)?,
            _ => js.get(previous, Interned::Stdout)?,
        };
        Ok((previous, stdout))
    }

    /// The newest chunk of type `ty` before `end`, read as the helper's walk reads it: each
    /// element once, and the one found once more (the helper reads `chunks[i]` again to
    /// return it, or to take its `calls`), which is the object then changed. Runs of holes
    /// and falsy elements go to a loop in JavaScript instead of one N-API call each.
    fn newest_before(&self, mut end: usize, ty: ChunkType) -> JsResult<Option<usize>> {
        /// Falsy elements read one by one before the rest of the run goes to the loop.
        const RUN: usize = 8;
        if end == 0 {
            return Ok(None);
        }
        if let Some((index, tag)) = self.primed_type.get() {
            if index + 1 == end {
                // The last element and its `type` were read before the call (`prime`):
                // the walk starts with them instead of reading them again.
                self.primed_type.set(None);
                if self.js.strict_equals(tag, self.js.name(tag_of(ty))?)? {
                    self.cached
                        .set(Some((index, self.js.element(self.array, index)?)));
                    return Ok(Some(index));
                }
                end = index;
                if end == 0 {
                    return Ok(None);
                }
            }
        }
        if let Some(found) = self.js.newest_of_type(self.array, end - 1, tag_of(ty))? {
            if let Some(index) = found {
                // The helper reads the element found once more, and changes that object.
                self.cached
                    .set(Some((index, self.js.element(self.array, index)?)));
            }
            return Ok(found);
        }
        let mut falsy = 0;
        while end > 0 {
            let mut index = end - 1;
            let chunk = self.js.element(self.array, index)?;
            let chunk = if self.js.truthy(chunk)? {
                falsy = 0;
                chunk
            } else if falsy < RUN || index == 0 {
                falsy += 1;
                end = index;
                continue;
            } else {
                falsy = 0;
                match self.js.truthy_at_or_before(self.array, index - 1)? {
                    Some((found, chunk)) => {
                        index = found;
                        chunk
                    }
                    None => return Ok(None),
                }
            };
            self.cached.set(Some((index, chunk)));
            if self.is(index, ty)? {
                self.cached
                    .set(Some((index, self.js.element(self.array, index)?)));
                return Ok(Some(index));
            }
            end = index;
        }
        Ok(None)
    }

    fn push(&mut self, chunk: Value) -> JsResult<()> {
        self.js.push(self.array, chunk, || "chunks".into())
    }

    /// The [`Shape`] and values of `chunk` when `pushNew` of `mechanics.js` makes it
    /// (every chunk an event creates).
    fn shape_of(&self, chunk: &Chunk<Value, Value>) -> JsResult<Option<(Shape, [Value; 4])>> {
        let js = self.js;
        Ok(Some(match chunk {
            Chunk::Text { text } => {
                let tag = js.name(Interned::Text)?;
                (Shape::TypeText, [tag, *text, tag, tag])
            }
            Chunk::Thinking { text, metadata: None } => {
                let tag = js.name(Interned::Thinking)?;
                (Shape::TypeText, [tag, *text, tag, tag])
            }
            Chunk::ToolBatch { calls } if calls.len() == 1 => {
                let call = &calls[0];
                let tag = js.name(Interned::ToolBatch)?;
                (Shape::TypeCall, [tag, call.id, call.name, call.arguments])
            }
            Chunk::Error { message, status_code } => {
                let tag = js.name(Interned::Error)?;
                match status_code {
                    Some(code) => (
                        Shape::TypeMessageStatus,
                        [tag, *message, js.create_number(*code)?, tag],
                    ),
                    None => (Shape::TypeMessage, [tag, *message, tag, tag]),
                }
            }
            Chunk::System { kind, text } => {
                let tag = js.name(Interned::System)?;
                (
                    Shape::TypeKindText,
                    [tag, js.ascii_string(kind.as_str())?, *text, tag],
                )
            }
            _ => return Ok(None),
        }))
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
        if let Some((length, last)) = self.primed.take() {
            let len = self.js.length_of(length, "\"chunks\"")?;
            if let (Some((chunk, tag)), Some(index)) = (last, len.checked_sub(1)) {
                self.cached.set(Some((index, chunk)));
                self.primed_type.set(Some((index, tag)));
                self.front_last.set(Some(index));
            }
            return Ok(len);
        }
        match self.js.array_len_of(self.array, "\"chunks\"")? {
            Some(len) => Ok(len),
            None => Err(JsError::Type("\"chunks\" is no longer an array".into())),
        }
    }

    fn is(&self, index: usize, ty: ChunkType) -> JsResult<bool> {
        let js = self.js;
        let tag = match self.primed_type.take() {
            Some((primed, tag)) if primed == index => tag,
            // A hole, `null` or a primitive has no own `type`: reading it gives `undefined`.
            _ => js.get(self.chunk(index)?, Interned::Type)?,
        };
        js.strict_equals(tag, js.name(tag_of(ty))?)
    }

    fn is_sealed(&self, index: usize) -> JsResult<bool> {
        let metadata = self.js.get(self.chunk(index)?, Interned::Metadata)?;
        Ok(self.js.value_type(metadata)? != ValueType::Undefined)
    }

    fn extend_text(&mut self, index: usize, delta: Value) -> JsResult<()> {
        let chunk = self.chunk(index)?;
        let text = match self.held_text.take() {
            Some(text) => text,
            None => self.js.get(chunk, Interned::Text)?,
        };
        self.js.extend_text(chunk, text, delta)
    }

    fn push_chunk(&mut self, chunk: Chunk<Value, Value>) -> JsResult<()> {
        let js = self.js;
        if self.hand_back.is_some() {
            let Some(code) = self.hand_back_of(&chunk) else {
                return Err(JsError::Internal(
                    "a new chunk holds a value the compiled front does not have".into(),
                ));
            };
            self.handed_back.set(Some(code));
            return Ok(());
        }
        if let Some((shape, values)) = self.shape_of(&chunk)? {
            if js
                .push_new(self.array, shape, values, || "chunks".into())?
                .is_some()
            {
                return Ok(());
            }
        }
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
        if self.hand_back.is_some() && parts.len() <= COMPOSED {
            let mut operands = [0; COMPOSED];
            let resolved = parts.iter().zip(&mut operands).all(|(part, operand)| {
                let found = match part {
                    TextPart::Literal(literal) => literal_operand(literal),
                    TextPart::Given(given) => self.operand(**given),
                };
                *operand = found.unwrap_or(0);
                found.is_some()
            });
            if resolved {
                // The caller's side joins the parts; what stands in for the text here is
                // never written.
                self.composed.set(Some(operands));
                return self.js.name(Interned::Empty);
            }
        }
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
        let chunk = self.chunk(index)?;
        self.js.assign(chunk, Interned::Metadata, metadata)
    }

    fn push_call(&mut self, index: usize, call: ToolCallEntry<Value, Value>) -> JsResult<()> {
        if self.hand_back.is_some() && self.front_last.get() == Some(index) {
            // The batch is the last chunk, which the caller's side holds: it reads its
            // `calls` and pushes the entry (`handOff` of `mechanics.js`).
            if let (Some(id), Some(name), Some(arguments)) = (
                self.operand(call.id),
                self.operand(call.name),
                self.operand(call.arguments),
            ) {
                self.handed_back
                    .set(Some(encode(Shape::Call, &[0, id, name, arguments])));
                return Ok(());
            }
        }
        self.cached_calls.set(None);
        let (calls, _) = self.calls(index)?;
        let what = || format!("chunks[{index}].calls");
        let values = [call.id, call.id, call.name, call.arguments];
        if self.js.push_new(calls, Shape::Call, values, what)?.is_some() {
            return Ok(());
        }
        let entry = self.new_call(call)?;
        self.js
            .push(calls, entry, || format!("chunks[{index}].calls"))
            .map(|_| ())
    }

    fn find_call(&self, index: usize, id: &Value) -> JsResult<Option<usize>> {
        let js = self.js;
        let (calls, len) = self.calls(index)?;
        for position in 0..len {
            let call = js.element(calls, position)?;
            match js.value_type(call)? {
                ValueType::Undefined | ValueType::Null => return Err(no_entry(index, position)),
                ValueType::Object | ValueType::Array | ValueType::Function
                    if js.strict_equals(js.get(call, Interned::Id)?, *id)? =>
                {
                    self.cached_call.set(Some((index, position, call)));
                    return Ok(Some(position));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    fn set_result(&mut self, index: usize, call: usize, result: Value, is_error: Value) -> JsResult<()> {
        let js = self.js;
        let entry = self.call(index, call)?;
        if let Some((tool_result, true)) = self.held_tool_result.get() {
            self.held_tool_result.set(None);
            if js.set_result(entry, tool_result)?.is_some() {
                return Ok(());
            }
            return Err(JsError::Internal(
                "a deferred result without the mechanics".into(),
            ));
        }
        // Two writes: if the second is refused, the first is undone, so the entry is as
        // it was (the helper would leave `result` written).
        let had_result = js.has_own(entry, Interned::Result)?;
        let old_result = js.get(entry, Interned::Result)?;
        js.assign(entry, Interned::Result, result)?;
        let second = match self.held_tool_result.take() {
            // The helper reads `isError` only now, after writing `result`.
            Some((tool_result, _)) => js
                .get(tool_result, Interned::IsError)
                .and_then(|is_error| js.assign(entry, Interned::IsError, is_error)),
            None => js.assign(entry, Interned::IsError, is_error),
        };
        let Err(error) = second else {
            return Ok(());
        };
        let pending = matches!(error, JsError::Pending);
        let mut exception = ptr::null_mut();
        if pending {
            // SAFETY: takes the pending exception (the refusal, or a getter's) of the live
            // environment, to throw it again once `result` is restored.
            unsafe { sys::napi_get_and_clear_last_exception(js.env, &mut exception) };
        }
        let undone = if had_result {
            js.assign(entry, Interned::Result, old_result)
        } else {
            js.delete(entry, js.name(Interned::Result)?).map(|_| ())
        };
        if undone.is_err() {
            // The undo's own exception gives way to the first error.
            let mut ignored = ptr::null_mut();
            unsafe { sys::napi_get_and_clear_last_exception(js.env, &mut ignored) };
        }
        if !pending {
            return Err(error);
        }
        // SAFETY: rethrows the exception taken above.
        unsafe { sys::napi_throw(js.env, exception) };
        Err(JsError::Pending)
    }

    fn last_call(&self, index: usize) -> JsResult<Option<usize>> {
        let (calls, len) = self.calls(index)?;
        if len == 0 {
            return Ok(None);
        }
        let entry = self.js.element(calls, len - 1)?;
        self.cached_call.set(Some((index, len - 1, entry)));
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
        let (entry, previous, stdout) = match self.held_shell.take() {
            Some(held) => held,
            None => {
                let entry = self.call(index, call)?;
                let (previous, stdout) = self.previous_output(entry)?;
                (entry, previous, stdout)
            }
        };
        if !js.is_object(entry)? {
            return Err(not_an_entry(index, call));
        }
        let stderr = match js.value_type(previous)? {
            ValueType::Undefined | ValueType::Null => js.name(Interned::Empty)?,
            _ => js.get(previous, Interned::Stderr)?,
        };
        let empty = js.name(Interned::Empty)?;
        let pick = |wanted: ShellStream| if stream == wanted { data } else { empty };
        let stdout = js.plus(stdout, pick(ShellStream::Stdout))?;
        let stderr = js.plus(stderr, pick(ShellStream::Stderr))?;
        let output = js.object(&[(Interned::Stdout, stdout), (Interned::Stderr, stderr)])?;
        js.assign(entry, Interned::ShellOutput, output)
    }

    fn newest(&self, ty: ChunkType) -> JsResult<Option<usize>> {
        self.newest_before(self.len()?, ty)
    }

    fn newest_call(&self, id: &Value) -> JsResult<Option<(usize, usize)>> {
        let mut end = self.len()?;
        if end == 0 {
            return Ok(None);
        }
        if let Some(found) = self.js.find_call(self.array, end - 1, Interned::ToolBatch, *id)? {
            return match found {
                FoundCall::Entry(index, call, entry) => {
                    self.cached_call.set(Some((index, call, entry)));
                    Ok(Some((index, call)))
                }
                FoundCall::Nowhere => Ok(None),
                FoundCall::CallsNotArray(index) => Err(calls_not_array(index)),
                FoundCall::CallsLength(index, length) => self
                    .js
                    .length_of(length, &format!("chunks[{index}].calls"))
                    .and(Err(JsError::Internal("a length findCall refused passed".into()))),
                FoundCall::NoEntry(index, call) => Err(no_entry(index, call)),
            };
        }
        while let Some(index) = self.newest_before(end, ChunkType::ToolBatch)? {
            if let Some(call) = self.find_call(index, id)? {
                return Ok(Some((index, call)));
            }
            end = index;
        }
        Ok(None)
    }
}

pub(in crate::napi) fn calls_not_array(index: usize) -> JsError {
    JsError::Type(format!(
        "chunks[{index}] is a tool-batch whose \"calls\" is not an array"
    ))
}

fn no_entry(index: usize, position: usize) -> JsError {
    JsError::Type(format!(
        "chunks[{index}].calls[{position}] is not a tool call entry"
    ))
}

/// The `type` a chunk of type `ty` has.
fn tag_of(ty: ChunkType) -> Interned {
    match ty {
        ChunkType::Text => Interned::Text,
        ChunkType::Thinking => Interned::Thinking,
        ChunkType::ToolBatch => Interned::ToolBatch,
    }
}

/// Reads a JavaScript event for [`crate::decode::decode_event`].
pub struct JsEvents<'a, 's> {
    pub js: &'a Js<'s>,
    /// A field already read (by a mechanic), returned instead of reading it again.
    pub read: Cell<Option<(Field, Value)>>,
    /// Fields the compiled front read before the call, in the order the rules read them
    /// (see `Prefetch` in entry.rs), each returned once instead of reading it again.
    prefetched: [Option<(Field, Value)>; 4],
    /// How many of `prefetched` the rules have read.
    taken: Cell<usize>,
    /// What stands in for the event's delta, which the compiled front reads itself.
    delta: Option<Value>,
}

impl<'a, 's> JsEvents<'a, 's> {
    pub fn new(js: &'a Js<'s>) -> Self {
        JsEvents {
            js,
            read: Cell::new(None),
            prefetched: [None; 4],
            taken: Cell::new(0),
            delta: None,
        }
    }

    /// Takes the fields the compiled front read (`fields`, in the rules' order; only
    /// those it read are returned, as it stops where a check of the rules would fail).
    pub fn prefetched(&mut self, fields: [Option<(Field, Value)>; 4]) {
        self.prefetched = fields;
    }

    /// Makes `stand_in` (a string) the event's delta: the compiled front reads the delta
    /// after the call, for a chunk it pushes.
    pub fn delta_read_later(&mut self, stand_in: Value) {
        self.delta = Some(stand_in);
    }

    /// The fields the compiled front read that the rules have taken, for a hand-back.
    pub fn taken(&self) -> [Option<(Field, Value)>; 4] {
        let mut taken = self.prefetched;
        for field in &mut taken[self.taken.get()..] {
            *field = None;
        }
        taken
    }
}

pub fn field_name(field: Field) -> Interned {
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
        if let Some((read, value)) = self.read.get() {
            if read == field {
                self.read.set(None);
                return Ok(value);
            }
        }
        let taken = self.taken.get();
        if let Some(Some((read, value))) = self.prefetched.get(taken) {
            if *read == field {
                self.taken.set(taken + 1);
                return Ok(*value);
            }
        }
        if let (Field::Delta, Some(stand_in)) = (field, self.delta) {
            return Ok(stand_in);
        }
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
