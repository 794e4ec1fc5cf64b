//! Test-only: `__panicForTest(via, secret)` panics inside the addon, so that the tests can
//! show a panic reaching JavaScript as an `Error`, with the process going on working and
//! `secret` (the caller's data) shown neither in the `Error` nor on stderr. It is not part
//! of the API: left out of the typings, documented as test-only in `docs/limits.md`, and
//! harmless (it throws). `via` picks the boundary the panic crosses:
//!
//! - `"entry"`: the wrapper every raw entry point, the `ChunkStream` class and the
//!   adapters run their body in (`entry::run`);
//! - `"payload"`: the same, with a panic payload that is not a message;
//! - `"data"`: the same, with a formatted message quoting `secret`;
//! - `"napi"`: `entry::caught`, the wrapper every `#[napi]` function (the format readers,
//!   this one) runs its body in, with a formatted message quoting `secret`;
//! - `"slice"`: the same wrapper, with the standard library's own panic for a string
//!   sliced off a character boundary, whose message quotes the string (`"é" + secret`).
//!
//! `__wrappedForTest()` returns an object wrapped (`napi_wrap`) around one byte that is
//! not a `ChunkStream`, as another addon's object would be: the stream's methods must
//! refuse it rather than read it as a stream.
//!
//! `__mechanicsForTest(use?)` tells whether this environment's drop-in writes through the
//! functions compiled from `mechanics.js` (`true`) or through the built-ins it takes where
//! code from text may not run, as in a page whose Content Security Policy forbids `eval`
//! (`false`); `use = false` switches to the built-ins, so that Node's tests run that path
//! too, and `use = true` back (when they compiled).

use napi::bindgen_prelude::{Env, Result, Status};
use napi_derive::napi;

use super::raw::call::{self, caught};

#[napi(js_name = "__panicForTest", skip_typescript)]
pub fn panic_for_test(env: &Env, via: String, secret: Option<String>) -> Result<()> {
    let secret = secret.unwrap_or_default();
    caught("__panicForTest", || match via.as_str() {
        "napi" => panic!("a test panic quoting {secret}"),
        "slice" => {
            let text = format!("é{secret}");
            // Byte 1 is inside the `é`: the standard library's panic quotes `text`.
            let cut = std::hint::black_box(1);
            Err(napi::Error::from_reason(text[cut..].to_string()))
        }
        "entry" | "payload" | "data" => {
            let outcome = unsafe {
                call::with_state(env.raw(), "__panicForTest", |_| {
                    if via == "payload" {
                        std::panic::panic_any(7_u8);
                    }
                    if via == "data" {
                        panic!("a test panic quoting {secret}");
                    }
                    panic!("a test panic in the entry wrapper")
                })
            };
            outcome
                .map(|_| ())
                .ok_or_else(|| napi::Error::new(Status::PendingException, "exception pending"))
        }
        other => Err(napi::Error::new(
            Status::InvalidArg,
            format!("__panicForTest: unknown boundary {other:?}"),
        )),
    })
}

#[napi(js_name = "__wrappedForTest", skip_typescript)]
pub fn wrapped_for_test(env: &Env) -> Result<napi::bindgen_prelude::Unknown<'_>> {
    caught("__wrappedForTest", || wrap_one(env))
}

fn wrap_one(env: &Env) -> Result<napi::bindgen_prelude::Unknown<'_>> {
    use napi::sys;
    unsafe extern "C" fn free_wrapped(
        _env: sys::napi_env,
        data: *mut std::ffi::c_void,
        _hint: *mut std::ffi::c_void,
    ) {
        // SAFETY: the box leaked below, freed once with its object.
        drop(unsafe { Box::from_raw(data as *mut u8) });
    }
    let mut object = std::ptr::null_mut();
    // SAFETY: a fresh object, wrapped once; the finalizer frees the byte.
    unsafe {
        if sys::napi_create_object(env.raw(), &mut object) != sys::Status::napi_ok {
            return Err(napi::Error::new(Status::GenericFailure, "creating an object"));
        }
        let byte = Box::into_raw(Box::new(7_u8));
        if sys::napi_wrap(
            env.raw(),
            object,
            byte.cast(),
            Some(free_wrapped),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ) != sys::Status::napi_ok
        {
            drop(Box::from_raw(byte));
            return Err(napi::Error::new(Status::GenericFailure, "wrapping an object"));
        }
        Ok(napi::bindgen_prelude::Unknown::from_raw_unchecked(
            env.raw(),
            object,
        ))
    }
}

#[napi(js_name = "__mechanicsForTest", skip_typescript)]
pub fn mechanics_for_test(env: &Env, compiled: Option<bool>) -> Result<bool> {
    caught("__mechanicsForTest", || {
        // SAFETY: the live environment of this call.
        let Some(state) = (unsafe { call::state(env.raw()) }) else {
            return Err(napi::Error::new(
                Status::GenericFailure,
                "the addon was not initialised",
            ));
        };
        if let Some(compiled) = compiled {
            state.mechanics.set(compiled && state.compiled);
        }
        Ok(state.mechanics.get())
    })
}
