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

use crate::decode::ValueType;
use crate::formats::wtf8::Wtf8;

use super::bytes::uint8_bytes;
use super::entry;
use super::js::{too_long, Js, JsError, JsResult, MAX_STRING_CHECKED};

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
        let state = unsafe { entry::state(raw) }
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

    pub fn array_len(&self, value: Value) -> napi::Result<Option<u32>> {
        let mut is_array = false;
        self.check(
            unsafe { sys::napi_is_array(self.env, value, &mut is_array) },
            "isArray",
        )?;
        if !is_array {
            return Ok(None);
        }
        let mut len = 0;
        self.check(
            unsafe { sys::napi_get_array_length(self.env, value, &mut len) },
            "reading a length",
        )?;
        Ok(Some(len))
    }

    pub fn element(&self, array: Value, index: u32) -> napi::Result<Value> {
        self.lift(self.js.element(array, index as usize))
    }

    pub fn value_type(&self, value: Value) -> napi::Result<ValueType> {
        self.lift(self.js.value_type(value))
    }

    pub fn truthy(&self, value: Value) -> napi::Result<bool> {
        self.lift(self.js.truthy(value))
    }

    /// The string's exact text (read as UTF-16, so unpaired surrogates survive).
    pub fn text(&self, value: Value) -> napi::Result<Wtf8> {
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
