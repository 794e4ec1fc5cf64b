//! `loadHistory` / `loadHistorySync`: a whole history read into `HistoryMessage[]`.
//!
//! The async load reads and parses on a thread of its own. The main thread only turns
//! JSON slices into objects (`JSON.parse` of ASCII text), a few milliseconds at a time:
//! when its budget is spent it yields through `setImmediate`, and when it has drained
//! what the reader produced it sleeps until the reader wakes it (a thread-safe function
//! called only while the main thread waits, so at most one wake is ever queued). The
//! channel between them is bounded, so a slow consumer holds the reader back instead of
//! letting slices pile up in memory.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{c_void, CStr};
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::ptr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::decode::ValueType;
use crate::history::batch::{Slice, Slicer};
use crate::history::{self, HistoryError, HistoryFormat};
use crate::reading::format::{Input as SourceInput, ReadOptions};

use super::bytes::uint8_bytes;
use super::raw::call::{panic_message, state};
use super::raw::js::{check, Interned, Js, JsError, JsResult, State, Value};
use super::registry::history_options;
use super::stream::glue;

/// Bytes of one slice: about half a millisecond of `JSON.parse` here.
const SLICE_BYTES: usize = 64 * 1024;
/// Slices the reader may be ahead of the main thread.
const SLICES_AHEAD: usize = 16;
/// Main-thread time per turn of the event loop.
const BUDGET: Duration = Duration::from_millis(3);

fn format(js: &Js, value: Value) -> JsResult<HistoryFormat> {
    let mut buf = [0u8; 32];
    let tag = js.tag(value, &mut buf)?;
    if let Some(format) = tag
        .and_then(|t| std::str::from_utf8(t).ok())
        .and_then(HistoryFormat::from_name)
    {
        return Ok(format);
    }
    let names: Vec<String> = HistoryFormat::all().map(|f| format!("'{}'", f.name())).collect();
    let got = match tag {
        Some(tag) if !tag.is_empty() => format!("'{}'", String::from_utf8_lossy(tag)),
        Some(_) => "another string".to_string(),
        None => js.value_type(value)?.name().to_string(),
    };
    Err(JsError::Type(format!(
        "format must be one of {}, got {got}",
        names.join(", ")
    )))
}

/// Where the history is: a file, or bytes the caller passed.
enum Input<'a> {
    Path(PathBuf),
    Bytes(Cow<'a, [u8]>),
}

fn input<'a>(js: &'a Js, value: Value) -> JsResult<Input<'a>> {
    if let Some(bytes) = uint8_bytes(js, value)? {
        return Ok(Input::Bytes(bytes));
    }
    match js.value_type(value)? {
        // A browser (the WebAssembly build) has no file system.
        ValueType::String if cfg!(target_family = "wasm") => Err(JsError::Type(
            "source is a file path, and a file path cannot be read in the browser; pass the \
             file's bytes (a Uint8Array)"
                .into(),
        )),
        ValueType::String => Ok(Input::Path(PathBuf::from(js.utf8(value)?))),
        got => Err(JsError::Type(format!(
            "source must be a file path (a string), a Buffer or a Uint8Array, got {}",
            got.name()
        ))),
    }
}

/// A reader that fails once `cancelled` is set, so that every format's reading loop
/// stops within a block of it.
struct Cancellable<'a, R> {
    inner: R,
    cancelled: &'a AtomicBool,
}

impl<R: Read> Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("the load was cancelled"));
        }
        self.inner.read(buf)
    }
}

// Tree-shaped sessions (Pi) are read twice: their path first, then its messages.
impl<R: Seek> Seek for Cancellable<'_, R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

/// A file that cannot be read, as Node names such errors (`ENOENT`, …).
fn io_error(what: &str, path: &std::path::Path, e: &std::io::Error) -> JsError {
    use std::io::ErrorKind as K;
    // Windows refuses to open a directory as a file with "access denied"; Node's own
    // `fs.readFileSync` says EISDIR there, as on every other system.
    if e.kind() == K::PermissionDenied && path.is_dir() {
        return io_error(what, path, &std::io::Error::from(K::IsADirectory));
    }
    let code = match e.kind() {
        K::NotFound => "ENOENT",
        K::PermissionDenied => "EACCES",
        K::IsADirectory => "EISDIR",
        K::OutOfMemory => "ENOMEM",
        _ => "EIO",
    };
    JsError::Located {
        message: format!("{what}: cannot read {}: {e}", path.display()),
        offset: None,
        line: None,
        code: Some(code),
    }
}

