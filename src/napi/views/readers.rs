//! The webui adapters' fast entry points: a front compiled from `readers.js` reads the
//! fields each adapter's rule may read into a snapshot (flat arrays, typed where the
//! rule looks at kinds, tags and numbers), the rule runs here over that snapshot
//! ([`Snapshot`], a `Source`, in `snapshot.rs`), and the front builds the rows from the plan returned
//! ([`encode`]). One crossing per call instead of ~20 N-API calls per row; the rules in
//! `crate::formats` are the same functions the plain entry points run.
//!
//! Whatever the snapshot cannot answer as the caller's values would ([`Bail`]: a read
//! outside the plan, a value of a kind the rule refuses, a string it needs whole …)
//! sends the call to the plain entry point, which reads the values itself and throws the
//! rule's error. Where code from text cannot run, or in the WebAssembly build (whose
//! typed arrays are copies, not shared memory), the plain entry points are exported.

use std::ptr;

use napi::sys;

use crate::formats::chatviewer::adapter as chatviewer;
use crate::reading::source::{Key, ValueType};
use crate::views::unified::{Content, Timestamp, ToolCallSlot, UnifiedId, UnifiedMessage, UnifiedType};
use crate::views::webui;

use super::super::raw::call;
use super::super::raw::js::{check, Js, JsError, JsResult, State, Value};
use super::adapters::clock;
use super::snapshot::{
    children, field, field_when, Bail, Plan, Snapshot, KEEP, LIST, MAX_ITEMS, PLACES, ROOT, TAG, TIME,
};
use super::source::JsSource;

/// `adaptACPMessages` (`webui::adapt_acp_messages`) reads `type`, `data`, then
/// `data.toolCallId` or `data.role`, `data.timestamp` and `data.content`.
const ACP: Plan = Plan {
    fields: &[
        field(None, Key::Type, TAG),
        field(None, Key::Data, KEEP),
        field_when(Some(1), Key::ToolCallId, KEEP, 0, &webui::TOOL_CALL_TYPES),
        field_when(Some(1), Key::Role, TAG, 0, &[webui::MESSAGE]),
        field_when(Some(1), Key::Timestamp, KEEP, 0, &[webui::MESSAGE]),
        field_when(Some(1), Key::Content, KEEP, 0, &[webui::MESSAGE]),
    ],
    list_key: Key::Text,
    tags: &webui::TAGS,
};

/// `adaptJSONLMessages` (`chatviewer::adapt_jsonl_messages`) reads a line's `uuid`,
/// `timestamp` (as a date), `type`, `message` (its `parts` and their `text`, `content`,
/// `role`), for user lines `systemPayload` (`hookContext`, `displayText`), and `toolCall`.
const JSONL: Plan = Plan {
    fields: &[
        field(None, Key::Uuid, KEEP),
        field(None, Key::Timestamp, TIME),
        field(None, Key::Type, TAG | KEEP),
        field(None, Key::Message, 0),
        field(Some(3), Key::Parts, LIST),
        field(Some(3), Key::Content, KEEP),
        field(Some(3), Key::Role, TAG),
        field_when(None, Key::SystemPayload, 0, 2, &[chatviewer::USER]),
        field(Some(7), Key::HookContext, 0),
        field(Some(7), Key::DisplayText, KEEP),
        field(None, Key::ToolCall, KEEP),
    ],
    list_key: Key::Text,
    tags: &chatviewer::ROW_TYPES,
};

/// Floats per row in [`encode`]'s plan.
const ROW: usize = 12;

/// The row type names, in the order the plan refers to them.
const NAMES: [UnifiedType<u32>; 6] = [
    UnifiedType::User,
    UnifiedType::Assistant,
    UnifiedType::Thinking,
    UnifiedType::ToolCall,
    UnifiedType::System,
    UnifiedType::Error,
];

