//! Moving format data across the boundary in bulk, as JSON text.
//!
//! The format functions take the caller's value as JSON text (a string or Buffer as
//! given, anything else through `JSON.stringify`, which writes unpaired surrogates as
//! `\uXXXX` escapes, so nothing is lost) and hand their result back the same way, through
//! `JSON.parse`. Building the result object by object through N-API is slower (see
//! `napi-facts.md`).

use std::borrow::Cow;
use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{Env, Status};
use napi::sys;

use crate::bytes::wtf8::Wtf8;
use crate::decode::ValueType;

use super::bytes::uint8_bytes;
use super::raw::call;
use super::raw::js::{too_long, Js, JsError, JsResult, MAX_STRING_CHECKED};
use crate::bytes::value::{self, Json};
use crate::reading::check::FormatError;
use crate::reading::model_json::{event_json, write_messages, FormatEvent, FormatMessage};
use napi::bindgen_prelude::Unknown;

pub type Value = sys::napi_value;

/// The current call's environment: the binding's [`Js`] layer, with errors as napi-rs
/// errors for the generated wrappers, plus the JSON text bridge.
pub struct Bridge<'s> {
    js: Js<'s>,
    env: sys::napi_env,
    /// The function name that prefixes error messages, e.g. `pi.toMessages`.
    name: &'static str,
}

/// A JSON text: borrowed from a Buffer, or owned.
pub enum JsonText<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl JsonText<'_> {
    pub fn bytes(&self) -> &[u8] {
        match self {
            JsonText::Borrowed(bytes) => bytes,
            JsonText::Owned(bytes) => bytes,
        }
    }
}