fn history_error(what: &str, format: HistoryFormat, e: HistoryError) -> JsError {
    JsError::Located {
        message: format!("{what}: {} history, {}", format.name(), e.message),
        offset: e.offset,
        line: e.line,
        code: None,
    }
}

/// Reads `input` and hands every slice to `send`; `Err` for a file that cannot be read
/// or a history that is not valid. Stops within a block once `cancelled` is set.
fn produce(
    what: &str,
    input: &Input,
    format: HistoryFormat,
    options: &ReadOptions,
    limit: usize,
    cancelled: &AtomicBool,
    send: impl FnMut(Slice) -> bool,
) -> std::result::Result<(), JsError> {
    let mut slicer = Slicer::new(limit, send);
    let mut each = |message: history::Message| {
        slicer.message(&message);
        !slicer.stopped()
    };
    match input {
        Input::Path(path) => {
            // A store of sessions (a database, a folder) is read a session at a time.
            if let Some(read) = history::read_store(path, format, options, &mut each) {
                read
            } else {
                // Read a block at a time; the file is never whole in memory.
                let file = std::fs::File::open(path).map_err(|e| io_error(what, path, &e))?;
                if file.metadata().is_ok_and(|m| m.is_dir()) {
                    let e = std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory");
                    return Err(io_error(what, path, &e));
                }
                let mut file = Cancellable {
                    inner: file,
                    cancelled,
                };
                if let Some(message) = history::path_refused(&mut file, format, options) {
                    return Err(history_error(
                        what,
                        format,
                        HistoryError {
                            line: None,
                            offset: None,
                            message,
                        },
                    ));
                }
                history::read_with(SourceInput::Reader(&mut file), format, options, &mut each)
            }
        }
        Input::Bytes(bytes) => {
            let mut bytes = Cancellable {
                inner: std::io::Cursor::new(&bytes[..]),
                cancelled,
            };
            history::read_with(SourceInput::Reader(&mut bytes), format, options, &mut each)
        }
    }
    .map_err(|e| history_error(what, format, e))?;
    slicer.finish();
    Ok(())
}

/// Reads a whole history, synchronously: a file path or the file's bytes, in `format`.
/// Throws an `Error` with `line` (and `offset` where known) for an invalid history, and
/// with `code` (`ENOENT`, …) for a file that cannot be read; a `TypeError` for bad
/// arguments.
#[napi(
    ts_args_type = "source: string | Uint8Array, format: HistoryFormatName, options?: HistoryOptions",
    ts_return_type = "HistoryMessage[]"
)]
pub fn load_history_sync<'env>(
    env: &'env Env,
    source: Unknown,
    format_name: Unknown,
    options: Unknown,
) -> Result<Unknown<'env>> {
    const WHAT: &str = "loadHistorySync";
    glue(env, WHAT, |js| {
        let format = format(js, format_name.raw())?;
        let options = history_options(js, options.raw())?;
        let input = input(js, source.raw())?;
        read_whole(js, WHAT, &input, format, &options)
    })
}

/// The whole history as one array, read on this thread.
fn read_whole(
    js: &Js,
    what: &str,
    input: &Input,
    format: HistoryFormat,
    options: &ReadOptions,
) -> JsResult<Value> {
    let mut json = None;
    produce(
        what,
        input,
        format,
        options,
        usize::MAX,
        &AtomicBool::new(false),
        |slice| {
            json = Some(slice.json);
            true
        },
    )?;
    match json {
        // One slice at depth 0: the whole array.
        // The slicer writes ASCII.
        Some(json) => js.parse_json_owned(json),
        None => js.array(&[]),
    }
}

/// Reads a whole history on a thread of its own: a file path or the file's bytes, in
/// `format`. The messages are built on the main thread a few milliseconds at a time, so
/// the event loop keeps running. Rejects with an `Error` with `line` (and `offset` where
/// known) for an invalid history, with `code` (`ENOENT`, …) for a file that cannot be
/// read; throws a `TypeError` for bad arguments. The bytes of a Buffer source are copied
/// when the load starts: the caller may change, transfer or lose the Buffer at once.
/// With `options.signal`, aborting rejects with the signal's reason (as `fetch` does) and
/// stops the reading thread.
#[napi(
    ts_args_type = "source: string | Uint8Array, format: HistoryFormatName, options?: LoadHistoryOptions",
    ts_return_type = "Promise<HistoryMessage[]>"
)]
pub fn load_history<'env>(
    env: &'env Env,
    source: Unknown,
    format_name: Unknown,
    options: Unknown,
) -> Result<Unknown<'env>> {
    glue(env, "loadHistory", |js| unsafe {
        start(js, source.raw(), format_name.raw(), options.raw())
    })
}

