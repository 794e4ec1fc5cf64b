//! The drop-in entry points, as raw N-API callbacks.
//!
//! A `#[napi]` function pays for a per-call native borrow scope (~63 ns, most of an empty
//! call; see `napi-facts.md`), several times the whole JavaScript reducer's cost per
//! event. These two are called once per streamed event, so they are plain
//! `extern "C"` callbacks installed by [`install`]; `types.rs` declares their
//! signatures for the generated typings and loader.

use std::ptr;

use napi::sys;

use crate::decode::{
    classify_type, decode_payload, decode_tool_result_id, decode_type, prefetch, EventSource, Field,
    ValueType,
};
use crate::model::{AgentEvent, EventType};
use crate::reducer::{self, locate, ChunkType, Lookup, Target};
use crate::system::{random_uuid, route_system_event};

use super::call::{raw_call, run};
use super::chunks::{constants, field_name, not_an_entry, HandBack, JsChunks, JsEvents, ReadLength};
use super::js::{arguments, given_slots, Js, JsError, JsResult, State, Value, GIVEN};
use super::mechanics::ShellRefusal;
use super::messages::{JsMessages, SystemChunk};

pub const APPEND: &str = "appendEventToChunks";
pub const APPLY: &str = "applySystemEvent";
pub const APPEND_MANY: &str = "appendEventsToChunks";

fn type_error(what: &str, expected: &str, got: ValueType) -> JsError {
    JsError::Type(format!("{what} must be {expected}, got {}", got.name()))
}

/// `appendEventToChunks(chunks, event)`.
pub unsafe extern "C" fn append_event_to_chunks(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    unsafe {
        raw_call(env, info, APPEND, |js, [chunks, event]| {
            append(js, chunks, event, None)?;
            Ok(ptr::null_mut())
        })
    }
}

/// The arguments of [`append_read`] after the given table entries: what the compiled
/// `appendEventToChunks` of `mechanics.js` read before the call.
const READ: usize = 13;

/// How many table entries are bound as arguments: [`GIVEN`] in Node, where reading an
/// argument costs nothing and a property read of the held array a lookup; none in the
/// WebAssembly build, where emnapi makes a handle in JavaScript for every argument of
/// every call (55 of them cost more than the one or two names a call reads).
const BOUND: usize = if cfg!(target_family = "wasm") { 0 } else { GIVEN };

/// The `code` of a call for which the compiled front read nothing of the event (an
/// event that is no object, in a batch): the native side reads all of it.
const UNREAD: f64 = -2.0;
/// The `code` of a call to refuse the delta the front read for the rules' write (it is
/// no string); the event's own code is where the length goes, the delta where the last
/// element goes.
const REFUSED_DELTA: f64 = -3.0;
/// The `code` of a call to refuse the length the front read for a push (no array-like
/// has it), given as [`REFUSED_DELTA`] gives the delta.
const REFUSED_LENGTH: f64 = -4.0;
/// The `code` of a call to refuse the last chunk's `calls`, found no array by the front
/// (for a call entry the rules push onto it); the chunk's index is where the length goes.
const REFUSED_CALLS: f64 = -5.0;
/// The same for a `calls` whose length no array has (the length where the last element
/// goes).
const REFUSED_CALLS_LENGTH: f64 = -6.0;
/// The same for a `calls` whose length no array-like can have for a push.
const REFUSED_CALLS_PUSH: f64 = -7.0;

/// Where a call comes from (`ALONE` and `NO_INDEX` of `mechanics.js`), which names its
/// errors: `appendEventToChunks`, or `appendEventsToChunks` for one event of a batch
/// (its errors then name its index) or for the batch's joined deltas. Read only when
/// there is an error to name.
#[derive(Debug, Clone, Copy)]
enum At {
    Alone,
    Batch(Option<usize>),
}

