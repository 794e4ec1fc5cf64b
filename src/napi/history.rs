//! `loadHistory` / `loadHistorySync`: a whole history read into `ChatMessage[]`.
//!
//! The async load reads and parses on a thread of its own. The main thread only turns
//! JSON slices into objects (`JSON.parse` of ASCII text), a few milliseconds at a time:
//! when its budget is spent it yields through `setImmediate`, and when it has drained
//! what the reader produced it sleeps until the reader wakes it (a thread-safe function
//! called only while the main thread waits, so at most one wake is ever queued). The
//! channel between them is bounded, so a slow consumer holds the reader back instead of
//! letting slices pile up in memory.

use std::cell::RefCell;
use std::ffi::c_void;
use std::path::PathBuf;
use std::ptr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::decode::ValueType;
use crate::formats::registry::{Input as SourceInput, ReadOptions};
use crate::history::batch::{Slice, Slicer};
use crate::history::{self, HistoryError, HistoryFormat};

use super::entry::{panic_message, state};
use super::js::{check, Interned, Js, JsError, JsResult, State, Value};
use super::registry::history_options;
use super::stream::glue;

/// A history format `loadHistory` reads.
#[napi(string_enum = "lowercase")]
pub enum HistoryFormatName {
    /// Agent events, NDJSON or SSE: one assistant message per turn (`turn-start`).
    Events,
    /// ACP `session/update` notifications, one per line.
    Acp,
    /// ChatViewer `ChatMessageData`, one per line or a JSON array.
    Chatviewer,
    /// A Pi / OpenClaw session file.
    Pi,
    /// Solar Network thoughts, a JSON array or one per line.
    Sn,
    /// An AI SDK UI message stream: one assistant message per `start` chunk.
    #[napi(value = "ai-sdk")]
    AiSdk,
}

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

/// Where the history is: a file, or bytes the caller holds.
enum Input {
    Path(PathBuf),
    /// A Buffer's memory, kept alive by a reference for as long as it is read.
    Bytes {
        data: *const u8,
        len: usize,
    },
}

// SAFETY: the bytes are only read, and their Buffer is referenced (so neither freed nor
// moved) until the reading thread is done. As with `fs.write`, the caller must not
// change a Buffer while it is being read.
unsafe impl Send for Input {}

fn input(js: &Js, value: Value) -> JsResult<Input> {
    if let Some(bytes) = js.uint8_array(value)? {
        return Ok(Input::Bytes {
            data: bytes.as_ptr(),
            len: bytes.len(),
        });
    }
    match js.value_type(value)? {
        ValueType::String => Ok(Input::Path(PathBuf::from(js.utf8(value)?))),
        got => Err(JsError::Type(format!(
            "source must be a file path (a string), a Buffer or a Uint8Array, got {}",
            got.name()
        ))),
    }
}

/// A file that cannot be read, as Node names such errors (`ENOENT`, …).
fn io_error(what: &str, path: &std::path::Path, e: &std::io::Error) -> JsError {
    use std::io::ErrorKind as K;
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
/// or a history that is not valid.
fn produce(
    what: &str,
    input: &Input,
    format: HistoryFormat,
    options: &ReadOptions,
    limit: usize,
    send: impl FnMut(Slice) -> bool,
) -> std::result::Result<(), JsError> {
    let mut slicer = Slicer::new(limit, send);
    let mut each = |message: history::Message| {
        slicer.message(&message);
        !slicer.stopped()
    };
    match input {
        Input::Path(path) => {
            // Line formats are read a block at a time; the file is never whole in memory.
            let mut file = std::fs::File::open(path).map_err(|e| io_error(what, path, &e))?;
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                let e = std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory");
                return Err(io_error(what, path, &e));
            }
            history::read_with(SourceInput::Reader(&mut file), format, options, &mut each)
        }
        // SAFETY: see `Input`.
        Input::Bytes { data, len } if *len > 0 => {
            let bytes = unsafe { std::slice::from_raw_parts(*data, *len) };
            history::read_with(SourceInput::Bytes(bytes), format, options, &mut each)
        }
        Input::Bytes { .. } => history::read_with(SourceInput::Bytes(&[]), format, options, &mut each),
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
    ts_return_type = "ChatMessage[]"
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
        let mut json = None;
        produce(WHAT, &input, format, &options, usize::MAX, |slice| {
            json = Some(slice.json);
            true
        })?;
        match json {
            // One slice at depth 0: the whole array.
            // The slicer writes ASCII.
            Some(json) => js.parse_json_owned(json),
            None => js.array(&[]),
        }
    })
}