/// A session of a store (`storeSessions`).
// Declared for the typings: the result is built as JSON text.
#[allow(dead_code)]
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct StoredSession {
    pub id: String,
    pub title: String,
    /// The session that started it (a sub-agent's run), if any.
    pub parent_id: Option<String>,
    /// The folder the tool worked in.
    pub directory: String,
    /// Milliseconds since 1970.
    pub created: f64,
    pub updated: f64,
}

/// The sessions of a store (`storeSessions`), and the format reading them.
#[allow(dead_code)]
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct StoreSessions {
    #[napi(ts_type = "HistoryFormatName")]
    pub format: String,
    /// The oldest first.
    pub sessions: Vec<StoredSession>,
}

/// JSON text with every character past ASCII escaped (`\uXXXX`), as `parse_json_owned` takes it.
fn ascii_json(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c as u8);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
            }
        }
    }
    out
}

/// The sessions of the store at `path` (a tool's database, or its folder of session
/// files), as `loadHistory(path, format, { session })` reads each, the oldest first.
/// Throws an `Error` when no format's store is there or it cannot be read, a `TypeError`
/// for a path that is not a string.
#[napi(ts_args_type = "path: string", ts_return_type = "StoreSessions")]
pub fn store_sessions<'env>(env: &'env Env, path: Unknown) -> Result<Unknown<'env>> {
    const WHAT: &str = "storeSessions";
    glue(env, WHAT, |js| {
        let path = match js.value_type(path.raw())? {
            ValueType::String if cfg!(target_family = "wasm") => {
                return Err(JsError::Type(
                    "path is a file path, and a file path cannot be read in the browser".into(),
                ))
            }
            ValueType::String => PathBuf::from(js.utf8(path.raw())?),
            got => {
                return Err(JsError::Type(format!(
                    "path must be a string, got {}",
                    got.name()
                )))
            }
        };
        let (format, sessions) = history::store_sessions(&path).map_err(|e| JsError::Located {
            message: format!("{WHAT}: {}", e.message),
            offset: None,
            line: None,
            code: None,
        })?;
        let sessions: Vec<serde_json::Value> = sessions
            .into_iter()
            .map(|s| {
                let mut session = serde_json::json!({
                    "id": s.id,
                    "title": s.title,
                    "directory": s.directory,
                    "created": s.time_created,
                    "updated": s.time_updated,
                });
                if let Some(parent) = s.parent_id {
                    session["parentId"] = parent.into();
                }
                session
            })
            .collect();
        let json = serde_json::json!({ "format": format.name, "sessions": sessions });
        js.parse_json_owned(ascii_json(&json.to_string()))
    })
}

/// Options of `loadHistory`.
// Declared for the typings: the options are read field by field (`signal_option`), so
// that a bad value is a `TypeError` naming it.
#[allow(dead_code)]
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct LoadHistoryOptions {
    /// Aborting it rejects the load with `signal.reason` (an `AbortError` `DOMException`
    /// unless another reason was given) and stops reading.
    #[napi(ts_type = "AbortSignal")]
    pub signal: Option<()>,
    /// Refuse lines the reader does not know instead of skipping them.
    pub strict: Option<bool>,
    /// A Pi session's leaf to read (an entry id); default the last entry.
    pub leaf: Option<String>,
    /// Default `'resumed'`.
    pub view: Option<super::registry::HistoryView>,
    /// For a store of many sessions given by its path (a database, a folder): the
    /// session read (its id); default the latest.
    pub session: Option<String>,
}

/// What the reading thread tells the main thread.
enum Note {
    Slice(Slice),
    Failed(JsError),
    Done,
}

// SAFETY: the errors the reading thread sends hold no JavaScript handle (`Located` and
// `Internal` only).
unsafe impl Send for Note {}

struct Tsfn(sys::napi_threadsafe_function);
// SAFETY: thread-safe functions are made to be called from any thread; this one is only
// used under the lock of `Channel`, and only while Node has not finalized it.
unsafe impl Send for Tsfn {}

/// What both threads share, under one lock.
struct Channel {
    notes: VecDeque<Note>,
    /// The main thread has drained `notes` and sleeps until woken.
    waiting: bool,
    /// The wake-up call: `Some` from creation until the reading thread releases it or Node
    /// finalizes it (its finalizer takes it under this lock), so the reading thread never
    /// calls or releases a function that is gone, whatever the timing.
    wake: Option<Tsfn>,
}