impl At {
    fn read(js: &Js, at: Value) -> JsResult<At> {
        // Left out (`undefined`) by `appendEventToChunks`.
        if js.value_type(at)? != ValueType::Number {
            return Ok(At::Alone);
        }
        let at = js.number(at)?;
        Ok(if at >= 0.0 {
            At::Batch(Some(at as usize))
        } else if at == -2.0 {
            At::Batch(None)
        } else {
            At::Alone
        })
    }

    fn name(self) -> &'static str {
        match self {
            At::Alone => APPEND,
            At::Batch(_) => APPEND_MANY,
        }
    }
}

/// The event type at `code` in [`EventType::TAGS`], if it is a position there.
fn type_at(js: &Js, code: Value) -> JsResult<Option<EventType>> {
    Ok(match usize::try_from(js.number(code)? as i64) {
        Ok(code) if code < EventType::TAGS.len() => {
            Some(EventType::from_tag(EventType::TAGS[code].as_bytes()))
        }
        _ => None,
    })
}

/// `appendEventToChunks` (and each event of `appendEventsToChunks`) as the compiled
/// front in `mechanics.js` calls it: the table entries the drop-in uses ([`BOUND`] of
/// them, bound once), then `chunks`, `event`, the event's `type` as read, its position
/// in [`EventType::TAGS`] (-1 when not there, or [`UNREAD`], [`REFUSED_DELTA`],
/// [`REFUSED_LENGTH`]), the array's `length` when read (see [`Plan::LastFirst`]),
/// whether the last element was read, that element and its `type`, the event's fields
/// the front read (four; see [`crate::decode::Prefetch`]) and where the call comes from
/// ([`At`]). Returns `1` for [`Handoff::ExtendLast`], a number of 8 or more for
/// [`Handoff::Push`], else `undefined`.
unsafe extern "C" fn append_read(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let Some((args, data)) = (unsafe { arguments::<{ BOUND + READ }>(env, info) }) else {
        return ptr::null_mut();
    };
    let (given, read) = args.split_at(BOUND);
    let [chunks, event, tag, code, length, has_last, last, last_type, fields @ .., at] = read else {
        unreachable!("READ arguments")
    };
    let body = |js: &Js| {
        let number = js.number(*code)?;
        if number == UNREAD {
            return append(js, *chunks, *event, None).map(|_| ptr::null_mut());
        }
        if number == REFUSED_DELTA {
            let source = JsEvents::new(js);
            source.read.set(Some((Field::Delta, *last)));
            decode_payload(
                &source,
                event,
                type_at(js, *length)?.unwrap_or(EventType::Unknown),
            )?;
            return Err(JsError::Internal("a refused delta passed the check".into()));
        }
        if number == REFUSED_LENGTH {
            return Err(js.bad_length(*last, || "chunks".into()));
        }
        if number <= REFUSED_CALLS {
            let index = js.number(*length)? as usize;
            let what = format!("chunks[{index}].calls");
            return Err(if number == REFUSED_CALLS {
                super::chunks::calls_not_array(index)
            } else if number == REFUSED_CALLS_LENGTH {
                match js.length_of(*last, &what) {
                    Err(error) => error,
                    Ok(_) => JsError::Internal("a length the front refused passed".into()),
                }
            } else if number == REFUSED_CALLS_PUSH {
                js.bad_length(*last, || what)
            } else {
                JsError::Internal("an unknown refusal".into())
            });
        }
        let ty = type_at(js, *code)?;
        let ty_or_unknown = ty.unwrap_or(EventType::Unknown);
        let last = js.is_true(*has_last).then_some((*last, *last_type));
        let (_, keys) = prefetch(ty_or_unknown);
        let mut prefetched = [None; 4];
        for ((slot, key), value) in prefetched.iter_mut().zip(keys).zip(fields) {
            *slot = Some((*key, *value));
        }
        let read_last = match plan(ty_or_unknown) {
            Plan::LastFirst => true,
            // The front read the chunks only when the field is not `undefined`.
            Plan::FieldThenLast => js.value_type(fields[0])? != ValueType::Undefined,
            _ => false,
        };
        let read = Read {
            tag: *tag,
            ty,
            length: read_last.then_some((*length, last)),
            prefetched,
        };
        match append(js, *chunks, *event, Some(read))? {
            Handoff::Done => Ok(ptr::null_mut()),
            Handoff::ExtendLast => js.create_number(1.0),
            Handoff::Push(code) => js.create_number(code),
        }
    };
    let body = |js: &Js| {
        body(js).map_err(|error| {
            // Named after where the call comes from, read only now.
            let at = match At::read(js, *at) {
                Ok(at) => at,
                Err(other) => return other,
            };
            let error = match at {
                At::Batch(Some(index)) => in_batch(index, error),
                _ => error,
            };
            js.throw(error, at.name());
            JsError::Pending
        })
    };
    // SAFETY: `given` holds arguments of this callback, alive during it.
    unsafe { run(env, data, APPEND, given, body) }.unwrap_or(ptr::null_mut())
}

