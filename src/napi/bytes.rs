//! The bytes of a `Buffer` or `Uint8Array` argument, safe to read for the whole call.
//!
//! A view over an ordinary `ArrayBuffer` is borrowed: during a synchronous call no
//! JavaScript runs that could change or detach it. A view over a `SharedArrayBuffer` is
//! copied first: another thread may write to it at any moment, and bytes checked as UTF-8
//! must not change while they are read as text.

use std::borrow::Cow;
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};

use napi::sys;

use super::raw::js::{check, Js, JsResult, Value};

/// The bytes of `value` when it is a `Uint8Array` (a `Buffer` is one), `None` otherwise.
pub fn uint8_bytes<'a>(js: &'a Js, value: Value) -> JsResult<Option<Cow<'a, [u8]>>> {
    let env = js.env;
    let (mut kind, mut length, mut data, mut buffer, mut offset) =
        (0, 0usize, ptr::null_mut(), ptr::null_mut(), 0usize);
    // SAFETY: all out-pointers are valid; anything but a typed array is refused with
    // `napi_invalid_arg` and nothing thrown.
    let status = unsafe {
        sys::napi_get_typedarray_info(
            env,
            value,
            &mut kind,
            &mut length,
            &mut data,
            &mut buffer,
            &mut offset,
        )
    };
    if status == sys::Status::napi_invalid_arg
        || (status == sys::Status::napi_ok && kind != sys::TypedarrayType::uint8_array)
    {
        return Ok(None);
    }
    check(status, env, "reading a typed array")?;
    if length == 0 || data.is_null() {
        return Ok(Some(Cow::Borrowed(&[])));
    }
    let mut plain = false;
    // SAFETY: `buffer` is the view's buffer, a handle of the current scope.
    check(
        unsafe { sys::napi_is_arraybuffer(env, buffer, &mut plain) },
        env,
        "reading a typed array",
    )?;
    if !plain {
        // SAFETY: `length` bytes of live shared memory, read only as atomics.
        let shared = unsafe { std::slice::from_raw_parts(data as *const AtomicU8, length) };
        return Ok(Some(Cow::Owned(
            shared.iter().map(|b| b.load(Ordering::Relaxed)).collect(),
        )));
    }
    // SAFETY: the view's memory, `length` bytes from `data`, lives at least as long as the
    // call (its buffer is an argument), and no JavaScript runs to change it meanwhile.
    Ok(Some(Cow::Borrowed(unsafe {
        std::slice::from_raw_parts(data as *const u8, length)
    })))
}