struct Shared {
    channel: Mutex<Channel>,
    /// Signalled when a note is taken or the load is cancelled.
    room: Condvar,
    /// Nobody wants the result any more: settled, aborted, or the environment is going
    /// away. The reading loop stops at its next block, its next slice, or at once if it
    /// waits for room.
    cancelled: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Channel> {
        self.channel
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn cancel(&self) {
        let mut channel = self.lock();
        self.cancelled.store(true, Ordering::SeqCst);
        channel.notes.clear();
        self.room.notify_all();
    }

    /// From the reading thread: queues `note` (waiting while [`SLICES_AHEAD`] are queued)
    /// and wakes the main thread if it sleeps; `false` once cancelled.
    fn send(&self, note: Note) -> bool {
        let mut channel = self.lock();
        while channel.notes.len() >= SLICES_AHEAD && !self.cancelled.load(Ordering::SeqCst) {
            channel = self
                .room
                .wait(channel)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        if self.cancelled.load(Ordering::SeqCst) {
            return false;
        }
        channel.notes.push_back(note);
        if std::mem::take(&mut channel.waiting) {
            if let Some(wake) = &channel.wake {
                // SAFETY: `wake` is live: Node has not finalized it (its finalizer takes it
                // under this lock first) and this thread has not released it.
                let status = unsafe {
                    sys::napi_call_threadsafe_function(
                        wake.0,
                        ptr::null_mut(),
                        sys::ThreadsafeFunctionCallMode::nonblocking,
                    )
                };
                if status != sys::Status::napi_ok {
                    // Closing with its environment: Node has let go of this thread's use of
                    // it (never touch it again), and nobody will take the notes.
                    channel.wake = None;
                    self.cancelled.store(true, Ordering::SeqCst);
                    return false;
                }
            }
        }
        true
    }

    /// From the reading thread, last: lets go of the wake-up call.
    fn release(&self) {
        if let Some(wake) = self.lock().wake.take() {
            // SAFETY: as in `send`; this is the thread's one release.
            unsafe {
                sys::napi_release_threadsafe_function(wake.0, sys::ThreadsafeFunctionReleaseMode::release)
            };
        }
    }
}

/// The main thread's side of one load.
struct Load {
    deferred: Option<sys::napi_deferred>,
    /// The arrays slices go into: the result, the open message's chunks, the open tool
    /// batch's calls.
    stack: Vec<sys::napi_ref>,
    shared: Arc<Shared>,
    /// The continuation `setImmediate` runs.
    resume: sys::napi_ref,
    /// A `setImmediate` is pending.
    scheduled: bool,
    /// `options.signal` and the abort listener added to it (null without a signal).
    signal: sys::napi_ref,
    listener: sys::napi_ref,
}

type Local = RefCell<Load>;

/// What the wake-up call holds: its context and its finalizer's data.
struct Held {
    load: Rc<Local>,
    shared: Arc<Shared>,
}

unsafe fn reference(env: sys::napi_env, value: Value) -> JsResult<sys::napi_ref> {
    let mut reference = ptr::null_mut();
    check(
        unsafe { sys::napi_create_reference(env, value, 1, &mut reference) },
        env,
        "referencing a value",
    )?;
    Ok(reference)
}

unsafe fn referenced(env: sys::napi_env, reference: sys::napi_ref) -> JsResult<Value> {
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_get_reference_value(env, reference, &mut value) },
        env,
        "reading a reference",
    )?;
    Ok(value)
}

unsafe fn named(env: sys::napi_env, object: Value, key: &CStr) -> JsResult<Value> {
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_get_named_property(env, object, key.as_ptr(), &mut value) },
        env,
        "reading a property",
    )?;
    Ok(value)
}

unsafe fn global(env: sys::napi_env, key: &CStr) -> JsResult<Value> {
    let mut object = ptr::null_mut();
    check(
        unsafe { sys::napi_get_global(env, &mut object) },
        env,
        "reading the global",
    )?;
    unsafe { named(env, object, key) }
}

unsafe fn call(env: sys::napi_env, this: Value, function: Value, args: &[Value]) -> JsResult<Value> {
    let mut result = ptr::null_mut();
    check(
        unsafe { sys::napi_call_function(env, this, function, args.len(), args.as_ptr(), &mut result) },
        env,
        "calling a function",
    )?;
    Ok(result)
}