/// What the compiled `appendEventToChunks` reads before it calls in, for each event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Plan {
    /// Nothing more: the event changes nothing (a lifecycle event), so no call is made.
    Nothing = 0,
    /// The array's `length`, its last element and that element's `type`, which the
    /// helper reads next for these events.
    LastFirst = 1,
    /// Nothing more: the binding reads the rest.
    Native = 2,
    /// The event's one field the rules read first (see [`crate::decode::Prefetch::One`]),
    /// then, unless it is `undefined`, what [`Plan::LastFirst`] reads: for an event
    /// whose rule does nothing without that field and otherwise walks back from the
    /// last chunk.
    FieldThenLast = 3,
}

/// The [`Plan`] for events of type `ty`, from the rules' own tables.
pub fn plan(ty: EventType) -> Plan {
    match (ty, early_lookup(ty)) {
        (EventType::Lifecycle(kind), _) => nothing_or_native(AgentEvent::<(), ()>::Lifecycle(kind)),
        (EventType::Unknown, _) => nothing_or_native(AgentEvent::<(), ()>::Unknown),
        (_, Some(Lookup::Last(_) | Lookup::LastCallOfNewestBatch)) => Plan::LastFirst,
        (EventType::ReasoningEnd, _) if walks_when_given(ty) => Plan::FieldThenLast,
        _ => Plan::Native,
    }
}

/// Whether the rule for `ty` (an event of one field, read first) does nothing when
/// that field is `undefined` and otherwise walks back from the last chunk.
fn walks_when_given(ty: EventType) -> bool {
    let (prefetch, fields) = prefetch(ty);
    let without = AgentEvent::<(), ()>::ReasoningEnd { metadata: None };
    let with = AgentEvent::<(), ()>::ReasoningEnd { metadata: Some(()) };
    prefetch == crate::decode::Prefetch::One
        && fields == [Field::Metadata]
        && matches!(without.lookup(), Lookup::Nothing)
        && matches!(with.lookup(), Lookup::NewestThinking)
}

/// [`Plan::Nothing`] for an event the rules do nothing with, whatever else it holds.
fn nothing_or_native(event: AgentEvent<(), ()>) -> Plan {
    match event.lookup() {
        Lookup::Nothing => Plan::Nothing,
        _ => Plan::Native,
    }
}

/// The lookup of the events whose chunks the helper reads before the event's payload.
fn early_lookup(ty: EventType) -> Option<Lookup<'static, Value>> {
    match ty {
        EventType::TextDelta => Some(Lookup::Last(ChunkType::Text)),
        EventType::ReasoningDelta => Some(Lookup::Last(ChunkType::Thinking)),
        EventType::ToolCall => Some(Lookup::Last(ChunkType::ToolBatch)),
        EventType::ShellOutput => Some(Lookup::LastCallOfNewestBatch),
        _ => None,
    }
}

