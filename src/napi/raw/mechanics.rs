//! Small functions the binding runs inside V8 (`mechanics.js`), compiled once per
//! environment: strict-mode writes that throw where the helper's writes throw (N-API's
//! `napi_set_property` ignores a refused write), `push` as the helper calls it, and the
//! walk over holes. Each replaces several N-API calls, or one per hole, with one call.
//! They decide nothing; the rules stay in Rust.
//!
//! Where code from text may not run (the WebAssembly build's `napi_run_script` is `eval`,
//! which a page's Content Security Policy such as `script-src 'self' 'wasm-unsafe-eval'`
//! forbids), the same steps are taken through built-ins read from the global object at
//! load: `Object.assign(target, { [key]: value })`, whose write is a strict-mode
//! assignment's (setters and Proxy traps run, a refusal throws V8's own `TypeError`), and
//! `Array.prototype.push`, to tell the caller's own `push` from the built-in one. No write
//! to the caller's objects is made with `napi_set_property`, which ignores a refusal.

use crate::bytes::wtf8::Wtf8;
use std::ptr;

use napi::sys;

use super::js::{
    check, Interned, Js, JsError, JsResult, Value, ARRAY_PUSH, MAKE_APPEND, MECHANICS_SLOT, OBJECT_ASSIGN,
    PUSHED, TABLE_END,
};

/// The functions of `mechanics.js`, compiled at load, in the order it lists them.
const SKIP_FALSY: u32 = MECHANICS_SLOT;
const NEWEST_OF_TYPE: u32 = MECHANICS_SLOT + 1;
const EXTEND_TEXT: u32 = MECHANICS_SLOT + 2;
const EXTEND_FROM: u32 = MECHANICS_SLOT + 7;
const ASSIGN: u32 = MECHANICS_SLOT + 3;
const PUSH: u32 = MECHANICS_SLOT + 4;
const PUSH_NEW: u32 = MECHANICS_SLOT + 5;
const SHELL_OUTPUT_FROM: u32 = MECHANICS_SLOT + 6;
const FIND_CALL: u32 = MECHANICS_SLOT + 8;
const SET_RESULT: u32 = MECHANICS_SLOT + 9;
const MECHANICS: [u32; 12] = [
    SKIP_FALSY,
    NEWEST_OF_TYPE,
    EXTEND_TEXT,
    ASSIGN,
    PUSH,
    PUSH_NEW,
    SHELL_OUTPUT_FROM,
    EXTEND_FROM,
    FIND_CALL,
    SET_RESULT,
    MAKE_APPEND,
    PUSHED,
];
const _: () = assert!(SET_RESULT + 1 == TABLE_END && MAKE_APPEND == TABLE_END && PUSHED == MAKE_APPEND + 1);

/// What `findCall` of `mechanics.js` found.
pub enum FoundCall {
    /// The batch's index, the entry's position in its `calls`, and the entry.
    Entry(usize, usize, Value),
    /// No call has the id.
    Nowhere,
    /// The batch at this index has `calls` that is no array.
    CallsNotArray(usize),
    /// The batch at this index has `calls` whose `length` (this value) no array can have.
    CallsLength(usize, Value),
    /// The batch's `calls` at this index holds `undefined` or `null` at this position.
    NoEntry(usize, usize),
}

/// What `shellOutputFrom` of `mechanics.js` refused, unwritten, with the event's fields it
/// read: a `stream` that is no string, a `data` that is no string, an entry that is no
/// object.
pub enum ShellRefusal {
    Stream(Value),
    Data(Value, Value),
    Entry,
}

/// The shapes `pushNew` of `mechanics.js` makes, keys in the helper's order.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// `{ type, text }`
    TypeText = 0,
    /// `{ type, kind, text }`
    TypeKindText = 1,
    /// `{ type, message }`
    TypeMessage = 2,
    /// `{ type, message }`, then `statusCode` assigned
    TypeMessageStatus = 3,
    /// `{ type, calls: [{ id, name, arguments }] }`
    TypeCall = 4,
    /// `{ id, name, arguments }`
    Call = 5,
    /// `{ type, kind, text }`, the text joined from parts (for a hand-back only)
    TypeKindComposed = 6,
}
const MECHANICS_SOURCE: &str = include_str!("mechanics.js");