unsafe fn function(
    env: sys::napi_env,
    name: &str,
    callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> Value,
    load: &Rc<Local>,
) -> JsResult<Value> {
    let mut function = ptr::null_mut();
    let held = Rc::into_raw(load.clone()) as *mut c_void;
    let created = check(
        unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr().cast(),
                name.len() as isize,
                Some(callback),
                held,
                &mut function,
            )
        },
        env,
        "creating a function",
    )
    .and_then(|()| {
        check(
            unsafe {
                sys::napi_add_finalizer(
                    env,
                    function,
                    held,
                    Some(release_load),
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            },
            env,
            "attaching a finalizer",
        )
    });
    if let Err(error) = created {
        // SAFETY: nothing else took this count.
        drop(unsafe { Rc::from_raw(held as *const Local) });
        return Err(error);
    }
    Ok(function)
}

/// `options.signal` when there is one: `undefined` options or signal mean none.
fn signal_option(js: &Js, options: Value) -> JsResult<Option<Value>> {
    let env = js.env;
    match js.value_type(options)? {
        ValueType::Undefined => return Ok(None),
        ValueType::Object => {}
        got => {
            return Err(JsError::Type(format!(
                "options must be an object, got {}",
                got.name()
            )))
        }
    }
    let signal = unsafe { named(env, options, c"signal")? };
    let got = js.value_type(signal)?;
    if got == ValueType::Undefined {
        return Ok(None);
    }
    let mut is_signal = false;
    if got == ValueType::Object {
        let class = unsafe { global(env, c"AbortSignal")? };
        if js.value_type(class)? == ValueType::Function {
            check(
                unsafe { sys::napi_instanceof(env, signal, class, &mut is_signal) },
                env,
                "checking options.signal",
            )?;
        }
    }
    if !is_signal {
        let got = if got == ValueType::Object {
            "another object"
        } else {
            got.name()
        };
        return Err(JsError::Type(format!(
            "options.signal must be an AbortSignal, got {got}"
        )));
    }
    Ok(Some(signal))
}

/// Why `signal` aborted: its `reason`, or a new `AbortError` when it has none.
unsafe fn abort_reason(js: &Js, signal: Value) -> JsResult<Value> {
    let env = js.env;
    let reason = unsafe { named(env, signal, c"reason")? };
    if js.value_type(reason)? != ValueType::Undefined {
        return Ok(reason);
    }
    let class = unsafe { global(env, c"DOMException")? };
    let args = [
        js.ascii_string("This operation was aborted")?,
        js.ascii_string("AbortError")?,
    ];
    let mut error = ptr::null_mut();
    check(
        unsafe { sys::napi_new_instance(env, class, args.len(), args.as_ptr(), &mut error) },
        env,
        "creating an AbortError",
    )?;
    Ok(error)
}

/// WebAssembly in a browser has no threads: the history is read at once, on this thread,
/// and the promise settled with the result (bad arguments still throw at the call).
#[cfg(target_family = "wasm")]
unsafe fn start(js: &Js, source: Value, format_name: Value, options: Value) -> JsResult<Value> {
    const WHAT: &str = "loadHistory";
    let env = js.env;
    let format = format(js, format_name)?;
    let read_options = history_options(js, options)?;
    let input = input(js, source)?;
    let signal = signal_option(js, options)?;
    let mut promise = ptr::null_mut();
    let mut deferred = ptr::null_mut();
    check(
        unsafe { sys::napi_create_promise(env, &mut deferred, &mut promise) },
        env,
        "creating a promise",
    )?;
    let aborted = match signal {
        Some(signal) => js.truthy(unsafe { named(env, signal, c"aborted")? })?,
        None => false,
    };
    let status = match signal {
        Some(signal) if aborted => {
            let reason = unsafe { abort_reason(js, signal)? };
            unsafe { sys::napi_reject_deferred(env, deferred, reason) }
        }
        _ => match read_whole(js, WHAT, &input, format, &read_options) {
            Ok(messages) => unsafe { sys::napi_resolve_deferred(env, deferred, messages) },
            Err(error) => {
                let error = js.error_value(error, WHAT)?;
                unsafe { sys::napi_reject_deferred(env, deferred, error) }
            }
        },
    };
    check(status, env, "settling the promise")?;
    Ok(promise)
}