/// The rows as `build` of `readers.js` reads them: the row count, whether the clock is
/// given and its value, then per row `ROW` floats (id, type, timestamp, content and
/// toolCall, each a kind and a value, then `isFirst | isLast << 1`), then the slots of
/// joined contents, written into `out` (the front's, reused from call to call: no buffer
/// is made per call). `None` for a row these front ends do not build, or an `out` too
/// small.
fn encode(
    snapshot: &Snapshot,
    rows: &[UnifiedMessage<u32>],
    clock: Option<f64>,
    out: &mut [f64],
) -> Option<()> {
    let pieces_at = 3 + rows.len() * ROW;
    let (head, pieces) = out.split_at_mut_checked(pieces_at)?;
    head[..3].copy_from_slice(&[
        rows.len() as f64,
        clock.is_some() as u8 as f64,
        clock.unwrap_or(0.0),
    ]);
    let mut piece = 0;
    for (row, out) in rows.iter().zip(head[3..].chunks_exact_mut(ROW)) {
        // A value the front did not keep cannot be handed on: the plain entry point does.
        let slot = |value: u32| snapshot.kept(value).then_some(value as f64);
        let (id_kind, id) = match row.id {
            UnifiedId::Given(value) => (0.0, slot(value)?),
            UnifiedId::Message(index) => (1.0, index as f64),
            UnifiedId::Tool(value) => (2.0, slot(value)?),
            UnifiedId::Chunk(..) => return None,
        };
        let (type_kind, ty) = match row.kind {
            UnifiedType::Given(value) => (0.0, slot(value)?),
            kind => (1.0, NAMES.iter().position(|name| *name == kind)? as f64),
        };
        let (time_kind, time) = match row.timestamp {
            Timestamp::Now => (0.0, 0.0),
            Timestamp::Given(value) => (1.0, slot(value)?),
            Timestamp::Millis(millis) => (2.0, millis),
        };
        let (content_kind, content, length) = match &row.content {
            None => (0.0, 0.0, 0.0),
            Some(Content::Given(value)) => (1.0, slot(*value)?, 0.0),
            Some(Content::Joined(joined)) => {
                let start = piece as f64;
                for &value in joined {
                    *pieces.get_mut(piece)? = slot(value)?;
                    piece += 1;
                }
                (2.0, start, joined.len() as f64)
            }
            Some(Content::Empty) => (3.0, 0.0, 0.0),
        };
        let (call_kind, call) = match row.tool_call {
            None => (0.0, 0.0),
            Some(ToolCallSlot::Given(value)) => (1.0, slot(value)?),
            Some(ToolCallSlot::Built(_)) => return None,
        };
        let flags = row.is_first as u8 | (row.is_last as u8) << 1;
        out.copy_from_slice(&[
            id_kind,
            id,
            type_kind,
            ty,
            time_kind,
            time,
            content_kind,
            content,
            length,
            call_kind,
            call,
            flags as f64,
        ]);
    }
    Some(())
}

/// The elements of a typed array of element type `T` (`kind`), or `None` for anything else.
///
/// The front made these arrays for this call (or keeps them for its calls alone) and
/// holds no other view of them in Rust; no JavaScript runs while they are read or
/// written, so they are neither changed nor detached meanwhile.
fn typed<'a, T>(js: &Js, value: Value, kind: sys::napi_typedarray_type) -> JsResult<Option<&'a mut [T]>> {
    let (mut got, mut length, mut data, mut buffer, mut offset) =
        (0, 0usize, ptr::null_mut(), ptr::null_mut(), 0usize);
    // SAFETY: out-pointers are valid; anything but a typed array is refused.
    let status = unsafe {
        sys::napi_get_typedarray_info(
            js.env,
            value,
            &mut got,
            &mut length,
            &mut data,
            &mut buffer,
            &mut offset,
        )
    };
    if status != sys::Status::napi_ok || got != kind {
        return Ok(None);
    }
    if length == 0 || data.is_null() {
        return Ok(Some(&mut []));
    }
    // SAFETY: see above; `data` holds `length` elements of `T`, aligned as V8 aligns them.
    Ok(Some(unsafe {
        std::slice::from_raw_parts_mut(data.cast::<T>(), length)
    }))
}

/// Which adapter a `decide` callback runs.
#[derive(Clone, Copy)]
enum Adapter {
    Acp,
    Jsonl,
}

/// The rule over the snapshot the front took: the rows' plan, or `undefined` for the
/// plain entry point to do the call.
fn decide(js: &Js, adapter: Adapter, args: [Value; 11]) -> JsResult<Value> {
    let [columns, kinds, tags, numbers, starts, elements, element_kinds, count, _items, options, out] = args;
    if !js.state.mechanics.get() {
        return js.undefined();
    }
    use sys::TypedarrayType as T;
    let (Some(kinds), Some(tags), Some(numbers), Some(starts), Some(element_kinds), Some(out)) = (
        typed::<u8>(js, kinds, T::uint8_array)?,
        typed::<u8>(js, tags, T::uint8_array)?,
        typed::<f64>(js, numbers, T::float64_array)?,
        typed::<i32>(js, starts, T::int32_array)?,
        typed::<u8>(js, element_kinds, T::uint8_array)?,
        typed::<f64>(js, out, T::float64_array)?,
    ) else {
        return Err(JsError::Internal("a snapshot of the wrong shape".into()));
    };
    let plan = match adapter {
        Adapter::Acp => &ACP,
        Adapter::Jsonl => &JSONL,
    };
    let count = js.number(count)? as usize;
    let width = plan.fields.len() + 1;
    if count >= MAX_ITEMS || width > PLACES {
        return js.undefined();
    }
    let snapshot = Snapshot {
        js,
        plan,
        children: children(plan),
        count,
        width,
        kinds: &*kinds,
        tags: &*tags,
        numbers: &*numbers,
        starts: &*starts,
        element_kinds: &*element_kinds,
        columns,
        elements,
    };
    let outcome = match adapter {
        Adapter::Acp => match clock(&JsSource { js }, options) {
            Ok(now) => webui::adapt_acp_messages(&snapshot, ROOT).map(|rows| (rows, now)),
            Err(_) => Err(Bail::Bail),
        },
        Adapter::Jsonl => chatviewer::adapt_jsonl_messages(&snapshot, ROOT).map(|rows| (rows, None)),
    };
    match outcome {
        Ok((rows, now)) => match encode(&snapshot, &rows, now, out) {
            Some(()) => js.boolean(true),
            None => js.undefined(),
        },
        Err(Bail::Bail) => js.undefined(),
        Err(Bail::Js(error)) => Err(error),
    }
}