impl Bridge<'_> {
    pub fn new(env: &Env, name: &'static str) -> napi::Result<Self> {
        let raw = env.raw();
        // SAFETY: `env` is the live environment of the current call.
        let state = unsafe { call::state(raw) }
            .ok_or_else(|| napi::Error::from_reason(format!("{name}: the addon was not initialised here")))?;
        Ok(Bridge {
            js: unsafe { Js::new(raw, state) },
            env: raw,
            name,
        })
    }

    /// A result of the [`Js`] layer: its error thrown with this function's name.
    fn lift<T>(&self, result: JsResult<T>) -> napi::Result<T> {
        result.map_err(|error| {
            self.js.throw(error, self.name);
            napi::Error::new(Status::PendingException, self.name.to_owned())
        })
    }

    /// A failed N-API call: the pending exception (a throwing getter, `JSON.stringify` on
    /// a cycle …) propagates as it is.
    pub fn check(&self, status: sys::napi_status, what: &str) -> napi::Result<()> {
        if status == sys::Status::napi_ok {
            return Ok(());
        }
        let mut pending = false;
        unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
        let status = if pending {
            Status::PendingException
        } else {
            Status::GenericFailure
        };
        Err(napi::Error::new(status, format!("{}: {what} failed", self.name)))
    }

    /// [`Self::check`] for creating a string of `len` `units`: V8 fails one past its
    /// length limit without throwing, which becomes a `RangeError` saying so.
    fn created(&self, status: sys::napi_status, len: usize, units: &str) -> napi::Result<()> {
        if status != sys::Status::napi_ok && len > MAX_STRING_CHECKED {
            let mut pending = false;
            unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
            if !pending {
                return self.lift(Err(JsError::Range(too_long(len, units))));
            }
        }
        self.check(status, "creating a string")
    }

    /// Throws a `TypeError` prefixed with the function's name.
    pub fn type_error(&self, message: impl std::fmt::Display) -> napi::Error {
        let text = format!("{}: {message}", self.name).replace('\0', "\\0");
        let c_text = std::ffi::CString::new(text.clone()).unwrap_or_default();
        unsafe { sys::napi_throw_type_error(self.env, ptr::null(), c_text.as_ptr()) };
        napi::Error::new(Status::PendingException, text)
    }

    pub fn get(&self, object: Value, key: &CStr) -> napi::Result<Value> {
        let mut value = ptr::null_mut();
        self.check(
            unsafe { sys::napi_get_named_property(self.env, object, key.as_ptr(), &mut value) },
            "reading a property",
        )?;
        Ok(value)
    }

    pub fn has(&self, object: Value, key: &CStr) -> napi::Result<bool> {
        let mut result = false;
        self.check(
            unsafe { sys::napi_has_named_property(self.env, object, key.as_ptr(), &mut result) },
            "checking a property",
        )?;
        Ok(result)
    }

    pub fn undefined(&self) -> napi::Result<Value> {
        self.lift(self.js.undefined())
    }

    /// A new object with `fields` defined in order, as an object literal defines them (no
    /// setter on `Object.prototype` runs).
    pub fn object_with(&self, fields: &[(&CStr, Value)]) -> napi::Result<Value> {
        self.lift(self.js.object_named(fields))
    }

    pub fn array(&self, items: &[Value]) -> napi::Result<Value> {
        self.lift(self.js.array(items))
    }

    /// The length of an array, or of a Proxy of one (as `Array.isArray` sees arrays), for
    /// every length JavaScript allows; a Proxy reporting an impossible length is a
    /// `TypeError` naming `what`.
    pub fn array_len(&self, value: Value, what: &str) -> napi::Result<Option<usize>> {
        self.lift(self.js.array_len_of(value, what))
    }

    /// `Array.isArray(value)`: arrays and Proxies of arrays.
    pub fn is_array(&self, value: Value) -> napi::Result<bool> {
        self.lift(self.js.is_array(value))
    }

    pub fn element(&self, array: Value, index: usize) -> napi::Result<Value> {
        self.lift(self.js.element(array, index))
    }

    /// What the caller gave, for an error message (`NaN`, `a symbol`, …).
    pub fn describe(&self, value: Value) -> napi::Result<String> {
        self.lift(self.js.describe(value))
    }

    /// The value at `path` (`parts[0].type`) under `root`, read again from the caller's
    /// objects; `None` when the path does not lead anywhere.
    pub fn value_at(&self, root: Value, path: &str) -> napi::Result<Option<Value>> {
        let mut value = root;
        for segment in path.split('.').filter(|s| !s.is_empty()) {
            let (name, indexes) = match segment.find('[') {
                Some(at) => segment.split_at(at),
                None => (segment, ""),
            };
            if !name.is_empty() {
                if !self.lift(self.js.is_object(value))? {
                    return Ok(None);
                }
                let Ok(key) = std::ffi::CString::new(name) else {
                    return Ok(None);
                };
                value = self.get(value, &key)?;
            }
            for index in indexes.split('[').filter(|s| !s.is_empty()) {
                let Some(Ok(index)) = index.strip_suffix(']').map(str::parse::<usize>) else {
                    return Ok(None);
                };
                if !self.lift(self.js.is_object(value))? {
                    return Ok(None);
                }
                value = self.element(value, index)?;
            }
        }
        Ok(Some(value))
    }

    pub fn value_type(&self, value: Value) -> napi::Result<ValueType> {
        self.lift(self.js.value_type(value))
    }

    pub fn truthy(&self, value: Value) -> napi::Result<bool> {
        self.lift(self.js.truthy(value))
    }

    /// The string's exact text. V8 writes UTF-8 fastest, but writes an unpaired surrogate
    /// as U+FFFD; text in which U+FFFD appears (an unpaired surrogate, or the character
    /// itself) is read again as UTF-16, where unpaired surrogates survive.
    pub fn text(&self, value: Value) -> napi::Result<Wtf8> {
        let utf8 = self.lift(self.js.utf8(value))?;
        if memchr::memmem::find(utf8.as_bytes(), "\u{FFFD}".as_bytes()).is_none() {
            return Ok(Wtf8::from(utf8));
        }
        let mut units = Vec::new();
        self.lift(self.js.utf16_into(value, &mut units))?;
        Ok(Wtf8::from_utf16(&units))
    }

    pub fn string(&self, text: &Wtf8) -> napi::Result<Value> {
        let mut value = ptr::null_mut();
        let (status, len, units) = match text.as_str() {
            Some(utf8) => (
                unsafe {
                    sys::napi_create_string_utf8(
                        self.env,
                        utf8.as_ptr().cast(),
                        utf8.len() as isize,
                        &mut value,
                    )
                },
                utf8.len(),
                "bytes of UTF-8",
            ),
            None => {
                let units = text.to_utf16();
                (
                    unsafe {
                        sys::napi_create_string_utf16(
                            self.env,
                            units.as_ptr(),
                            units.len() as isize,
                            &mut value,
                        )
                    },
                    units.len(),
                    "characters",
                )
            }
        };
        self.created(status, len, units)?;
        Ok(value)
    }

    /// The bytes of a Buffer or Uint8Array: borrowed for the call, or copied when they
    /// are shared memory another thread may change.
    pub fn bytes(&self, value: Value) -> napi::Result<Option<Cow<'_, [u8]>>> {
        self.lift(uint8_bytes(&self.js, value))
    }

    fn json_method(&self, method: &CStr) -> napi::Result<(Value, Value)> {
        let mut global = ptr::null_mut();
        self.check(
            unsafe { sys::napi_get_global(self.env, &mut global) },
            "reading the global",
        )?;
        let json = self.get(global, c"JSON")?;
        Ok((json, self.get(json, method)?))
    }

    /// `JSON.stringify(value)` as UTF-8 bytes; `None` when it gives `undefined` (for
    /// `undefined`, functions and symbols).
    pub fn stringify(&self, value: Value) -> napi::Result<Option<Vec<u8>>> {
        let (json, stringify) = self.json_method(c"stringify")?;
        let mut text = ptr::null_mut();
        self.check(
            unsafe { sys::napi_call_function(self.env, json, stringify, 1, &value, &mut text) },
            "JSON.stringify",
        )?;
        if self.value_type(text)? != ValueType::String {
            return Ok(None);
        }
        let mut len = 0usize;
        self.check(
            unsafe { sys::napi_get_value_string_utf8(self.env, text, ptr::null_mut(), 0, &mut len) },
            "measuring JSON",
        )?;
        let mut bytes = vec![0u8; len + 1];
        let mut written = 0usize;
        self.check(
            unsafe {
                sys::napi_get_value_string_utf8(
                    self.env,
                    text,
                    bytes.as_mut_ptr().cast(),
                    len + 1,
                    &mut written,
                )
            },
            "reading JSON",
        )?;
        bytes.truncate(written);
        Ok(Some(bytes))
    }

    /// [`Bridge::stringify`], with `JSON.stringify`'s "Do not know how to serialize a
    /// BigInt" turned into a `TypeError` that says where the bigint is (`"thought.role"
    /// is a bigint …`), and its "Converting circular structure" into one that names the
    /// argument (V8's message, which names the property closing the cycle, after it);
    /// other exceptions propagate as they are.
    pub fn stringify_named(&self, value: Value, what: &str) -> napi::Result<Option<Vec<u8>>> {
        let error = match self.stringify(value) {
            Ok(text) => return Ok(text),
            Err(error) => error,
        };
        let mut exception = ptr::null_mut();
        // SAFETY: takes the pending exception of the live environment, to throw it again
        // unless a bigint explains it.
        unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut exception) };
        if let Some(cycle) = self.cycle_message(exception) {
            return Err(self.type_error(format!(
                "\"{what}\" holds itself (a cycle), which JSON has no form for: {cycle}"
            )));
        }
        match self.bigint_path(value, 0) {
            Ok(Some(path)) => Err(self.type_error(format!(
                "\"{what}{path}\" is a bigint, which JSON has no form for"
            ))),
            _ => {
                let mut pending = false;
                unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
                if pending {
                    let mut ignored = ptr::null_mut();
                    unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut ignored) };
                }
                // SAFETY: rethrows the exception taken above.
                unsafe { sys::napi_throw(self.env, exception) };
                Err(error)
            }
        }
    }

    /// The message of `JSON.stringify`'s own `TypeError` for a cycle (V8 words it so; an
    /// engine that words it otherwise has its exception passed on as it is).
    fn cycle_message(&self, exception: Value) -> Option<String> {
        let mut is_error = false;
        unsafe { sys::napi_is_error(self.env, exception, &mut is_error) };
        if !is_error {
            return None;
        }
        let message = self.get(exception, c"message").ok()?;
        if self.value_type(message).ok()? != ValueType::String {
            return None;
        }
        let message = self.js.utf8(message).ok()?;
        message
            .starts_with("Converting circular structure to JSON")
            .then_some(message)
    }

    /// Where the first bigint `JSON.stringify` would meet under `value` is (`.parts[0].type`).
    fn bigint_path(&self, value: Value, depth: usize) -> napi::Result<Option<String>> {
        const DEEPEST: usize = 64;
        match self.value_type(value)? {
            ValueType::BigInt => Ok(Some(String::new())),
            ValueType::Array | ValueType::Object if depth < DEEPEST => {
                if let Some(len) = self.array_len(value, "")? {
                    for index in 0..len {
                        if let Some(rest) = self.bigint_path(self.element(value, index)?, depth + 1)? {
                            return Ok(Some(format!("[{index}]{rest}")));
                        }
                    }
                    return Ok(None);
                }
                let mut keys = ptr::null_mut();
                self.check(
                    unsafe {
                        sys::napi_get_all_property_names(
                            self.env,
                            value,
                            sys::KeyCollectionMode::own_only,
                            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                            sys::KeyConversion::numbers_to_strings,
                            &mut keys,
                        )
                    },
                    "listing keys",
                )?;
                let count = self.array_len(keys, "")?.unwrap_or(0);
                for position in 0..count {
                    let key = self.element(keys, position)?;
                    let mut child = ptr::null_mut();
                    self.check(
                        unsafe { sys::napi_get_property(self.env, value, key, &mut child) },
                        "reading a property",
                    )?;
                    if let Some(rest) = self.bigint_path(child, depth + 1)? {
                        return Ok(Some(format!(".{}{rest}", self.text(key)?)));
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// `JSON.parse` of a JSON text this crate wrote (UTF-8: its unpaired surrogates are
    /// escapes).
    pub fn parse(&self, text: &[u8]) -> napi::Result<Value> {
        let mut string = ptr::null_mut();
        let status = unsafe {
            sys::napi_create_string_utf8(self.env, text.as_ptr().cast(), text.len() as isize, &mut string)
        };
        self.created(status, text.len(), "bytes of JSON text")?;
        let (json, parse) = self.json_method(c"parse")?;
        let mut value = ptr::null_mut();
        self.check(
            unsafe { sys::napi_call_function(self.env, json, parse, 1, &string, &mut value) },
            "JSON.parse",
        )?;
        Ok(value)
    }
}

// ─── Values in and out, as the format faces take and give them ─────────────────

/// A history: JSON text (a string, or a Buffer borrowed as it is) or parsed items.
pub(in crate::napi) enum History<'a> {
    Text(JsonText<'a>),
    Items(Vec<Json>),
}

/// A Buffer's bytes as JSON text: they must be UTF-8, as a file's are (the reader also
/// takes surrogates encoded alone, which only a JavaScript string's text holds). The
/// error names the line and column (`lines`), or the column in the whole text.
pub(in crate::napi) fn buffer_text<'a>(
    b: &Bridge,
    bytes: &'a [u8],
    lines: bool,
) -> napi::Result<JsonText<'a>> {
    let Err(error) = std::str::from_utf8(bytes) else {
        return Ok(JsonText::Borrowed(bytes));
    };
    let at = error.valid_up_to();
    Err(b.type_error(if lines {
        let start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        format!("line {line}: invalid UTF-8 at column {}", at - start + 1)
    } else {
        format!("invalid UTF-8 at column {}", at + 1)
    }))
}

/// The value's type, with a Proxy of an array (a reactive store) counted as the array
/// `Array.isArray` says it is.
pub(in crate::napi) fn kind_of(b: &Bridge, value: Value) -> napi::Result<ValueType> {
    Ok(match b.value_type(value)? {
        ValueType::Object if b.is_array(value)? => ValueType::Array,
        other => other,
    })
}

pub(in crate::napi) fn history<'a>(
    b: &'a Bridge,
    value: Value,
    what: &str,
    lines: bool,
) -> napi::Result<History<'a>> {
    match kind_of(b, value)? {
        ValueType::String => Ok(History::Text(JsonText::Owned(b.text(value)?.into_bytes()))),
        ValueType::Array => match json_of(b, value, what)? {
            Json::Array(items) => Ok(History::Items(items)),
            _ => Err(b.type_error(format!("\"{what}\" changed while it was read"))),
        },
        got => match b.bytes(value)? {
            Some(Cow::Borrowed(bytes)) => Ok(History::Text(buffer_text(b, bytes, lines)?)),
            Some(Cow::Owned(bytes)) => {
                buffer_text(b, &bytes, lines)?;
                Ok(History::Text(JsonText::Owned(bytes)))
            }
            None => Err(b.type_error(format!(
                "\"{what}\" must be a string, a Buffer or an array, got {}",
                got.name()
            ))),
        },
    }
}