#[cfg(not(target_family = "wasm"))]
unsafe fn start(js: &Js, source: Value, format_name: Value, options: Value) -> JsResult<Value> {
    const WHAT: &str = "loadHistory";
    let env = js.env;
    let format = format(js, format_name)?;
    // A recorded stream's messages are handed on as they settle, so that they are built
    // here while the thread still reads.
    let read_options = ReadOptions {
        settle: true,
        ..history_options(js, options)?
    };
    let input = match input(js, source)? {
        // Copied: the reading thread must not depend on memory the caller can detach,
        // transfer or lose with its environment.
        Input::Bytes(bytes) => Input::Bytes(Cow::Owned(bytes.into_owned())),
        Input::Path(path) => Input::Path(path),
    };
    let signal = signal_option(js, options)?;
    let mut promise = ptr::null_mut();
    let mut deferred = ptr::null_mut();
    check(
        unsafe { sys::napi_create_promise(env, &mut deferred, &mut promise) },
        env,
        "creating a promise",
    )?;
    if let Some(signal) = signal {
        if js.truthy(unsafe { named(env, signal, c"aborted")? })? {
            let reason = unsafe { abort_reason(js, signal)? };
            check(
                unsafe { sys::napi_reject_deferred(env, deferred, reason) },
                env,
                "rejecting a promise",
            )?;
            return Ok(promise);
        }
    }
    let root = js.array(&[])?;
    let shared = Arc::new(Shared {
        channel: Mutex::new(Channel {
            notes: VecDeque::new(),
            waiting: true,
            wake: None,
        }),
        room: Condvar::new(),
        cancelled: AtomicBool::new(false),
    });
    let load = Rc::new(RefCell::new(Load {
        deferred: Some(deferred),
        stack: vec![unsafe { reference(env, root)? }],
        shared: shared.clone(),
        resume: ptr::null_mut(),
        scheduled: false,
        signal: ptr::null_mut(),
        listener: ptr::null_mut(),
    }));
    // Whatever fails from here on settles the promise, so that the references are let go.
    let prepared = (|| -> JsResult<()> {
        let resume = unsafe { function(env, WHAT, resume_callback, &load)? };
        load.borrow_mut().resume = unsafe { reference(env, resume)? };
        if let Some(signal) = signal {
            let listener = unsafe { function(env, WHAT, abort_callback, &load)? };
            let add = unsafe { named(env, signal, c"addEventListener")? };
            unsafe { call(env, signal, add, &[js.ascii_string("abort")?, listener])? };
            let mut l = load.borrow_mut();
            l.signal = unsafe { reference(env, signal)? };
            l.listener = unsafe { reference(env, listener)? };
        }
        // The wake-up call from the reading thread; it holds the load until finalized.
        let mut wake = ptr::null_mut();
        let name = js.ascii_string("agent-chunks loadHistory")?;
        let held = Box::into_raw(Box::new(Held {
            load: load.clone(),
            shared: shared.clone(),
        })) as *mut c_void;
        let created = unsafe {
            sys::napi_create_threadsafe_function(
                env,
                ptr::null_mut(),
                ptr::null_mut(),
                name,
                0,
                1,
                held,
                Some(finalize_wake),
                held,
                Some(wake_callback),
                &mut wake,
            )
        };
        if let Err(error) = check(created, env, "creating a thread-safe function") {
            // SAFETY: Node took no ownership of `held`.
            drop(unsafe { Box::from_raw(held as *mut Held) });
            return Err(error);
        }
        shared.lock().wake = Some(Tsfn(wake));
        let reader = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("agent-chunks history".into())
            .spawn(move || read_on_thread(input, format, read_options, &reader));
        if let Err(e) = spawned {
            // The thread never ran: let go of the wake-up call in its place.
            shared.release();
            return Err(JsError::Internal(format!("starting a thread: {e}")));
        }
        Ok(())
    })();
    if let Err(error) = prepared {
        unsafe { settle(js, &mut load.borrow_mut(), Err(error)) };
    }
    Ok(promise)
}

/// The reading thread: slices into the channel, then lets go of the wake-up call. It
/// touches nothing of the environment but the wake-up call (see [`Channel::wake`]).
fn read_on_thread(input: Input<'static>, format: HistoryFormat, options: ReadOptions, shared: &Shared) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        produce(
            "loadHistory",
            &input,
            format,
            &options,
            SLICE_BYTES,
            &shared.cancelled,
            |slice| shared.send(Note::Slice(slice)),
        )
    }));
    drop(input);
    if !shared.cancelled.load(Ordering::SeqCst) {
        shared.send(match outcome {
            Ok(Ok(())) => Note::Done,
            Ok(Err(error)) => Note::Failed(error),
            Err(panic) => Note::Failed(JsError::Internal(panic_message(&*panic))),
        });
    }
    shared.release();
}