/// What is left to do when [`append`] returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Handoff {
    Done,
    /// The rules extend the last chunk (the one read before the call) with the event's
    /// delta, which the caller's side (`mechanics.js`, `extendFrom`) then reads, checks
    /// and joins: what `apply` does for a delta at that target, without another call
    /// into JavaScript. Only for a call whose [`Read`] holds the last chunk.
    ExtendLast,
    /// The rules push a new chunk, which the caller's side makes as a literal and pushes
    /// (`handOff` of `mechanics.js`, which reads the code); see
    /// [`JsChunks::hand_back`].
    Push(f64),
}

/// What was read of the event and the chunks before the call (see [`append_read`]).
pub struct Read {
    /// The event's `type`.
    pub tag: Value,
    /// What `tag` is, when it is one of [`EventType::TAGS`].
    pub ty: Option<EventType>,
    /// The array's `length`, with the last element and its `type` when it was at least 1.
    pub length: Option<ReadLength>,
    /// The event's fields read (see [`crate::decode::Prefetch`]).
    pub prefetched: [Option<(Field, Value)>; 4],
}

/// The helper reads the last chunk (for a delta, its text too) before it reads a delta,
/// a tool call or shell output, and the chunks after the other events' fields. Both
/// orders are kept, so a getter on the event that changes the chunks (or calls this
/// function again) has the effect it has with the helper; every field is still checked
/// before anything is written. `read` is what the caller's side read already, in that
/// order (see [`append_read`]).
pub fn append(js: &Js, chunks: Value, event: Value, read: Option<Read>) -> JsResult<Handoff> {
    let Some(mut store) = JsChunks::new(js, chunks)? else {
        return Err(type_error("\"chunks\"", "an array", js.value_type(chunks)?));
    };
    let mut source = JsEvents::new(js);
    // Where the compiled front called and can write, it makes the new chunks.
    let hands_back = read.is_some() && js.state.mechanics.get();
    if let Some(read) = &read {
        source.prefetched(read.prefetched);
    }
    let tag = read.as_ref().map(|read| read.tag);
    let last_read = matches!(
        &read,
        Some(Read {
            length: Some((_, Some(_))),
            ..
        })
    );
    let ty = match &read {
        None => decode_type(&source, &event)?,
        Some(Read { ty: Some(ty), .. }) => *ty,
        Some(Read { tag, .. }) => classify_type(&source, &event, tag)?,
    };
    if let Some(Read {
        length: Some((length, last)),
        ..
    }) = read
    {
        store.prime((length, last));
    }
    let early = early_lookup(ty);
    let mut delta_stand_in = None;
    if ty == EventType::ToolResult {
        // As the helper does it: the call is found before `result` is read, `isError` is
        // read after `result` is written, and neither is read when there is no call.
        let (result, tool_call_id) = decode_tool_result_id(&source, &event)?;
        let target = locate(&store, Lookup::CallWithId(&tool_call_id))?;
        if target == Target::Nowhere {
            return Ok(Handoff::Done);
        }
        let result = if store.defer_result(result) {
            js.undefined()?
        } else {
            store.defer_is_error(result);
            source.field(&result, Field::Result)?
        };
        let event = AgentEvent::ToolResult {
            result,
            is_error: js.undefined()?,
            tool_call_id,
        };
        return reducer::apply(&mut store, target, event).map(|()| Handoff::Done);
    }
    let (target, event) = match early {
        Some(lookup) => {
            let target = locate(&store, lookup)?;
            if target == Target::Nowhere {
                // Shell output with no call to go to: the helper returns before reading
                // `stream` and `data`, so their getters do not run here either.
                return Ok(Handoff::Done);
            }
            if let (Target::Chunk(index), EventType::TextDelta | EventType::ReasoningDelta) = (target, ty) {
                // The target of `Lookup::Last` is the last chunk: the one read before.
                if last_read && js.state.mechanics.get() {
                    return Ok(Handoff::ExtendLast);
                }
                // What `apply` does for a delta at this target (`extend_text`), with the
                // delta read and checked in the same call.
                match store.extend_from(index, event)? {
                    Some(None) => return Ok(Handoff::Done),
                    Some(Some(refused)) => {
                        source.read.set(Some((Field::Delta, refused)));
                        decode_payload(&source, &event, ty)?;
                        return Err(JsError::Internal("a refused delta passed the check".into()));
                    }
                    None => {}
                }
            }
            if let (EventType::ShellOutput, Target::Call(index, call)) = (ty, target) {
                // The entry's side (`hold`, the payload, `append_shell_output`) in one
                // call, with the same reads in the same order.
                match store.shell_output_from(index, call, event)? {
                    Some(None) => return Ok(Handoff::Done),
                    Some(Some(refusal)) => {
                        return Err(refused_shell(&mut source, &event, index, call, refusal))
                    }
                    None => {}
                }
            }
            if ty != EventType::ToolCall {
                store.hold(target)?;
            }
            if let (true, Target::Push, Some(tag)) = (hands_back, target, tag) {
                if matches!(ty, EventType::TextDelta | EventType::ReasoningDelta) {
                    // The chunk is made by the caller's side, which reads the delta as the
                    // helper does, while making it; the event's `type` (a string, never
                    // written) stands in for it until then.
                    source.delta_read_later(tag);
                    delta_stand_in = Some(tag);
                }
            }
            (target, decode_payload(&source, &event, ty)?)
        }
        None => {
            let event = decode_payload(&source, &event, ty)?;
            (locate(&store, event.lookup())?, event)
        }
    };
    if hands_back {
        store.hand_back(HandBack {
            fields: source.taken(),
            delta: delta_stand_in,
        });
    }
    reducer::apply(&mut store, target, event)?;
    Ok(match store.handed_back() {
        Some(code) => Handoff::Push(code),
        None => Handoff::Done,
    })
}