/// The value as JSON (`JSON.stringify` semantics). `JSON.stringify` has its own depth
/// limit (a `RangeError`); past the reader's lower one the error names the argument and
/// the column of its JSON text.
pub(in crate::napi) fn json_of(b: &Bridge, value: Value, what: &str) -> napi::Result<Json> {
    let text = b
        .stringify_named(value, what)?
        .unwrap_or_else(|| b"null".to_vec());
    value::parse(&text).map_err(|e| b.type_error(format!("\"{what}\" as JSON: {e}")))
}

/// The value as JSON, which must be an object.
pub(in crate::napi) fn object_of(b: &Bridge, value: Value, what: &str) -> napi::Result<Json> {
    match b.value_type(value)? {
        ValueType::Object => json_of(b, value, what),
        got => Err(b.type_error(format!("\"{what}\" must be an object, got {}", got.name()))),
    }
}

pub(in crate::napi) fn array_of(b: &Bridge, value: Value, what: &str) -> napi::Result<Json> {
    match kind_of(b, value)? {
        ValueType::Array => json_of(b, value, what),
        got => Err(b.type_error(format!("\"{what}\" must be an array, got {}", got.name()))),
    }
}

pub(in crate::napi) fn give(b: &Bridge, env: &Env, json: &Json) -> napi::Result<Unknown<'static>> {
    let value = b.parse(&json.to_json())?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