unsafe extern "C" fn release_load(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is one of the `Rc`s `function` leaked for this callback.
    drop(unsafe { Rc::from_raw(data as *const Local) });
}

/// Node is done with the wake-up call: after the reading thread released it (its notes
/// are all queued; the main thread takes them on), or because the environment is torn
/// down while the thread still holds it. From here on the thread must not touch it, and in
/// the second case nobody wants its result: it stops.
unsafe extern "C" fn finalize_wake(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the `Held` box `start` leaked for this function.
    let held = unsafe { Box::from_raw(data as *mut Held) };
    let still_held = held.shared.lock().wake.take().is_some();
    if still_held {
        held.shared.cancel();
    }
}

unsafe extern "C" fn wake_callback(
    env: sys::napi_env,
    _js_callback: Value,
    context: *mut c_void,
    _data: *mut c_void,
) {
    if env.is_null() {
        // Called while the queue is emptied at teardown: the context may be gone.
        return;
    }
    // SAFETY: the context is the `Held` the function's finalizer has not freed yet.
    let held = unsafe { &*(context as *const Held) };
    unsafe { guarded(env, &held.load, pump) };
}

/// The data pointer of the current callback: a load its function's finalizer has not
/// released yet.
unsafe fn callback_load<'a>(env: sys::napi_env, info: sys::napi_callback_info) -> Option<&'a Local> {
    let mut data = ptr::null_mut();
    let mut argc = 0;
    // SAFETY: reads the data pointer of the current callback.
    let read =
        unsafe { sys::napi_get_cb_info(env, info, &mut argc, ptr::null_mut(), ptr::null_mut(), &mut data) };
    (read == sys::Status::napi_ok && !data.is_null()).then(|| unsafe { &*(data as *const Local) })
}

unsafe extern "C" fn resume_callback(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    if let Some(load) = unsafe { callback_load(env, info) } {
        if let Ok(mut l) = load.try_borrow_mut() {
            l.scheduled = false;
        }
        unsafe { guarded(env, load, pump) };
    }
    ptr::null_mut()
}

/// The signal's `abort` listener: rejects with the signal's reason.
unsafe extern "C" fn abort_callback(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    if let Some(load) = unsafe { callback_load(env, info) } {
        unsafe { guarded(env, load, abort) };
    }
    ptr::null_mut()
}

unsafe fn abort(env: sys::napi_env, load: &Local) {
    let (Some(state), Ok(mut l)) = (unsafe { state(env) }, load.try_borrow_mut()) else {
        return;
    };
    if l.deferred.is_none() || l.signal.is_null() {
        return;
    }
    let js = unsafe { Js::new(env, state) };
    let reason = unsafe { referenced(env, l.signal) }
        .and_then(|signal| unsafe { abort_reason(&js, signal) })
        .map(JsError::Throw);
    unsafe { settle(&js, &mut l, Err(reason.unwrap_or_else(|e| e))) };
}

/// Runs `body` on the load with a panic turned into a rejected load: nothing unwinds into
/// Node.
unsafe fn guarded(env: sys::napi_env, load: &Local, body: unsafe fn(sys::napi_env, &Local)) {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { body(env, load) }));
    if let Err(panic) = caught {
        let message = panic_message(&*panic);
        if let (Some(state), Ok(mut l)) = (unsafe { state(env) }, load.try_borrow_mut()) {
            let js = unsafe { Js::new(env, state) };
            unsafe { settle(&js, &mut l, Err(JsError::Internal(message))) };
        }
    }
}

/// Turns what the reading thread has produced into objects, for up to [`BUDGET`].
unsafe fn pump(env: sys::napi_env, load: &Local) {
    let Some(state) = (unsafe { state(env) }) else {
        return;
    };
    let js = unsafe { Js::new(env, state) };
    let Ok(mut l) = load.try_borrow_mut() else {
        return;
    };
    let started = Instant::now();
    loop {
        if l.deferred.is_none() {
            return;
        }
        let note = {
            let mut channel = l.shared.lock();
            match channel.notes.pop_front() {
                Some(note) => {
                    l.shared.room.notify_one();
                    note
                }
                None => {
                    // Woken by the next note (checked under the same lock: none is missed).
                    channel.waiting = true;
                    return;
                }
            }
        };
        let settled = match note {
            Note::Slice(slice) => match unsafe { apply(env, state, &mut l, slice) } {
                Ok(()) => None,
                Err(error) => Some(Err(error)),
            },
            Note::Done => Some(Ok(())),
            Note::Failed(error) => Some(Err(error)),
        };
        if let Some(outcome) = settled {
            unsafe { settle(&js, &mut l, outcome) };
            return;
        }
        if started.elapsed() >= BUDGET {
            if !l.scheduled {
                let scheduled =
                    unsafe { referenced(env, l.resume) }.and_then(|resume| js.set_immediate(resume));
                match scheduled {
                    Ok(()) => l.scheduled = true,
                    Err(error) => unsafe { settle(&js, &mut l, Err(error)) },
                }
            }
            return;
        }
    }
}

