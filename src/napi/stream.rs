//! The bytes path for JavaScript: `ChunkStream`, `reduceEvents`, `reduceEventsToJson`.
//!
//! Bytes are borrowed from the caller's Buffer (no copy until a frame is incomplete);
//! chunks come back as JSON text, which V8's `JSON.parse` turns into objects faster than
//! building them one property at a time (see napi-facts.md).

use std::ffi::CString;
use std::ptr;

use napi::bindgen_prelude::{Env, Result, Status, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::bytes::{EventStream, Framing, StreamError};

/// How a byte stream is cut into events.
#[napi(string_enum = "lowercase")]
pub enum StreamFraming {
    /// Decided by the first non-blank line: an SSE field or comment means SSE.
    Auto,
    /// One JSON event per line.
    Ndjson,
    /// Server-Sent Events: `data:` lines, frames ended by a blank line.
    Sse,
}

/// Options of `ChunkStream` and `reduceEvents`.
#[napi(object)]
pub struct StreamOptions {
    /// Default `auto`.
    pub framing: Option<StreamFraming>,
}

fn framing(options: Option<StreamOptions>) -> Framing {
    match options.and_then(|o| o.framing) {
        None | Some(StreamFraming::Auto) => Framing::Auto,
        Some(StreamFraming::Ndjson) => Framing::Ndjson,
        Some(StreamFraming::Sse) => Framing::Sse,
    }
}

/// Throws `error` as a TypeError (`type_error`) or an Error, and returns the napi-rs
/// error that says an exception is pending.
fn throw(env: &Env, message: &str, type_error: bool, location: Option<&StreamError>) -> napi::Error {
    let raw = env.raw();
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    // SAFETY: `raw` is the live environment of this call; all values are created in it.
    unsafe {
        let mut msg = ptr::null_mut();
        let mut error = ptr::null_mut();
        sys::napi_create_string_utf8(raw, text.as_ptr(), text.as_bytes().len() as isize, &mut msg);
        if type_error {
            sys::napi_create_type_error(raw, ptr::null_mut(), msg, &mut error);
        } else {
            sys::napi_create_error(raw, ptr::null_mut(), msg, &mut error);
        }
        if let Some(location) = location {
            for (key, number) in [(c"offset", location.offset), (c"line", location.line)] {
                let mut value = ptr::null_mut();
                sys::napi_create_double(raw, number as f64, &mut value);
                sys::napi_set_named_property(raw, error, key.as_ptr(), value);
            }
        }
        sys::napi_throw(raw, error);
    }
    napi::Error::new(Status::PendingException, message.to_owned())
}

/// The bytes of a Buffer, a Uint8Array (borrowed) or a string (as UTF-8).
enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Owned(String),
}

impl std::ops::Deref for Bytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(bytes) => bytes,
            Bytes::Owned(text) => text.as_bytes(),
        }
    }
}

fn bytes<'a>(env: &Env, data: &Unknown<'a>, what: &str) -> Result<Bytes<'a>> {
    let raw = env.raw();
    let value = data.raw();
    // SAFETY: `value` is an argument of the current call; a typed array's memory lives at
    // least as long as the call, which is as long as the borrow is used.
    unsafe {
        let mut is_typed_array = false;
        sys::napi_is_typedarray(raw, value, &mut is_typed_array);
        if is_typed_array {
            let mut kind = 0;
            let mut length = 0usize;
            let mut data_ptr = ptr::null_mut();
            let mut buffer = ptr::null_mut();
            let mut offset = 0usize;
            let status = sys::napi_get_typedarray_info(
                raw,
                value,
                &mut kind,
                &mut length,
                &mut data_ptr,
                &mut buffer,
                &mut offset,
            );
            if status == sys::Status::napi_ok && kind == sys::TypedarrayType::uint8_array {
                let slice = if length == 0 {
                    &[][..]
                } else {
                    std::slice::from_raw_parts(data_ptr as *const u8, length)
                };
                return Ok(Bytes::Borrowed(slice));
            }
        }
        let mut ty = 0;
        sys::napi_typeof(raw, value, &mut ty);
        if ty == sys::ValueType::napi_string {
            let mut len = 0usize;
            sys::napi_get_value_string_utf8(raw, value, ptr::null_mut(), 0, &mut len);
            let mut buf = vec![0u8; len + 1];
            sys::napi_get_value_string_utf8(raw, value, buf.as_mut_ptr().cast(), len + 1, &mut len);
            buf.truncate(len);
            return Ok(Bytes::Owned(String::from_utf8_unchecked(buf)));
        }
        let got = match ty {
            sys::ValueType::napi_undefined => "undefined",
            sys::ValueType::napi_null => "null",
            sys::ValueType::napi_boolean => "boolean",
            sys::ValueType::napi_number => "number",
            sys::ValueType::napi_symbol => "symbol",
            sys::ValueType::napi_function => "function",
            sys::ValueType::napi_bigint => "bigint",
            _ => "object",
        };
        Err(throw(
            env,
            &format!("{what}: data must be a Buffer, a Uint8Array or a string, got {got}"),
            true,
            None,
        ))
    }
}