pub(in crate::napi) fn give_messages(
    b: &Bridge,
    env: &Env,
    messages: &[FormatMessage],
) -> napi::Result<Unknown<'static>> {
    let mut text = Vec::new();
    write_messages(&mut text, messages);
    let value = b.parse(&text)?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

pub(in crate::napi) fn give_events(
    b: &Bridge,
    env: &Env,
    events: &[FormatEvent],
) -> napi::Result<Unknown<'static>> {
    give(
        b,
        env,
        &Json::Array(events.iter().filter_map(event_json).collect()),
    )
}

/// Prefixes a format error's path with the argument it is in (`event.toolCallId`), and
/// says what the caller really gave where `JSON.stringify` changed it: `NaN` and
/// `Infinity` become `null`, `undefined`, functions and symbols vanish.
pub(in crate::napi) fn within(b: &Bridge, what: &str, given: Value, mut error: FormatError) -> napi::Error {
    if let Some(at) = error.problem.rfind(", got ") {
        let said = &error.problem[at + ", got ".len()..];
        if said == "null" || said == "undefined" {
            if let Ok(Some(value)) = b.value_at(given, &error.path) {
                if let Ok(real) = b.describe(value) {
                    if real != said {
                        error.problem = format!("{}, got {real}", &error.problem[..at]);
                    }
                }
            }
        }
    }
    error.path = if error.path.is_empty() {
        what.to_string()
    } else if error.path.starts_with('[') {
        format!("{what}{}", error.path)
    } else {
        format!("{what}.{}", error.path)
    };
    b.type_error(error)
}

/// `messages` as JSON text gave them: a call's `arguments` that was `undefined` is absent
/// there, and so is a result's `result` or `isError` that was (a result event without
/// one): they stay `undefined` here (the reader of `ChatMessage` JSON takes absent as
/// `null`).
pub(in crate::napi) fn absent_payloads(mut messages: Json) -> Json {
    let Json::Array(messages_list) = &mut messages else {
        return messages;
    };
    for message in messages_list {
        let Some(Json::Array(chunks)) = message.get_mut("chunks") else {
            continue;
        };
        for chunk in chunks {
            let Some(Json::Array(calls)) = chunk.get_mut("calls") else {
                continue;
            };
            for call in calls {
                if let Json::Object(fields) = call {
                    if !fields.iter().any(|(key, _)| *key == "arguments") {
                        fields.push((Wtf8::from("arguments"), Json::Undefined));
                    }
                    let at = |key: &str| fields.iter().position(|(k, _)| *k == key);
                    match (at("result"), at("isError")) {
                        (None, Some(is_error)) => {
                            fields.insert(is_error, (Wtf8::from("result"), Json::Undefined))
                        }
                        (Some(result), None) => {
                            fields.insert(result + 1, (Wtf8::from("isError"), Json::Undefined))
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    messages
}