/// Appends one slice's items to the array at its depth, in a handle scope of its own
/// (with a `Js` of its own: a `Js` caches handles, which must not outlive their scope).
unsafe fn apply(env: sys::napi_env, state: &State, load: &mut Load, slice: Slice) -> JsResult<()> {
    let mut scope = ptr::null_mut();
    check(
        unsafe { sys::napi_open_handle_scope(env, &mut scope) },
        env,
        "opening a handle scope",
    )?;
    let js = unsafe { Js::new(env, state) };
    let applied = (|| -> JsResult<()> {
        // The slicer writes ASCII.
        let items = js.parse_json(&slice.json)?;
        let depth = slice.depth as usize;
        if load.stack.len() <= depth {
            return Err(JsError::Internal(format!(
                "a slice for depth {depth} with no array open there"
            )));
        }
        for reference in load.stack.drain(depth + 1..) {
            unsafe { sys::napi_delete_reference(env, reference) };
        }
        let target = unsafe { referenced(env, load.stack[depth])? };
        if let Some(index) = slice.replaces {
            // A message handed on before, as it is now.
            return js.set_element(target, index, js.element(items, 0)?);
        }
        let count = js.array_len(items)?.unwrap_or(0);
        let base = js.array_len(target)?.unwrap_or(0);
        for i in 0..count {
            js.set_element(target, base + i, js.element(items, i)?)?;
        }
        if slice.open && count > 0 {
            let last = js.element(items, count - 1)?;
            let inner = js.get(
                last,
                if depth == 0 {
                    Interned::Chunks
                } else {
                    Interned::Calls
                },
            )?;
            load.stack.push(unsafe { reference(env, inner)? });
        }
        Ok(())
    })();
    unsafe { sys::napi_close_handle_scope(env, scope) };
    applied
}

/// Resolves or rejects the promise and lets go of everything the load held.
unsafe fn settle(js: &Js, load: &mut Load, outcome: JsResult<()>) {
    let env = js.env;
    let Some(deferred) = load.deferred.take() else {
        return;
    };
    // The reading thread stops at its next block or slice.
    load.shared.cancel();
    let settled = match outcome {
        Ok(()) => unsafe { referenced(env, load.stack[0]) }
            .map(|root| unsafe { sys::napi_resolve_deferred(env, deferred, root) }),
        Err(error) => js
            .error_value(error, "loadHistory")
            .map(|error| unsafe { sys::napi_reject_deferred(env, deferred, error) }),
    };
    if settled.is_err() {
        if let Ok(error) = js.error_value(JsError::Internal("settling the promise".into()), "loadHistory") {
            unsafe { sys::napi_reject_deferred(env, deferred, error) };
        }
    }
    // The wake-up call no longer keeps the event loop alive; the reading thread releases it.
    if let Some(wake) = &load.shared.lock().wake {
        // SAFETY: on the main thread, before its finalizer (which takes it first).
        unsafe { sys::napi_unref_threadsafe_function(env, wake.0) };
    }
    if !load.signal.is_null() && !load.listener.is_null() {
        // A long-lived signal must not keep the listener (and the load) alive.
        let removed = unsafe { referenced(env, load.signal) }.and_then(|signal| {
            let listener = unsafe { referenced(env, load.listener)? };
            let remove = unsafe { named(env, signal, c"removeEventListener")? };
            unsafe { call(env, signal, remove, &[js.ascii_string("abort")?, listener]) }
        });
        if removed.is_err() {
            let mut ignored = ptr::null_mut();
            unsafe { sys::napi_get_and_clear_last_exception(env, &mut ignored) };
        }
    }
    for reference in load
        .stack
        .drain(..)
        .chain([load.resume, load.signal, load.listener])
    {
        if !reference.is_null() {
            unsafe { sys::napi_delete_reference(env, reference) };
        }
    }
}