/// Compiles `mechanics.js` into the holder array. `false` where code from text may not run
/// (a page whose Content Security Policy forbids it, for a WebAssembly build): the
/// built-ins then do the same work, with the same refusals.
///
/// # Safety
/// `env` must be a live environment on the current thread, `holder` an array of it.
pub(in crate::napi) unsafe fn compile(env: sys::napi_env, holder: Value) -> JsResult<bool> {
    let mut source = ptr::null_mut();
    let mut mechanics = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_string_utf8(
                env,
                MECHANICS_SOURCE.as_ptr().cast(),
                MECHANICS_SOURCE.len() as isize,
                &mut source,
            )
        },
        env,
        "creating a source text",
    )?;
    let compiled = unsafe { sys::napi_run_script(env, source, &mut mechanics) } == sys::Status::napi_ok;
    if compiled {
        for (position, slot) in MECHANICS.into_iter().enumerate() {
            let mut function = ptr::null_mut();
            check(
                unsafe { sys::napi_get_element(env, mechanics, position as u32, &mut function) },
                env,
                "reading a mechanic",
            )?;
            check(
                unsafe { sys::napi_set_element(env, holder, slot, function) },
                env,
                "storing a mechanic",
            )?;
        }
    } else {
        let mut refused = ptr::null_mut();
        // SAFETY: clears the compile error (if any) of the live environment.
        unsafe { sys::napi_get_and_clear_last_exception(env, &mut refused) };
    }
    Ok(compiled)
}

/// The compiled `appendEventToChunks` (`makeAppend` of `mechanics.js`, called with
/// `arguments`).
pub(in crate::napi) fn make_append(js: &Js, arguments: &[Value; 10]) -> JsResult<Value> {
    js.call_mechanic(MAKE_APPEND, arguments)
}