/// The error for what `shellOutputFrom` refused: the rules' own check of the fields it
/// read (given to them instead of read again), or of the entry.
fn refused_shell(
    source: &mut JsEvents,
    event: &Value,
    index: usize,
    call: usize,
    refusal: ShellRefusal,
) -> JsError {
    let (stream, data) = match refusal {
        ShellRefusal::Stream(stream) => (stream, None),
        ShellRefusal::Data(stream, data) => (stream, Some(data)),
        ShellRefusal::Entry => return not_an_entry(index, call),
    };
    source.prefetched([
        Some((Field::Stream, stream)),
        data.map(|data| (Field::Data, data)),
        None,
        None,
    ]);
    match decode_payload(source, event, EventType::ShellOutput) {
        Err(error) => error,
        Ok(_) => JsError::Internal("refused shell output passed the check".into()),
    }
}

/// `applySystemEvent(messages, event, idFactory?)`.
pub unsafe extern "C" fn apply_system_event(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    unsafe {
        raw_call(env, info, APPLY, |js, [messages, event, id_factory]| {
            apply(js, messages, event, id_factory)
        })
    }
}

pub fn apply(js: &Js, messages: Value, event: Value, id_factory: Value) -> JsResult<Value> {
    use super::js::Interned;
    let Some(mut list) = JsMessages::new(js, messages)? else {
        return Err(type_error("\"messages\"", "an array", js.value_type(messages)?));
    };
    match js.value_type(event)? {
        ValueType::Object | ValueType::Array | ValueType::Function => {}
        got => return Err(type_error("event", "an object", got)),
    }
    let string_field = |name: Interned, label: &str| -> JsResult<Value> {
        let value = js.get(event, name)?;
        match js.value_type(value)? {
            ValueType::String => Ok(value),
            got => Err(type_error(label, "a string", got)),
        }
    };
    let chunk = SystemChunk {
        kind: string_field(Interned::Kind, "event: \"kind\"")?,
        text: string_field(Interned::Text, "event: \"text\"")?,
    };
    let factory = match js.value_type(id_factory)? {
        ValueType::Undefined => None,
        ValueType::Function => Some(id_factory),
        got => return Err(type_error("\"idFactory\"", "a function", got)),
    };
    let new_id = || -> JsResult<Value> {
        match factory {
            Some(factory) => {
                let id = js.call0(factory)?;
                match js.value_type(id)? {
                    ValueType::String => Ok(id),
                    got => Err(type_error("\"idFactory\" result", "a string", got)),
                }
            }
            None => {
                let id = random_uuid().map_err(|e| JsError::Internal(format!("no random source: {e}")))?;
                js.create_utf16(&id.encode_utf16().collect::<Vec<_>>())
            }
        }
    };
    let message_id = route_system_event(&mut list, chunk, new_id)?;
    js.object(&[(Interned::MessageId, message_id)])
}

