//! How every raw entry point runs: with its environment's state, panics caught (and
//! reported without the caller's data), errors thrown as JavaScript exceptions.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::sys;

use super::js::{arguments, Js, JsError, JsResult, State, Value};

thread_local! {
    /// Where this thread's last panic happened, as the panic hook saw it.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// A panic's message when it is a literal of this library's own text (`panic!("…")`);
/// `None` when it was formatted, and so may quote the input that caused it (a string
/// sliced off a character boundary quotes the string).
fn literal_message(payload: &(dyn std::any::Any + Send)) -> Option<&'static str> {
    payload.downcast_ref::<&'static str>().copied()
}

/// Replaces the default panic report (which prints the whole message to stderr) with one
/// that never prints the caller's data: a literal message and the place, or only the
/// place. The hook belongs to this library's own copy of the standard library, so other
/// native code in the process keeps its own.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_else(|| "an unknown place".into());
            let what =
                literal_message(info.payload()).unwrap_or("its message is not shown: it may quote input");
            eprintln!("agent-chunks: internal error (a panic) at {at}: {what}");
            PANIC_AT.with(|last| *last.borrow_mut() = Some(at));
        }));
    });
}

/// The text of a caught panic, for the `Error` it becomes: never a formatted message,
/// which may quote the caller's data.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = literal_message(panic) {
        return message.to_string();
    }
    let at = PANIC_AT.with(|last| last.borrow_mut().take());
    match (panic.downcast_ref::<String>(), at) {
        (Some(_), Some(at)) => format!("a panic at {at} (its message is not shown: it may quote input)"),
        (Some(_), None) => "a panic (its message is not shown: it may quote input)".into(),
        _ => "a panic without a message".into(),
    }
}

/// Runs the body of a `#[napi]` function, with a panic turned into an `Error` whose message
/// is [`panic_message`]'s: never the panic's own formatted text. (napi-rs's `catch_unwind`
/// attribute would build the `Error` from that text, which may quote the caller's data.)
pub fn caught<T>(name: &str, body: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        Err(napi::Error::new(
            napi::Status::GenericFailure,
            format!("{name}: internal error: {}", panic_message(&*panic)),
        ))
    })
}

/// Runs `body` with the environment's state (`data`, as `install` stored it). Errors
/// become JavaScript exceptions and panics a plain `Error` (a panic must never unwind
/// into Node); `None` then means an exception is pending.
///
/// `given` are the table entries the call was handed as arguments, or none (see
/// [`Js::with_given`]).
///
/// # Safety
/// `env` must be the live environment of the current callback; `data` null or its state;
/// `given` values of the current callback.
pub unsafe fn run(
    env: sys::napi_env,
    data: *mut c_void,
    name: &str,
    given: &[Value],
    body: impl FnOnce(&Js) -> JsResult<Value>,
) -> Option<Value> {
    if data.is_null() {
        let message = c"agent-chunks: the addon was not initialised in this environment";
        unsafe { sys::napi_throw_error(env, ptr::null(), message.as_ptr()) };
        return None;
    }
    // SAFETY: `install` leaked this state for the environment's lifetime.
    let state = unsafe { &*(data as *const State) };
    let js = unsafe { Js::new(env, state).with_given(given) };
    let error = match catch_unwind(AssertUnwindSafe(|| body(&js))) {
        Ok(Ok(value)) => return Some(value),
        Ok(Err(error)) => error,
        Err(panic) => JsError::Internal(panic_message(&*panic)),
    };
    js.throw(error, name);
    None
}

/// This environment's state, as `install` stored it in the instance data.
///
/// # Safety
/// `env` must be a live environment; the state lives as long as it does.
pub unsafe fn state<'a>(env: sys::napi_env) -> Option<&'a State> {
    let mut data: *mut c_void = ptr::null_mut();
    if unsafe { sys::napi_get_instance_data(env, &mut data) } != sys::Status::napi_ok || data.is_null() {
        return None;
    }
    Some(unsafe { &*(data as *const State) })
}

/// [`run`] with the state found through the environment's instance data, for callers
/// that have no data pointer (the generated wrappers).
///
/// # Safety
/// `env` must be the live environment of the current callback.
pub unsafe fn with_state(
    env: sys::napi_env,
    name: &str,
    body: impl FnOnce(&Js) -> JsResult<Value>,
) -> Option<Value> {
    let mut data: *mut c_void = ptr::null_mut();
    if unsafe { sys::napi_get_instance_data(env, &mut data) } != sys::Status::napi_ok {
        data = ptr::null_mut();
    }
    unsafe { run(env, data, name, &[], body) }
}

/// The raw callback shape: arguments and state from one `napi_get_cb_info`.
pub unsafe fn raw_call<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    name: &str,
    body: impl FnOnce(&Js, [Value; N]) -> JsResult<Value>,
) -> sys::napi_value {
    let Some((args, data)) = (unsafe { arguments::<N>(env, info) }) else {
        return ptr::null_mut();
    };
    unsafe { run(env, data, name, &[], |js| body(js, args)) }.unwrap_or(ptr::null_mut())
}