/// Reads a whole history on a thread of its own: a file path or the file's bytes, in
/// `format`. The messages are built on the main thread a few milliseconds at a time, so
/// the event loop keeps running. Rejects with an `Error` with `line` (and `offset` where
/// known) for an invalid history, with `code` (`ENOENT`, …) for a file that cannot be
/// read; throws a `TypeError` for bad arguments. A Buffer must not be changed until the
/// promise settles.
#[napi(
    ts_args_type = "source: string | Uint8Array, format: HistoryFormatName, options?: HistoryOptions",
    ts_return_type = "Promise<ChatMessage[]>"
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

/// What the reading thread tells the main thread.
enum Note {
    Slice(Slice),
    Failed(JsError),
    Done,
}

// SAFETY: the errors the reading thread sends hold no JavaScript handle (`Located` and
// `Internal` only).
unsafe impl Send for Note {}

/// Shared by both threads.
struct Signal {
    /// The main thread has drained the channel and sleeps until woken.
    waiting: AtomicBool,
    /// The environment is gone: the thread-safe function must not be touched.
    closed: AtomicBool,
}

struct Tsfn(sys::napi_threadsafe_function);
// SAFETY: thread-safe functions are made to be called from any thread.
unsafe impl Send for Tsfn {}

/// The main thread's side of one load.
struct Load {
    deferred: Option<sys::napi_deferred>,
    /// The arrays slices go into: the result, the open message's chunks, the open tool
    /// batch's calls.
    stack: Vec<sys::napi_ref>,
    /// Keeps a Buffer source alive while it is read (null for a path).
    source: sys::napi_ref,
    /// `None` once settled: the reading thread's next send fails and it stops.
    notes: Option<Receiver<Note>>,
    signal: Arc<Signal>,
    /// The continuation `setImmediate` runs.
    resume: sys::napi_ref,
    /// A `setImmediate` is pending.
    scheduled: bool,
}

type Shared = RefCell<Load>;

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

unsafe fn start(js: &Js, source: Value, format_name: Value, options: Value) -> JsResult<Value> {
    const WHAT: &str = "loadHistory";
    let env = js.env;
    let format = format(js, format_name)?;
    let options = history_options(js, options)?;
    let input = input(js, source)?;
    let root = js.array(&[])?;
    let mut promise = ptr::null_mut();
    let mut deferred = ptr::null_mut();
    check(
        unsafe { sys::napi_create_promise(env, &mut deferred, &mut promise) },
        env,
        "creating a promise",
    )?;
    let (sender, notes) = sync_channel(SLICES_AHEAD);
    let signal = Arc::new(Signal {
        waiting: AtomicBool::new(true),
        closed: AtomicBool::new(false),
    });
    let load = Rc::new(RefCell::new(Load {
        deferred: Some(deferred),
        stack: vec![unsafe { reference(env, root)? }],
        source: match input {
            Input::Bytes { .. } => unsafe { reference(env, source)? },
            Input::Path(_) => ptr::null_mut(),
        },
        notes: Some(notes),
        signal: signal.clone(),
        resume: ptr::null_mut(),
        scheduled: false,
    }));

    // The continuation for `setImmediate`; it holds the load until it is collected.
    let mut resume = ptr::null_mut();
    let held = Rc::into_raw(load.clone()) as *mut c_void;
    check(
        unsafe {
            sys::napi_create_function(
                env,
                WHAT.as_ptr().cast(),
                WHAT.len() as isize,
                Some(resume_callback),
                held,
                &mut resume,
            )
        },
        env,
        "creating a function",
    )?;
    check(
        unsafe {
            sys::napi_add_finalizer(
                env,
                resume,
                held,
                Some(release_load),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        },
        env,
        "attaching a finalizer",
    )?;
    load.borrow_mut().resume = unsafe { reference(env, resume)? };

    // The wake-up call from the reading thread; it holds the load until finalized.
    let mut tsfn = ptr::null_mut();
    let name = js.ascii_string("agent-chunks loadHistory")?;
    let held = Rc::into_raw(load.clone()) as *mut c_void;
    check(
        unsafe {
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
                &mut tsfn,
            )
        },
        env,
        "creating a thread-safe function",
    )?;
    let tsfn = Tsfn(tsfn);
    std::thread::Builder::new()
        .name("agent-chunks history".into())
        .spawn(move || read_on_thread(input, format, options, sender, signal, tsfn))
        .map_err(|e| JsError::Internal(format!("starting a thread: {e}")))?;
    Ok(promise)
}