/// `appendEventToChunks` and `appendEventsToChunks` to export where `mechanics.js`
/// compiled: its reading front (see [`append_read`]) over `plain` and over the
/// generated `appendEventsToChunks` found on `exports`; `None` where it did not (the
/// plain entry points are then exported as they are).
///
/// # Safety
/// `env` must be a live environment, `state` its state, `exports` and `plain` values
/// of it.
pub(super) unsafe fn reading_append(
    env: sys::napi_env,
    state: &State,
    exports: Value,
    plain: Value,
) -> JsResult<Option<[Value; 2]>> {
    if !state.compiled {
        return Ok(None);
    }
    let js = unsafe { Js::new(env, state) };
    let mut read = ptr::null_mut();
    let name = "appendEventToChunks";
    js.check(
        unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr().cast(),
                name.len() as isize,
                Some(append_read),
                (state as *const State).cast_mut().cast(),
                &mut read,
            )
        },
        "creating a function",
    )?;
    let given = given_slots()
        .take(BOUND)
        .map(|slot| js.table(slot))
        .collect::<JsResult<Vec<_>>>()?;
    let mut tags = Vec::new();
    let mut plans = Vec::new();
    let mut reads = Vec::new();
    let mut keys = Vec::new();
    for tag in EventType::TAGS {
        let ty = EventType::from_tag(tag.as_bytes());
        tags.push(js.ascii_string(tag)?);
        plans.push(js.create_number(plan(ty) as u8 as f64)?);
        let (prefetch, fields) = prefetch(ty);
        // A `FieldThenLast` plan reads its field itself.
        let prefetch = match plan(ty) {
            Plan::FieldThenLast => crate::decode::Prefetch::Nothing,
            _ => prefetch,
        };
        reads.push(js.create_number(prefetch as u8 as f64)?);
        for position in 0..4 {
            keys.push(match fields.get(position) {
                Some(field) => js.name(field_name(*field))?,
                None => js.undefined()?,
            });
        }
    }
    // The plan for a string that is none of the tags.
    plans.push(js.create_number(plan(EventType::Unknown) as u8 as f64)?);
    // SAFETY: `exports` is the module's exports object, in this environment.
    let plain_many = unsafe { super::js::get_named(env, exports, c"appendEventsToChunks")? };
    // The deltas whose runs a batch joins (see batch.rs).
    let joined = EventType::TAGS
        .iter()
        .filter(|tag| {
            matches!(
                EventType::from_tag(tag.as_bytes()),
                EventType::TextDelta | EventType::ReasoningDelta
            )
        })
        .map(|tag| js.ascii_string(tag))
        .collect::<JsResult<Vec<_>>>()?;
    let arguments = [
        read,
        plain,
        plain_many,
        js.array(&tags)?,
        js.array(&plans)?,
        js.array(&reads)?,
        js.array(&keys)?,
        js.array(&constants(&js)?)?,
        js.array(&joined)?,
        js.array(&given)?,
    ];
    let made = super::mechanics::make_append(&js, &arguments)?;
    Ok(Some([js.element(made, 0)?, js.element(made, 1)?]))
}

/// Names the event an error is about.
pub(in crate::napi) fn in_batch(index: usize, error: JsError) -> JsError {
    match error {
        JsError::Type(message) => JsError::Type(format!("events[{index}]: {message}")),
        other => other,
    }
}
