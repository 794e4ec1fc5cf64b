//! Making an environment's state and installing the drop-in's raw entry points on the
//! module's exports.

use std::ptr;

use napi::sys;

use super::entry::{append_event_to_chunks, apply_system_event, APPEND, APPLY};
use super::js::{JsError, JsResult, State, Value};

/// Creates this environment's state and installs the drop-in's raw callbacks on
/// `exports`, replacing the generated wrappers of the same names; returns the state, which
/// lives as long as the environment, for the other raw entry points.
///
/// # Safety
/// `env` and `exports` must be the module's environment and exports object.
pub unsafe fn install(env: sys::napi_env, exports: sys::napi_value) -> JsResult<*mut State> {
    let state = unsafe { State::new(env, super::mechanics::compile)? };
    let state = Box::into_raw(state);
    unsafe {
        sys::napi_set_instance_data(env, state.cast(), None, ptr::null_mut());
    }
    // Through napi's `Env`, which imports the hook from where each target has it (a
    // WebAssembly build imports it from emnapi's `napi` module, not `env`).
    let hook = napi::Env::from_raw(env).add_env_cleanup_hook(state, |state| {
        // SAFETY: `state` is the `State` leaked above; cleanup hooks run once.
        let state = unsafe { Box::from_raw(state) };
        unsafe { state.release() };
    });
    if let Err(e) = hook {
        return Err(JsError::Internal(format!("adding a cleanup hook: {e}")));
    }
    let functions: [(&str, sys::napi_callback); 2] = [
        (APPEND, Some(append_event_to_chunks)),
        (APPLY, Some(apply_system_event)),
    ];
    for (name, callback) in functions {
        let mut function = ptr::null_mut();
        let status = unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr().cast(),
                name.len() as isize,
                callback,
                state.cast(),
                &mut function,
            )
        };
        if status != sys::Status::napi_ok {
            return Err(JsError::Internal(format!(
                "installing {name} failed with status {status}"
            )));
        }
        if name == APPEND {
            // SAFETY: `state` lives as long as the environment.
            if let Some([one, many]) =
                unsafe { super::entry::reading_append(env, &*state, exports, function)? }
            {
                unsafe { export(env, exports, super::entry::APPEND_MANY, many)? };
                function = one;
            }
        }
        unsafe { export(env, exports, name, function)? };
    }
    Ok(state)
}

/// `exports[name] = function`.
///
/// # Safety
/// `env` must be a live environment, `exports` and `function` values of it.
unsafe fn export(env: sys::napi_env, exports: Value, name: &str, function: Value) -> JsResult<()> {
    let mut key = ptr::null_mut();
    let status = unsafe {
        sys::napi_create_string_utf8(env, name.as_ptr().cast(), name.len() as isize, &mut key);
        sys::napi_set_property(env, exports, key, function)
    };
    if status != sys::Status::napi_ok {
        return Err(JsError::Internal(format!(
            "installing {name} failed with status {status}"
        )));
    }
    Ok(())
}