/// The reading thread: slices into the channel, waking the main thread when it waits.
fn read_on_thread(
    input: Input,
    format: HistoryFormat,
    options: ReadOptions,
    sender: SyncSender<Note>,
    signal: Arc<Signal>,
    tsfn: Tsfn,
) {
    let wake = || {
        if signal.waiting.swap(false, Ordering::SeqCst) && !signal.closed.load(Ordering::SeqCst) {
            // SAFETY: the function is live until this thread releases it.
            unsafe {
                sys::napi_call_threadsafe_function(
                    tsfn.0,
                    ptr::null_mut(),
                    sys::ThreadsafeFunctionCallMode::nonblocking,
                )
            };
        }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        produce("loadHistory", &input, format, &options, SLICE_BYTES, |slice| {
            let sent = !signal.closed.load(Ordering::SeqCst) && sender.send(Note::Slice(slice)).is_ok();
            wake();
            sent
        })
    }));
    let last = match outcome {
        Ok(Ok(())) => Note::Done,
        Ok(Err(error)) => Note::Failed(error),
        Err(panic) => Note::Failed(JsError::Internal(panic_message(&*panic))),
    };
    let _ = sender.send(last);
    wake();
    if !signal.closed.load(Ordering::SeqCst) {
        // SAFETY: this thread's one use of the function ends here.
        unsafe { sys::napi_release_threadsafe_function(tsfn.0, sys::ThreadsafeFunctionReleaseMode::release) };
    }
}

unsafe extern "C" fn release_load(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is one of the `Rc`s `start` leaked for this callback.
    drop(unsafe { Rc::from_raw(data as *const Shared) });
}

unsafe extern "C" fn finalize_wake(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: as `release_load`; the load outlives this borrow.
    let load = unsafe { Rc::from_raw(data as *const Shared) };
    if let Ok(held) = load.try_borrow() {
        held.signal.closed.store(true, Ordering::SeqCst);
    };
}

unsafe extern "C" fn wake_callback(
    env: sys::napi_env,
    _js_callback: Value,
    context: *mut c_void,
    _data: *mut c_void,
) {
    if env.is_null() {
        return;
    }
    // SAFETY: the context is the load the function's finalizer has not released yet.
    let load = unsafe { &*(context as *const Shared) };
    unsafe { pump_guarded(env, load) };
}

unsafe extern "C" fn resume_callback(env: sys::napi_env, info: sys::napi_callback_info) -> Value {
    let mut data = ptr::null_mut();
    let mut argc = 0;
    // SAFETY: reads the data pointer of the current callback.
    let read =
        unsafe { sys::napi_get_cb_info(env, info, &mut argc, ptr::null_mut(), ptr::null_mut(), &mut data) };
    if read == sys::Status::napi_ok && !data.is_null() {
        // SAFETY: the function's data is a load its finalizer has not released yet.
        let load = unsafe { &*(data as *const Shared) };
        if let Ok(mut l) = load.try_borrow_mut() {
            l.scheduled = false;
        }
        unsafe { pump_guarded(env, load) };
    }
    ptr::null_mut()
}

/// [`pump`], with a panic turned into a rejected load: nothing unwinds into Node.
unsafe fn pump_guarded(env: sys::napi_env, load: &Shared) {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { pump(env, load) }));
    if let Err(panic) = caught {
        let message = panic_message(&*panic);
        if let (Some(state), Ok(mut l)) = (unsafe { state(env) }, load.try_borrow_mut()) {
            let js = unsafe { Js::new(env, state) };
            unsafe { settle(&js, &mut l, Err(JsError::Internal(message))) };
        }
    }
}

/// Turns what the reading thread has produced into objects, for up to [`BUDGET`].
unsafe fn pump(env: sys::napi_env, load: &Shared) {
    let Some(state) = (unsafe { state(env) }) else {
        return;
    };
    let js = unsafe { Js::new(env, state) };
    let Ok(mut l) = load.try_borrow_mut() else {
        return;
    };
    let started = Instant::now();
    loop {
        let Some(notes) = &l.notes else {
            return;
        };
        let note = match notes.try_recv() {
            Ok(note) => note,
            Err(TryRecvError::Empty) => {
                l.signal.waiting.store(true, Ordering::SeqCst);
                // A slice sent just before `waiting` was set woke nobody: look again.
                match notes.try_recv() {
                    Ok(note) => note,
                    Err(TryRecvError::Empty) => return,
                    Err(TryRecvError::Disconnected) => stopped(),
                }
            }
            Err(TryRecvError::Disconnected) => stopped(),
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

fn stopped() -> Note {
    Note::Failed(JsError::Internal("the reading thread stopped".into()))
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
    // Dropping the receiver stops the reading thread at its next slice.
    load.notes = None;
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
    for reference in load.stack.drain(..).chain([load.source, load.resume]) {
        if !reference.is_null() {
            unsafe { sys::napi_delete_reference(env, reference) };
        }
    }
}
