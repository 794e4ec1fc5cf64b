//! `appendEventsToChunks(chunks, events)`: the events that arrived together, in one call.
//!
//! The result is that of `appendEventToChunks` called for each event in order (the same
//! per-event machinery runs for every event but deltas). A run of consecutive text (or
//! reasoning) deltas is joined first (one `concat` call for the whole run) and folded as
//! one delta, which builds the same text: the first delta of a run creates or extends
//! the chunk, and the following ones extend that same chunk. So a run costs one fold
//! instead of one per delta. The one
//! difference is observable only through getters: a run's events are read before the
//! chunks are touched.
//!
//! Where `mechanics.js` compiles, the exported `appendEventsToChunks` is its compiled
//! front's (`makeAppend`), which does the same in JavaScript, each event but the runs'
//! deltas going through the per-event front with its index; this one is what that front
//! calls with arguments that are not arrays, and the entry point where code from text
//! may not run.

use std::ptr;

use napi::bindgen_prelude::{Env, Result, Status, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::decode::ValueType;
use crate::model::AgentEvent;
use crate::reducer::append_event;

use super::call;
use super::chunks::JsChunks;
use super::entry::{self, in_batch, APPEND_MANY};
use super::js::{check, Interned, Js, JsError, JsResult, Value};

/// Deltas joined per `concat` call.
const MAX_ARGUMENTS: usize = 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum DeltaKind {
    Text,
    Reasoning,
}

/// A run of deltas of one kind, not yet folded.
struct Run {
    kind: DeltaKind,
    deltas: Vec<Value>,
}

/// The deltas joined: one call of `String.prototype.concat` on the first with the others
/// as arguments (all are strings, so this is `+`), instead of one call per delta.
fn join(js: &Js, deltas: &[Value]) -> JsResult<Value> {
    let [first, rest @ ..] = deltas else {
        return Err(JsError::Internal("an empty run of deltas".into()));
    };
    if rest.is_empty() {
        return Ok(*first);
    }
    let mut concat = ptr::null_mut();
    // SAFETY: `first` is a string of the current scope; reading a property of a string
    // reads it from String.prototype.
    check(
        unsafe { sys::napi_get_named_property(js.env, *first, c"concat".as_ptr(), &mut concat) },
        js.env,
        "reading String.prototype.concat",
    )?;
    let mut joined = *first;
    // Arguments go on the stack: a bounded number per call.
    for group in rest.chunks(MAX_ARGUMENTS) {
        let mut next = ptr::null_mut();
        // SAFETY: `concat` is the function just read, `group` strings of the run.
        check(
            unsafe {
                sys::napi_call_function(js.env, joined, concat, group.len(), group.as_ptr(), &mut next)
            },
            js.env,
            "joining deltas",
        )?;
        joined = next;
    }
    Ok(joined)
}

/// A delta event's kind and its `delta` string.
type Delta = (DeltaKind, Value);

/// The event's delta when it is a text or reasoning delta with a string `delta`.
fn delta_of(js: &Js, event: Value) -> JsResult<Option<Delta>> {
    if js.value_type(event)? != ValueType::Object {
        return Ok(None);
    }
    let mut buf = [0u8; 32];
    let kind = match js.tag(js.get(event, Interned::Type)?, &mut buf)? {
        Some(b"text-delta") => DeltaKind::Text,
        Some(b"reasoning-delta") => DeltaKind::Reasoning,
        _ => return Ok(None),
    };
    let delta = js.get(event, Interned::Delta)?;
    Ok(match js.value_type(delta)? {
        ValueType::String => Some((kind, delta)),
        _ => None,
    })
}

fn flush(js: &Js, chunks: Value, run: Option<Run>) -> JsResult<()> {
    let Some(run) = run else {
        return Ok(());
    };
    let Some(mut store) = JsChunks::new(js, chunks)? else {
        return Err(JsError::Type(format!(
            "\"chunks\" must be an array, got {}",
            js.value_type(chunks)?.name()
        )));
    };
    let delta = join(js, &run.deltas)?;
    let event = match run.kind {
        DeltaKind::Text => AgentEvent::TextDelta { delta },
        DeltaKind::Reasoning => AgentEvent::ReasoningDelta { delta },
    };
    append_event(&mut store, event)
}

/// An error met while a run is still unfolded: the run is folded first, as the deltas
/// before the failing read were, then the error is raised (a pending exception is taken
/// and thrown again after the fold).
fn settle(js: &Js, chunks: Value, run: Option<Run>, error: JsError) -> JsError {
    if run.is_none() {
        return error;
    }
    let error = match error {
        JsError::Pending => match js.error_value(JsError::Pending, APPEND_MANY) {
            Ok(exception) => JsError::Throw(exception),
            Err(other) => return other,
        },
        other => other,
    };
    match flush(js, chunks, run) {
        Ok(()) => error,
        Err(fold_error) => fold_error,
    }
}

/// The event at `index` and its delta, or `None` past the end. `events.length` is read at
/// each step, as a `for` loop over it does.
fn next(js: &Js, events: Value, index: usize) -> JsResult<Option<(Value, Option<Delta>)>> {
    let Some(len) = js.array_len(events)? else {
        return Err(JsError::Type(format!(
            "\"events\" must be an array, got {}",
            js.value_type(events)?.name()
        )));
    };
    if index >= len {
        return Ok(None);
    }
    let event = js.element(events, index)?;
    let delta = delta_of(js, event).map_err(|e| in_batch(index, e))?;
    Ok(Some((event, delta)))
}

pub fn append_many(js: &Js, chunks: Value, events: Value) -> JsResult<()> {
    if js.array_len(chunks)?.is_none() {
        return Err(JsError::Type(format!(
            "\"chunks\" must be an array, got {}",
            js.value_type(chunks)?.name()
        )));
    }
    let mut run: Option<Run> = None;
    let mut index = 0;
    loop {
        let (event, delta) = match next(js, events, index) {
            Ok(Some(found)) => found,
            Ok(None) => break,
            Err(error) => return Err(settle(js, chunks, run.take(), error)),
        };
        match delta {
            Some((kind, delta)) => match &mut run {
                Some(open) if open.kind == kind => open.deltas.push(delta),
                _ => {
                    flush(js, chunks, run.take())?;
                    run = Some(Run {
                        kind,
                        deltas: vec![delta],
                    });
                }
            },
            None => {
                flush(js, chunks, run.take())?;
                entry::append(js, chunks, event, None).map_err(|e| in_batch(index, e))?;
            }
        }
        index += 1;
    }
    flush(js, chunks, run)
}

/// Appends each event of `events` to `chunks` in order, as `appendEventToChunks` would
/// one call at a time, in a single call: for events that arrive together (a network read,
/// a replayed log). Runs of text or reasoning deltas are joined before they are folded.
/// A bad event throws the `TypeError` `appendEventToChunks` throws, prefixed with its
/// index; the events before it stay applied.
#[napi(
    js_name = "appendEventsToChunks",
    ts_args_type = "chunks: HistoryChunk[], events: AgentEvent[]"
)]
pub fn append_events_to_chunks(env: &Env, chunks: Unknown, events: Unknown) -> Result<()> {
    let outcome = unsafe {
        call::with_state(env.raw(), APPEND_MANY, |js| {
            append_many(js, chunks.raw(), events.raw())?;
            js.undefined()
        })
    };
    outcome
        .map(|_| ())
        .ok_or_else(|| napi::Error::new(Status::PendingException, "exception pending"))
}