impl Js<'_> {
    /// What a push into a `Conversation` changed, when it is nothing (`None`) or one text
    /// grown by `added` (chunk `.1` of message `.0` of `messages`, its own array):
    /// `added` appended there — to the text, or with `call` to the `arguments` of that
    /// call object of the chunk, as the caller read it (and of its `meta[mirror]`) — and
    /// the push's changes (`pushed` of `mechanics.js`). `None` where the mechanics are not compiled.
    pub fn conversation_pushed(
        &self,
        messages: Value,
        grown: Option<(usize, usize)>,
        added: &Wtf8,
        call: Option<(Value, Option<&str>)>,
    ) -> JsResult<Option<Value>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        let args = match grown {
            Some((message, chunk)) => {
                let (call, mirror) = match call {
                    Some((call, Some(mirror))) => (call, self.ascii_string(mirror)?),
                    Some((call, None)) => (call, self.undefined()?),
                    None => (self.undefined()?, self.undefined()?),
                };
                [
                    messages,
                    self.create_number(message as f64)?,
                    self.create_number(chunk as f64)?,
                    self.wtf8_string(added)?,
                    call,
                    mirror,
                ]
            }
            None => {
                let none = self.create_number(-1.0)?;
                [messages, none, none, none, none, none]
            }
        };
        self.call_mechanic(PUSHED, &args).map(Some)
    }

    /// `chunk.text = text + delta`, as the helper's `+=` with `text` read before. One call:
    /// V8 joins (as a rope) and writes; a refused write throws the helper's `TypeError`.
    pub fn extend_text(&self, chunk: Value, text: Value, delta: Value) -> JsResult<()> {
        if !self.state.mechanics.get() {
            let joined = self.plus(text, delta)?;
            return self.strict_set(chunk, self.name(Interned::Text)?, joined);
        }
        self.call_mechanic(EXTEND_TEXT, &[chunk, text, delta]).map(|_| ())
    }

    /// `chunk.text = chunk.text + event.delta` when the delta is a string, in one call
    /// (see [`super::chunks::JsChunks::extend_from`]).
    pub fn extend_from(&self, chunk: Value, event: Value) -> JsResult<Option<Option<Value>>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        let refused = self.call_mechanic(EXTEND_FROM, &[chunk, event])?;
        if !self.is_object(refused)? {
            return Ok(Some(None));
        }
        Ok(Some(Some(self.element(refused, 0)?)))
    }

    /// `object[key] = value` in strict mode: setters and Proxy traps run, and a refused
    /// write (frozen, sealed, read-only, a trap returning false) throws the `TypeError`
    /// the helper's own assignment throws, where `napi_set_property` would ignore it.
    pub fn assign(&self, object: Value, key: Interned, value: Value) -> JsResult<()> {
        if !self.state.mechanics.get() {
            return self.strict_set(object, self.name(key)?, value);
        }
        self.call_mechanic(ASSIGN, &[object, self.name(key)?, value])
            .map(|_| ())
    }

    fn call_mechanic(&self, slot: u32, args: &[Value]) -> JsResult<Value> {
        let function = self.table(slot)?;
        let this = self.undefined()?;
        let mut result = ptr::null_mut();
        // SAFETY: `function` is a compiled mechanic, called with arguments of this scope.
        self.check(
            unsafe {
                sys::napi_call_function(self.env, this, function, args.len(), args.as_ptr(), &mut result)
            },
            "a mechanic",
        )?;
        Ok(result)
    }

    /// [`Js::push`] of a new object of `shape` made of `values` (in the shape's order,
    /// after `type`: the first value is `type`, or ignored for [`Shape::Call`]), made in
    /// V8 as a literal; `None` where the mechanics are not compiled.
    pub fn push_new(
        &self,
        array: Value,
        shape: Shape,
        values: [Value; 4],
        what: impl FnOnce() -> String,
    ) -> JsResult<Option<()>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        let [a, b, c, d] = values;
        let shape = self.create_number(shape as u8 as f64)?;
        let done = self.call_mechanic(PUSH_NEW, &[array, shape, a, b, c, d])?;
        self.pushed(done, what).map(Some)
    }

    /// The call entry's side of shell output in one call (`shellOutputFrom` of
    /// `mechanics.js`): the entry's `shellOutput` and its `stdout`, the event's `stream`
    /// and `data`, the previous `stderr`, then `entry.shellOutput = { stdout: stdout +
    /// out, stderr: stderr + err }`, each read where the binding reads it step by step.
    /// `None` where the mechanics are not compiled; `Some(None)` once written.
    pub fn shell_output_from(&self, entry: Value, event: Value) -> JsResult<Option<Option<ShellRefusal>>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        let names = [self.name(Interned::Stdout)?, self.name(Interned::Stderr)?];
        let refused = self.call_mechanic(SHELL_OUTPUT_FROM, &[entry, event, names[0], names[1]])?;
        if !self.is_object(refused)? {
            return Ok(Some(None));
        }
        Ok(Some(Some(match self.number(self.element(refused, 0)?)? {
            1.0 => ShellRefusal::Stream(self.element(refused, 1)?),
            2.0 => ShellRefusal::Data(self.element(refused, 1)?, self.element(refused, 2)?),
            _ => ShellRefusal::Entry,
        })))
    }

    /// What `push` of `mechanics.js` returned: `true`, or `[length]` for a length no
    /// array-like can have.
    fn pushed(&self, done: Value, what: impl FnOnce() -> String) -> JsResult<()> {
        if !self.is_object(done)? {
            return Ok(());
        }
        let length = self.element(done, 0)?;
        Err(self.bad_length(length, what))
    }

    /// `array.push(value)` as `Array.prototype.push` does it, reading the length at this
    /// moment (so elements a getter or `idFactory` added are kept), for every length an
    /// array-like may have. Where the helper's `push` would throw (a frozen, sealed or
    /// non-extensible array, a Proxy refusing the write), nothing is changed and `what`
    /// (e.g. `chunks`) is named in the `TypeError`.
    pub fn push(&self, array: Value, value: Value, what: impl FnOnce() -> String) -> JsResult<()> {
        if !self.state.mechanics.get() {
            return self.push_by_builtins(array, value, what);
        }
        let push = self.table(PUSH)?;
        let this = self.undefined()?;
        let args = [array, value];
        let mut done = ptr::null_mut();
        // SAFETY: `push` is the compiled mechanic, called with two arguments of this scope.
        self.check(
            unsafe { sys::napi_call_function(self.env, this, push, 2, args.as_ptr(), &mut done) },
            "pushing",
        )?;
        self.pushed(done, what)
    }

    pub(in crate::napi) fn bad_length(&self, length: Value, what: impl FnOnce() -> String) -> JsError {
        match self.describe(length) {
            Ok(length) => JsError::Type(format!(
                "\"{}\" is an array whose \"length\" is {length}, not a whole number below 2^53 - 1",
                what(),
            )),
            Err(error) => error,
        }
    }

    /// `object[key] = value` in strict mode, as `Object.assign(object, { [key]: value })`
    /// makes it: setters and Proxy traps run, and a refused write throws V8's `TypeError`.
    fn strict_set(&self, object: Value, key: Value, value: Value) -> JsResult<()> {
        let assign = self.table(OBJECT_ASSIGN)?;
        let this = self.undefined()?;
        let args = [object, self.object_with(key, value)?];
        let mut done = ptr::null_mut();
        // SAFETY: `assign` is `Object.assign`, called with two arguments of this scope.
        self.check(
            unsafe { sys::napi_call_function(self.env, this, assign, 2, args.as_ptr(), &mut done) },
            "writing a property",
        )
    }

    /// `push` of `mechanics.js`, step by step through the built-ins.
    fn push_by_builtins(&self, array: Value, value: Value, what: impl FnOnce() -> String) -> JsResult<()> {
        let method = self.get(array, Interned::Push)?;
        if !self.strict_equals(method, self.table(ARRAY_PUSH)?)? {
            let mut done = ptr::null_mut();
            // SAFETY: calls the caller's own `push` on its array, as the helper does (a
            // value that is not a function throws the TypeError the helper's call throws).
            self.check(
                unsafe { sys::napi_call_function(self.env, array, method, 1, &value, &mut done) },
                "pushing",
            )?;
            return Ok(());
        }
        let length = self.get(array, Interned::Length)?;
        let len = match self.value_type(length)? {
            crate::decode::ValueType::Number => self.number(length)?,
            _ => f64::NAN,
        };
        if !(0.0..super::js::MAX_LENGTH).contains(&len) || len.fract() != 0.0 {
            return Err(self.bad_length(length, what));
        }
        // The length as a key, made from the number read (not cut to the width of `usize`).
        let mut key = ptr::null_mut();
        // SAFETY: converts a number of this scope.
        self.check(
            unsafe { sys::napi_coerce_to_string(self.env, self.create_number(len)?, &mut key) },
            "making an index key",
        )?;
        self.strict_set(array, key, value)?;
        let next = self.create_number(len + 1.0)?;
        match self.strict_set(array, self.name(Interned::Length)?, next) {
            Err(JsError::Pending) => {
                // The length was refused (V8's TypeError, a RangeError past 2^32 - 1, a
                // trap's own error): the element is taken back, the exception kept.
                let exception = self.take_exception()?;
                self.delete(array, key)?;
                Err(JsError::Throw(exception))
            }
            done => done,
        }
    }

    /// The index of the newest element at or before `from` that is truthy and whose `type`
    /// is `tag`, read as the helper's walk reads it: each element once, its `type` when it
    /// is truthy. `None` when none is, or where the mechanics are not compiled (the
    /// caller then walks step by step); `Some(None)` when no element matches.
    pub fn newest_of_type(
        &self,
        array: Value,
        from: usize,
        tag: Interned,
    ) -> JsResult<Option<Option<usize>>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        let found = self.call_mechanic(
            NEWEST_OF_TYPE,
            &[array, self.create_number(from as f64)?, self.name(tag)?],
        )?;
        let index = self.number(found)?;
        Ok(Some((index >= 0.0).then_some(index as usize)))
    }

    /// The newest call whose `id` is `id` in the batches at or before `from`, read as the
    /// helper reads them (see `findCall` of `mechanics.js`), in one call; `None` where
    /// the mechanics are not compiled.
    pub fn find_call(
        &self,
        array: Value,
        from: usize,
        tag: Interned,
        id: Value,
    ) -> JsResult<Option<FoundCall>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        let found = self.call_mechanic(
            FIND_CALL,
            &[array, self.create_number(from as f64)?, self.name(tag)?, id],
        )?;
        if !self.is_object(found)? {
            return Ok(Some(FoundCall::Nowhere));
        }
        let first = self.number(self.element(found, 0)?)?;
        let index = |at: usize| -> JsResult<usize> { Ok(self.number(self.element(found, at)?)? as usize) };
        Ok(Some(match first {
            -2.0 => FoundCall::CallsNotArray(index(1)?),
            -3.0 => FoundCall::NoEntry(index(1)?, index(2)?),
            -4.0 => FoundCall::CallsLength(index(1)?, self.element(found, 2)?),
            _ => FoundCall::Entry(first as usize, index(1)?, self.element(found, 2)?),
        }))
    }

    /// `entry.result = toolResult.result; entry.isError = toolResult.isError` as the
    /// helper does it, with `result` put back when the second write fails (see
    /// `setResult` of `mechanics.js`), in one call; `None` where the mechanics are not
    /// compiled.
    pub fn set_result(&self, entry: Value, tool_result: Value) -> JsResult<Option<()>> {
        if !self.state.mechanics.get() {
            return Ok(None);
        }
        self.call_mechanic(SET_RESULT, &[entry, tool_result])?;
        Ok(Some(()))
    }

    /// The nearest element at or before `from` that is truthy, with its index, read by a
    /// loop in JavaScript (see `mechanics.js`): holes cost what they cost the helper.
    pub fn truthy_at_or_before(&self, array: Value, from: usize) -> JsResult<Option<(usize, Value)>> {
        if !self.state.mechanics.get() {
            for index in (0..=from).rev() {
                let element = self.element(array, index)?;
                if self.truthy(element)? {
                    return Ok(Some((index, element)));
                }
            }
            return Ok(None);
        }
        let found = self.call_mechanic(SKIP_FALSY, &[array, self.create_number(from as f64)?])?;
        if !self.is_object(found)? {
            return Ok(None);
        }
        let index = self.number(self.element(found, 0)?)?;
        Ok(Some((index as usize, self.element(found, 1)?)))
    }
}