unsafe extern "C" fn decide_acp(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        call::raw_call(env, info, "adaptACPMessages", |js, args| {
            decide(js, Adapter::Acp, args)
        })
    }
}

unsafe extern "C" fn decide_jsonl(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        call::raw_call(env, info, "adaptJSONLMessages", |js, args| {
            decide(js, Adapter::Jsonl, args)
        })
    }
}

const SOURCE: &str = include_str!("readers.js");

/// Replaces `adaptACPMessages` and `adaptJSONLMessages` on `exports` with their reading
/// fronts, where `readers.js` compiles; else leaves the plain entry points.
///
/// # Safety
/// `env` must be a live environment, `state` its state, `exports` the module's exports.
pub unsafe fn install(env: sys::napi_env, state: &State, exports: Value) -> JsResult<()> {
    if cfg!(target_family = "wasm") || !state.compiled {
        return Ok(());
    }
    let js = unsafe { Js::new(env, state) };
    let mut source = ptr::null_mut();
    let mut makers = ptr::null_mut();
    check(
        unsafe {
            sys::napi_create_string_utf8(env, SOURCE.as_ptr().cast(), SOURCE.len() as isize, &mut source)
        },
        env,
        "creating a source text",
    )?;
    if unsafe { sys::napi_run_script(env, source, &mut makers) } != sys::Status::napi_ok {
        let mut refused = ptr::null_mut();
        // SAFETY: clears the compile error of the live environment.
        unsafe { sys::napi_get_and_clear_last_exception(env, &mut refused) };
        return Ok(());
    }
    let names = NAMES
        .iter()
        .map(|name| js.ascii_string(name.literal().unwrap_or_default()))
        .collect::<JsResult<Vec<_>>>()?;
    let names = js.array(&names)?;
    let adapters: [(&std::ffi::CStr, &Plan, sys::napi_callback); 2] = [
        (c"adaptACPMessages", &ACP, Some(decide_acp)),
        (c"adaptJSONLMessages", &JSONL, Some(decide_jsonl)),
    ];
    for (index, (name, plan, callback)) in adapters.into_iter().enumerate() {
        let mut plain = ptr::null_mut();
        check(
            unsafe { sys::napi_get_named_property(env, exports, name.as_ptr(), &mut plain) },
            env,
            "reading an entry point",
        )?;
        if js.value_type(plain)? != ValueType::Function {
            continue;
        }
        let mut decide = ptr::null_mut();
        let text = name.to_bytes();
        js.check(
            unsafe {
                sys::napi_create_function(
                    env,
                    text.as_ptr().cast(),
                    text.len() as isize,
                    callback,
                    (state as *const State).cast_mut().cast(),
                    &mut decide,
                )
            },
            "creating a function",
        )?;
        let mut keys = Vec::new();
        let mut parents = Vec::new();
        let mut reads = Vec::new();
        let mut whens = Vec::new();
        for field in plan.fields {
            keys.push(js.ascii_string(field.key.name())?);
            parents.push(js.create_number(field.parent.map_or(-1.0, |p| p as f64))?);
            reads.push(js.create_number(field.read as f64)?);
            whens.push(match field.when {
                None => js.array(&[])?,
                Some((tag, tags)) => {
                    let mut when = vec![js.create_number(tag as f64)?];
                    for wanted in tags {
                        let code = plan.tags.iter().position(|known| known == wanted);
                        let code =
                            code.ok_or_else(|| JsError::Internal("a condition on an unknown tag".into()))?;
                        when.push(js.create_number(code as f64 + 1.0)?);
                    }
                    js.array(&when)?
                }
            });
        }
        let tags = plan
            .tags
            .iter()
            .map(|tag| js.ascii_string(tag))
            .collect::<JsResult<Vec<_>>>()?;
        let make = js.element(makers, index)?;
        let arguments = [
            plain,
            decide,
            js.array(&keys)?,
            js.array(&parents)?,
            js.array(&reads)?,
            js.array(&whens)?,
            js.ascii_string(plan.list_key.name())?,
            js.array(&tags)?,
            names,
        ];
        let this = js.undefined()?;
        let mut front = ptr::null_mut();
        let made = unsafe {
            sys::napi_call_function(env, this, make, arguments.len(), arguments.as_ptr(), &mut front)
        };
        if made != sys::Status::napi_ok {
            // The front's loop is generated from the plan with `Function`, which Node run
            // with `--disallow-code-generation-from-strings` refuses: the plain entry point
            // stays.
            let mut refused = ptr::null_mut();
            unsafe { sys::napi_get_and_clear_last_exception(env, &mut refused) };
            continue;
        }
        js.check(
            unsafe { sys::napi_set_named_property(env, exports, name.as_ptr(), front) },
            "installing a reader",
        )?;
    }
    Ok(())
}