/// `JSON.parse(text)` in this environment.
fn parse_json<'env>(env: &'env Env, text: &str) -> Result<Unknown<'env>> {
    let raw = env.raw();
    // SAFETY: creates and calls values in the live environment of this call.
    unsafe {
        let mut global = ptr::null_mut();
        let mut json = ptr::null_mut();
        let mut parse = ptr::null_mut();
        let mut string = ptr::null_mut();
        let mut result = ptr::null_mut();
        sys::napi_get_global(raw, &mut global);
        sys::napi_get_named_property(raw, global, c"JSON".as_ptr(), &mut json);
        sys::napi_get_named_property(raw, json, c"parse".as_ptr(), &mut parse);
        sys::napi_create_string_utf8(raw, text.as_ptr().cast(), text.len() as isize, &mut string);
        let status = sys::napi_call_function(raw, json, parse, 1, &string, &mut result);
        if status != sys::Status::napi_ok {
            return Err(napi::Error::new(Status::PendingException, "JSON.parse failed"));
        }
        Ok(Unknown::from_raw_unchecked(raw, result))
    }
}

/// Agent events as bytes (NDJSON lines or SSE frames), folded into one message's chunks
/// as they arrive. Frames may be split anywhere across `push` calls, inside a UTF-8
/// sequence too. A bad frame throws an `Error` with its `line` and byte `offset`; the
/// chunks stay as they were before it and the stream stays usable.
#[napi]
pub struct ChunkStream {
    inner: EventStream,
}

#[napi]
impl ChunkStream {
    #[napi(constructor)]
    pub fn new(options: Option<StreamOptions>) -> Self {
        ChunkStream {
            inner: EventStream::new(framing(options)),
        }
    }

    /// Folds every complete frame of `data` (with what earlier pushes left over).
    #[napi(ts_args_type = "data: Buffer | Uint8Array | string")]
    pub fn push(&mut self, env: &Env, data: Unknown) -> Result<()> {
        let data = bytes(env, &data, "ChunkStream.push")?;
        self.inner
            .push(&data)
            .map_err(|e| throw(env, &format!("ChunkStream.push: {e}"), false, Some(&e)))
    }

    /// Folds what is left; a frame cut short by the end of the stream is an error with
    /// its offset.
    #[napi]
    pub fn end(&mut self, env: &Env) -> Result<()> {
        self.inner
            .end()
            .map_err(|e| throw(env, &format!("ChunkStream.end: {e}"), false, Some(&e)))
    }

    /// The chunks so far, as fresh objects.
    #[napi(ts_return_type = "Chunk[]")]
    pub fn chunks<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        parse_json(env, &self.inner.to_json())
    }

    /// The chunks, for `JSON.stringify(stream)`.
    #[napi(js_name = "toJSON", ts_return_type = "Chunk[]")]
    pub fn to_json<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        self.chunks(env)
    }

    /// The chunks as JSON text.
    #[napi]
    pub fn to_json_string(&self) -> String {
        self.inner.to_json()
    }

    /// Events folded so far (lifecycle and unknown ones included).
    #[napi(getter)]
    pub fn event_count(&self) -> f64 {
        self.inner.event_count() as f64
    }
}

fn reduce(env: &Env, data: &Unknown, options: Option<StreamOptions>, what: &str) -> Result<EventStream> {
    let data = bytes(env, data, what)?;
    let mut stream = EventStream::new(framing(options));
    let result = stream.push(&data).and_then(|()| stream.end());
    result.map_err(|e| throw(env, &format!("{what}: {e}"), false, Some(&e)))?;
    Ok(stream)
}

/// All events of `data` (NDJSON or SSE) folded into chunks, in one call.
#[napi(
    ts_args_type = "data: Buffer | Uint8Array | string, options?: StreamOptions",
    ts_return_type = "Chunk[]"
)]
pub fn reduce_events<'env>(
    env: &'env Env,
    data: Unknown,
    options: Option<StreamOptions>,
) -> Result<Unknown<'env>> {
    let stream = reduce(env, &data, options, "reduceEvents")?;
    parse_json(env, &stream.to_json())
}

/// All events of `data` folded into chunks, as JSON text.
#[napi(ts_args_type = "data: Buffer | Uint8Array | string, options?: StreamOptions")]
pub fn reduce_events_to_json(env: &Env, data: Unknown, options: Option<StreamOptions>) -> Result<String> {
    Ok(reduce(env, &data, options, "reduceEventsToJson")?.to_json())
}
