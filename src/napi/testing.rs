//! Test-only: `__panicForTest(via)` panics inside the addon, so that the tests can show a
//! panic reaching JavaScript as an `Error`, with the process going on working. It is not
//! part of the API: left out of the typings, documented as test-only in `README.md`, and
//! harmless (it throws). `via` picks the boundary the panic crosses:
//!
//! - `"entry"`: the wrapper every raw entry point, the `ChunkStream` class and the
//!   adapters run their body in (`entry::run`);
//! - `"payload"`: the same, with a panic payload that is not a message;
//! - `"data"`: the same, with a formatted message quoting data, which must not be shown;
//! - `"napi"`: a `#[napi(catch_unwind)]` function, as the format readers are.
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

use super::entry;

#[napi(js_name = "__panicForTest", catch_unwind, skip_typescript)]
pub fn panic_for_test(env: &Env, via: String) -> Result<()> {
    match via.as_str() {
        "napi" => panic!("a test panic in a #[napi(catch_unwind)] function"),
        "entry" | "payload" | "data" => {
            let outcome = unsafe {
                entry::with_state(env.raw(), "__panicForTest", |_| {
                    if via == "payload" {
                        std::panic::panic_any(7_u8);
                    }
                    if via == "data" {
                        let data = format!("{}-{}", "caller", "secret");
                        panic!("a test panic quoting {data}");
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
    }
}

#[napi(js_name = "__wrappedForTest", catch_unwind, skip_typescript)]
pub fn wrapped_for_test(env: &Env) -> Result<napi::bindgen_prelude::Unknown<'_>> {
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

#[napi(js_name = "__mechanicsForTest", catch_unwind, skip_typescript)]
pub fn mechanics_for_test(env: &Env, compiled: Option<bool>) -> Result<bool> {
    // SAFETY: the live environment of this call.
    let Some(state) = (unsafe { entry::state(env.raw()) }) else {
        return Err(napi::Error::new(
            Status::GenericFailure,
            "the addon was not initialised",
        ));
    };
    if let Some(compiled) = compiled {
        state.mechanics.set(compiled && state.compiled);
    }
    Ok(state.mechanics.get())
}
