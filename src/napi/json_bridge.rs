//! Moving format data across the boundary in bulk, as JSON text.
//!
//! The format functions take the caller's value as JSON text (a string or Buffer as
//! given, anything else through `JSON.stringify`, which writes unpaired surrogates as
//! `\uXXXX` escapes, so nothing is lost) and hand their result back the same way, through
//! `JSON.parse`. Building the result object by object through N-API is slower (see
//! `napi-facts.md`).

use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{Env, Status};
use napi::sys;

use crate::decode::ValueType;
use crate::formats::wtf8::Wtf8;

pub type Value = sys::napi_value;

/// The current call's environment.
pub struct Bridge {
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

impl Bridge {
    pub fn new(env: &Env, name: &'static str) -> Self {
        Bridge { env: env.raw(), name }
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

    pub fn set(&self, object: Value, key: &CStr, value: Value) -> napi::Result<()> {
        self.check(
            unsafe { sys::napi_set_named_property(self.env, object, key.as_ptr(), value) },
            "writing a property",
        )
    }

    pub fn undefined(&self) -> napi::Result<Value> {
        let mut value = ptr::null_mut();
        self.check(
            unsafe { sys::napi_get_undefined(self.env, &mut value) },
            "undefined",
        )?;
        Ok(value)
    }

    pub fn object(&self) -> napi::Result<Value> {
        let mut object = ptr::null_mut();
        self.check(
            unsafe { sys::napi_create_object(self.env, &mut object) },
            "creating an object",
        )?;
        Ok(object)
    }

    pub fn array(&self, items: &[Value]) -> napi::Result<Value> {
        let mut array = ptr::null_mut();
        self.check(
            unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut array) },
            "creating an array",
        )?;
        for (i, &item) in items.iter().enumerate() {
            self.check(
                unsafe { sys::napi_set_element(self.env, array, i as u32, item) },
                "writing an element",
            )?;
        }
        Ok(array)
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
        let mut value = ptr::null_mut();
        self.check(
            unsafe { sys::napi_get_element(self.env, array, index, &mut value) },
            "reading an element",
        )?;
        Ok(value)
    }

    pub fn value_type(&self, value: Value) -> napi::Result<ValueType> {
        let mut ty = 0;
        self.check(unsafe { sys::napi_typeof(self.env, value, &mut ty) }, "typeof")?;
        use sys::ValueType as T;
        Ok(match ty {
            T::napi_undefined => ValueType::Undefined,
            T::napi_null => ValueType::Null,
            T::napi_boolean => ValueType::Boolean,
            T::napi_number => ValueType::Number,
            T::napi_string => ValueType::String,
            T::napi_symbol => ValueType::Symbol,
            T::napi_function => ValueType::Function,
            T::napi_bigint => ValueType::BigInt,
            _ if self.array_len(value)?.is_some() => ValueType::Array,
            _ => ValueType::Object,
        })
    }

    pub fn truthy(&self, value: Value) -> napi::Result<bool> {
        let mut boolean = ptr::null_mut();
        let mut result = false;
        self.check(
            unsafe { sys::napi_coerce_to_bool(self.env, value, &mut boolean) },
            "coercing to boolean",
        )?;
        self.check(
            unsafe { sys::napi_get_value_bool(self.env, boolean, &mut result) },
            "reading a boolean",
        )?;
        Ok(result)
    }

    /// The string's exact text (read as UTF-16, so unpaired surrogates survive).
    pub fn text(&self, value: Value) -> napi::Result<Wtf8> {
        let mut len = 0usize;
        self.check(
            unsafe { sys::napi_get_value_string_utf16(self.env, value, ptr::null_mut(), 0, &mut len) },
            "measuring a string",
        )?;
        let mut units = vec![0u16; len + 1];
        let mut written = 0usize;
        self.check(
            unsafe {
                sys::napi_get_value_string_utf16(self.env, value, units.as_mut_ptr(), len + 1, &mut written)
            },
            "reading a string",
        )?;
        Ok(Wtf8::from_utf16(&units[..written]))
    }

    pub fn string(&self, text: &Wtf8) -> napi::Result<Value> {
        let mut value = ptr::null_mut();
        let status = match text.as_str() {
            Some(utf8) => unsafe {
                sys::napi_create_string_utf8(self.env, utf8.as_ptr().cast(), utf8.len() as isize, &mut value)
            },
            None => {
                let units = text.to_utf16();
                unsafe {
                    sys::napi_create_string_utf16(self.env, units.as_ptr(), units.len() as isize, &mut value)
                }
            }
        };
        self.check(status, "creating a string")?;
        Ok(value)
    }

    /// The bytes of a Buffer or Uint8Array, borrowed for the call.
    pub fn bytes(&self, value: Value) -> napi::Result<Option<&[u8]>> {
        let mut is_typed = false;
        self.check(
            unsafe { sys::napi_is_typedarray(self.env, value, &mut is_typed) },
            "checking for a typed array",
        )?;
        if !is_typed {
            return Ok(None);
        }
        let mut kind = 0;
        let mut len = 0usize;
        let mut data: *mut std::ffi::c_void = ptr::null_mut();
        self.check(
            unsafe {
                sys::napi_get_typedarray_info(
                    self.env,
                    value,
                    &mut kind,
                    &mut len,
                    &mut data,
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            },
            "reading a typed array",
        )?;
        if kind != sys::TypedarrayType::uint8_array {
            return Ok(None);
        }
        if len == 0 || data.is_null() {
            return Ok(Some(&[]));
        }
        // SAFETY: the caller's buffer outlives this call, and nothing runs JavaScript
        // (which could detach it) while the slice is read.
        Ok(Some(unsafe {
            std::slice::from_raw_parts(data as *const u8, len)
        }))
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
        self.check(
            unsafe {
                sys::napi_create_string_utf8(self.env, text.as_ptr().cast(), text.len() as isize, &mut string)
            },
            "creating JSON text",
        )?;
        let (json, parse) = self.json_method(c"parse")?;
        let mut value = ptr::null_mut();
        self.check(
            unsafe { sys::napi_call_function(self.env, json, parse, 1, &string, &mut value) },
            "JSON.parse",
        )?;
        Ok(value)
    }
}
