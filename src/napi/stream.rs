//! The bytes path for JavaScript: `ChunkStream`, `reduceEvents`, `reduceEventsToJson`.
//!
//! Bytes are borrowed from the caller's Buffer (copied only when a frame is incomplete);
//! chunks come back as JSON text, which V8's `JSON.parse` turns into objects faster than
//! building them one property at a time (see napi-facts.md).
//!
//! `ChunkStream.push` is called once per network read, so like the drop-in it is served
//! by a raw class installed over the generated one (`install_class`); a napi-rs class
//! method costs several hundred nanoseconds per call here. The `#[napi]` declarations
//! below give the typings and the loader their shape and use the same glue.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_void, CStr};
use std::ptr;

use napi::bindgen_prelude::{Env, Result, Status, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::bytes::Framing;
use crate::decode::ValueType;
use crate::live::{EventStream, StreamError};

use super::bytes::uint8_bytes;
use super::raw::call::{caught, run, with_state};
use super::raw::js::{Interned, Js, JsError, JsResult, State, Value};

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
// Read from the JavaScript object by `framing` (with a TypeError naming the field), so
// Rust never builds one; the declaration is for the typings.
#[allow(dead_code)]
#[napi(object)]
pub struct StreamOptions {
    /// Default `auto`.
    pub framing: Option<StreamFraming>,
}

// ─── Glue shared by the raw class and the generated declarations ───────────────

/// `options.framing`, checked.
fn framing(js: &Js, options: Value) -> JsResult<Framing> {
    match js.value_type(options)? {
        ValueType::Undefined | ValueType::Null => return Ok(Framing::Auto),
        ValueType::Object => {}
        got => {
            return Err(JsError::Type(format!(
                "options must be an object, got {}",
                got.name()
            )))
        }
    }
    let value = js.get(options, Interned::Framing)?;
    let mut buf = [0u8; 32];
    match js.tag(value, &mut buf)? {
        None if js.value_type(value)? == ValueType::Undefined => Ok(Framing::Auto),
        Some(b"auto") => Ok(Framing::Auto),
        Some(b"ndjson") => Ok(Framing::Ndjson),
        Some(b"sse") => Ok(Framing::Sse),
        _ => Err(JsError::Type(format!(
            "options.framing must be 'auto', 'ndjson' or 'sse', got {}",
            js.describe(value)?
        ))),
    }
}

/// The bytes of a Buffer or Uint8Array (borrowed for the call, copied when they are
/// shared memory) or of a string (UTF-8).
fn with_bytes<T>(js: &Js, data: Value, use_bytes: impl FnOnce(&[u8]) -> T) -> JsResult<T> {
    if let Some(bytes) = uint8_bytes(js, data)? {
        return Ok(use_bytes(&bytes));
    }
    if js.value_type(data)? == ValueType::String {
        return Ok(use_bytes(js.utf8(data)?.as_bytes()));
    }
    Err(JsError::Type(format!(
        "data must be a Buffer, a Uint8Array or a string, got {}",
        js.value_type(data)?.name()
    )))
}

fn located(error: StreamError, what: &str) -> JsError {
    JsError::Located {
        message: format!("{what}: {error}"),
        offset: Some(error.offset),
        line: Some(error.line),
        code: None,
    }
}

fn push(js: &Js, stream: &mut EventStream, data: Value) -> JsResult<()> {
    const WHAT: &str = "ChunkStream.push";
    let (pushed, len) = with_bytes(js, data, |bytes| (stream.push(bytes), bytes.len()))?;
    tell_v8(js, stream, len);
    pushed.map_err(|e| located(e, WHAT))
}

/// Tells V8 that `stream` holds about `len` more bytes (the chunks it folds are about as
/// large as the bytes they came from), and the finalizer tells it they are gone. V8 sees
/// only a small object otherwise, and lets thousands of finished streams, megabytes
/// each, wait for a garbage collection it has no reason to start: a server's memory
/// then climbs to what they hold at once, and the allocator keeps it.
fn tell_v8(js: &Js, stream: &EventStream, len: usize) {
    let key = stream as *const EventStream as usize;
    let told = LIVE.with(|live| {
        live.borrow_mut().get_mut(&key).map(|told| {
            *told = told.saturating_add(len as i64);
        })
    });
    if told.is_some() {
        let mut total = 0;
        // SAFETY: the current call's environment.
        unsafe { sys::napi_adjust_external_memory(js.env, len as i64, &mut total) };
    }
}

fn end(stream: &mut EventStream) -> JsResult<()> {
    stream.end().map_err(|e| located(e, "ChunkStream.end"))
}

fn reduce(js: &Js, data: Value, options: Value, what: &str) -> JsResult<EventStream> {
    let mut stream = EventStream::new(framing(js, options)?);
    with_bytes(js, data, |bytes| stream.push(bytes).and_then(|()| stream.end()))?
        .map_err(|e| located(e, what))?;
    Ok(stream)
}

// ─── The raw class ───────────────────────────────────────────────────────────

thread_local! {
    /// The streams this thread's constructor made that are not finalized yet. A method
    /// called on anything else throws instead of reading foreign memory. V8 already
    /// refuses receivers the class did not make (`napi_define_class` gives its methods a
    /// signature); this keeps that guarantee in our hands: `napi_unwrap` of an object
    /// another addon wrapped gives a pointer that is not in here. (A set lookup costs a
    /// fraction of `napi_check_object_type_tag`, a property lookup in V8, on every
    /// `push`.) An environment and its finalizers stay on one thread.
    ///
    /// Each maps to the bytes it was given, told to V8 as external memory (see `push`).
    static LIVE: RefCell<HashMap<usize, i64>> = RefCell::new(HashMap::new());
}

unsafe extern "C" fn finalize(env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // `try_with`: at a thread's very end the set may be gone before the last finalizers.
    let told = LIVE
        .try_with(|live| {
            live.try_borrow_mut()
                .ok()
                .and_then(|mut live| live.remove(&(data as usize)))
        })
        .ok()
        .flatten();
    if let Some(told) = told.filter(|&told| told > 0) {
        let mut total = 0;
        // SAFETY: the environment finalizing this object.
        unsafe { sys::napi_adjust_external_memory(env, -told, &mut total) };
    }
    // SAFETY: `data` is the box `construct` leaked for this object; finalizers run once.
    drop(unsafe { Box::from_raw(data as *mut EventStream) });
}

/// The stream behind `this`, if `construct` made it.
fn this_stream<'a>(js: &Js, this: Value, what: &str) -> JsResult<&'a mut EventStream> {
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: `this` belongs to the current call.
    let unwrapped = unsafe { sys::napi_unwrap(js.env, this, &mut data) } == sys::Status::napi_ok;
    if !unwrapped || !LIVE.with(|live| live.borrow().contains_key(&(data as usize))) {
        return Err(JsError::Type(format!(
            "{what} called on an object that is not a ChunkStream"
        )));
    }
    // SAFETY: a live `EventStream` made by `construct`, alive while `this` is; methods
    // run one at a time on this thread.
    Ok(unsafe { &mut *(data as *mut EventStream) })
}

/// Arguments, `this` and the state of a raw callback.
pub(super) unsafe fn call_info<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Option<([Value; N], Value, *mut c_void)> {
    let mut args = [ptr::null_mut(); N];
    let mut argc = N;
    let mut this = ptr::null_mut();
    let mut data = ptr::null_mut();
    let status =
        unsafe { sys::napi_get_cb_info(env, info, &mut argc, args.as_mut_ptr(), &mut this, &mut data) };
    (status == sys::Status::napi_ok).then_some((args, this, data))
}

/// A method of the raw class: `body` gets the stream behind `this` and the arguments.
unsafe fn method<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    what: &str,
    body: impl FnOnce(&Js, &mut EventStream, [Value; N]) -> JsResult<Value>,
) -> sys::napi_value {
    let Some((args, this, data)) = (unsafe { call_info::<N>(env, info) }) else {
        return ptr::null_mut();
    };
    unsafe {
        run(env, data, what, &[], |js| {
            body(js, this_stream(js, this, what)?, args)
        })
    }
    .unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn construct(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    const WHAT: &str = "ChunkStream";
    let Some(([options], this, data)) = (unsafe { call_info::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    let mut new_target = ptr::null_mut();
    unsafe { sys::napi_get_new_target(env, info, &mut new_target) };
    let construct = |js: &Js| {
        if new_target.is_null() {
            return Err(JsError::Type("a class constructor: call it with `new`".into()));
        }
        let stream = Box::into_raw(Box::new(EventStream::new(framing(js, options)?)));
        // SAFETY: `this` is the new object; the finalizer frees the box with it.
        let status = unsafe {
            sys::napi_wrap(
                env,
                this,
                stream.cast(),
                Some(finalize),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        if status != sys::Status::napi_ok {
            drop(unsafe { Box::from_raw(stream) });
            return Err(JsError::Internal(format!(
                "wrapping the stream failed with status {status}"
            )));
        }
        LIVE.with(|live| live.borrow_mut().insert(stream as usize, 0));
        Ok(this)
    };
    unsafe { run(env, data, WHAT, &[], construct) }.unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn raw_push(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        method(env, info, "ChunkStream.push", |js, stream, [data]| {
            push(js, stream, data)?;
            // A callback's null result is `undefined` to the caller.
            Ok(ptr::null_mut())
        })
    }
}

unsafe extern "C" fn raw_end(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        method(env, info, "ChunkStream.end", |js, stream, []| {
            end(stream)?;
            js.undefined()
        })
    }
}

unsafe extern "C" fn raw_chunks(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        method(env, info, "ChunkStream.chunks", |js, stream, []| {
            js.parse_json_owned(stream.to_json())
        })
    }
}

unsafe extern "C" fn raw_to_json_string(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    unsafe {
        method(env, info, "ChunkStream.toJsonString", |js, stream, []| {
            js.ascii_string_owned(stream.to_json())
        })
    }
}

unsafe extern "C" fn raw_event_count(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        method(env, info, "ChunkStream.eventCount", |js, stream, []| {
            js.create_number(stream.event_count() as f64)
        })
    }
}

/// Defines the raw `ChunkStream` class and puts it on `exports`, replacing the generated
/// one.
///
/// # Safety
/// `env` and `exports` must be the module's; `state` its state, alive as long as `env`.
pub unsafe fn install_class(env: sys::napi_env, exports: sys::napi_value, state: *mut State) -> JsResult<()> {
    let properties = [
        class_property(c"push", Some(raw_push), None, state),
        class_property(c"end", Some(raw_end), None, state),
        class_property(c"chunks", Some(raw_chunks), None, state),
        class_property(c"toJSON", Some(raw_chunks), None, state),
        class_property(c"toJsonString", Some(raw_to_json_string), None, state),
        class_property(c"eventCount", None, Some(raw_event_count), state),
    ];
    // SAFETY: as this function's own contract.
    unsafe { define_class(env, exports, c"ChunkStream", construct, state, &properties) }
}

/// A method (writable) or a getter of a raw class, with the module's state as its data.
pub fn class_property(
    name: &'static CStr,
    method: sys::napi_callback,
    getter: sys::napi_callback,
    state: *mut State,
) -> sys::napi_property_descriptor {
    sys::napi_property_descriptor {
        utf8name: name.as_ptr(),
        name: ptr::null_mut(),
        method,
        getter,
        setter: None,
        value: ptr::null_mut(),
        attributes: if method.is_some() {
            sys::PropertyAttributes::writable | sys::PropertyAttributes::configurable
        } else {
            sys::PropertyAttributes::configurable
        },
        data: state.cast(),
    }
}

/// Defines a raw class and puts it on `exports` under its name.
///
/// # Safety
/// `env` and `exports` must be the module's; `state` its state, alive as long as `env`;
/// the descriptors' callbacks must be live for the module's lifetime.
pub unsafe fn define_class(
    env: sys::napi_env,
    exports: sys::napi_value,
    name: &'static CStr,
    construct: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value,
    state: *mut State,
    properties: &[sys::napi_property_descriptor],
) -> JsResult<()> {
    let mut class = ptr::null_mut();
    // SAFETY: the descriptors point at static names and live callbacks.
    let status = unsafe {
        sys::napi_define_class(
            env,
            name.as_ptr(),
            name.to_bytes().len() as isize,
            Some(construct),
            state.cast(),
            properties.len(),
            properties.as_ptr(),
            &mut class,
        )
    };
    let status = match status {
        sys::Status::napi_ok => unsafe { sys::napi_set_named_property(env, exports, name.as_ptr(), class) },
        status => status,
    };
    match status {
        sys::Status::napi_ok => Ok(()),
        status => Err(JsError::Internal(format!(
            "installing {} failed with status {status}",
            name.to_string_lossy()
        ))),
    }
}

// ─── The generated declarations ───────────────────────────────────────────────

fn pending() -> napi::Error {
    napi::Error::new(Status::PendingException, "exception pending")
}

/// Runs shared glue from a generated wrapper; `None` from `with_state` means thrown.
pub(super) fn glue<'env>(
    env: &'env Env,
    what: &str,
    body: impl FnOnce(&Js) -> JsResult<Value>,
) -> Result<Unknown<'env>> {
    let value = unsafe { with_state(env.raw(), what, body) }.ok_or_else(pending)?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

/// Agent events as bytes (NDJSON lines or SSE frames), folded into one message's chunks
/// as they arrive. Frames may be split anywhere across `push` calls, inside a UTF-8
/// sequence too. A bad frame throws an `Error` with its `line` and byte `offset`; the
/// chunks stay as they were before it and the stream stays usable.
// `install_class` replaces this class with a raw one of the same behaviour.
#[napi]
pub struct ChunkStream {
    inner: EventStream,
}

#[napi]
impl ChunkStream {
    #[napi(constructor, ts_args_type = "options?: StreamOptions")]
    pub fn new(env: &Env, options: Unknown) -> Result<Self> {
        let mut stream = None;
        glue(env, "ChunkStream", |js| {
            stream = Some(EventStream::new(framing(js, options.raw())?));
            js.undefined()
        })?;
        Ok(ChunkStream {
            inner: stream.ok_or_else(pending)?,
        })
    }

    /// Folds every complete frame of `data` (with what earlier pushes left over).
    #[napi(ts_args_type = "data: Uint8Array | string")]
    pub fn push(&mut self, env: &Env, data: Unknown) -> Result<()> {
        glue(env, "ChunkStream.push", |js| {
            push(js, &mut self.inner, data.raw())?;
            js.undefined()
        })
        .map(|_| ())
    }

    /// Folds what is left; a frame cut short by the end of the stream is an error with
    /// its offset.
    #[napi]
    pub fn end(&mut self, env: &Env) -> Result<()> {
        glue(env, "ChunkStream.end", |js| {
            end(&mut self.inner)?;
            js.undefined()
        })
        .map(|_| ())
    }

    /// The chunks so far, as fresh objects.
    #[napi(ts_return_type = "Chunk[]")]
    pub fn chunks<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "ChunkStream.chunks", |js| {
            js.parse_json_owned(self.inner.to_json())
        })
    }

    /// The chunks, for `JSON.stringify(stream)`.
    #[napi(js_name = "toJSON", ts_return_type = "Chunk[]")]
    pub fn to_json<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        caught("ChunkStream.toJSON", || self.chunks(env))
    }

    /// The chunks as JSON text (ASCII: other characters as `\u` escapes).
    #[napi]
    pub fn to_json_string(&self) -> Result<String> {
        caught("ChunkStream.toJsonString", || Ok(self.inner.to_json()))
    }

    /// Events folded so far (lifecycle and unknown ones included).
    #[napi(getter)]
    pub fn event_count(&self) -> Result<f64> {
        caught("ChunkStream.eventCount", || Ok(self.inner.event_count() as f64))
    }
}

/// All events of `data` (NDJSON or SSE) folded into chunks, in one call.
#[napi(
    ts_args_type = "data: Uint8Array | string, options?: StreamOptions",
    ts_return_type = "Chunk[]"
)]
pub fn reduce_events<'env>(env: &'env Env, data: Unknown, options: Unknown) -> Result<Unknown<'env>> {
    glue(env, "reduceEvents", |js| {
        let stream = reduce(js, data.raw(), options.raw(), "reduceEvents")?;
        js.parse_json_owned(stream.to_json())
    })
}

/// All events of `data` folded into chunks, as JSON text (ASCII: other characters as
/// `\u` escapes).
#[napi(
    ts_args_type = "data: Uint8Array | string, options?: StreamOptions",
    ts_return_type = "string"
)]
pub fn reduce_events_to_json<'env>(env: &'env Env, data: Unknown, options: Unknown) -> Result<Unknown<'env>> {
    glue(env, "reduceEventsToJson", |js| {
        let stream = reduce(js, data.raw(), options.raw(), "reduceEventsToJson")?;
        js.ascii_string_owned(stream.to_json())
    })
}
