//! The webui adapters' fast entry points: a front compiled from `readers.js` reads the
//! fields each adapter's rule may read into a snapshot (flat arrays, typed where the
//! rule looks at kinds, tags and numbers), the rule runs here over that snapshot
//! ([`Snapshot`], a [`Source`]), and the front builds the rows from the plan returned
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

use crate::formats::source::{Key, Source, ValueType};
use crate::formats::unified::{Content, Timestamp, ToolCallSlot, UnifiedId, UnifiedMessage, UnifiedType};
use crate::formats::webui::UnknownMessageType;
use crate::formats::{chatviewer, webui};

use super::adapters::clock;
use super::entry;
use super::js::{arguments, check, Js, JsError, JsResult, State, Value};
use super::source::JsSource;

/// What a field of a plan is read for, besides its kind and truthiness.
const TAG: u8 = 1;
const TIME: u8 = 2;
const LIST: u8 = 4;
/// The value is kept, for a row to hold.
const KEEP: u8 = 8;

/// One field the front reads per item: `key` of the item (`parent: None`) or of an
/// earlier field.
struct Field {
    parent: Option<usize>,
    key: Key,
    read: u8,
}

/// What the front reads for one adapter.
struct Plan {
    fields: &'static [Field],
    /// The key read of each element of the LIST field.
    list_key: Key,
    /// Every string the rule compares with.
    tags: &'static [&'static [u8]],
}

const fn field(parent: Option<usize>, key: Key, read: u8) -> Field {
    Field { parent, key, read }
}

/// `adaptACPMessages` (`webui::adapt_acp_messages`) reads `type`, `data`, then
/// `data.toolCallId` or `data.role`, `data.timestamp` and `data.content`.
const ACP: Plan = Plan {
    fields: &[
        field(None, Key::Type, TAG),
        field(None, Key::Data, KEEP),
        field(Some(1), Key::ToolCallId, KEEP),
        field(Some(1), Key::Role, TAG),
        field(Some(1), Key::Timestamp, KEEP),
        field(Some(1), Key::Content, KEEP),
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
        field(None, Key::SystemPayload, 0),
        field(Some(7), Key::HookContext, 0),
        field(Some(7), Key::DisplayText, KEEP),
        field(None, Key::ToolCall, KEEP),
    ],
    list_key: Key::Text,
    tags: &chatviewer::ROW_TYPES,
};

/// The kind codes of `readers.js`: a [`ValueType`], or a field that was not read.
const NOT_READ: u8 = 15;
const TRUTHY: u8 = 16;
const KINDS: [ValueType; 10] = [
    ValueType::Undefined,
    ValueType::Null,
    ValueType::Boolean,
    ValueType::Number,
    ValueType::BigInt,
    ValueType::String,
    ValueType::Symbol,
    ValueType::Function,
    ValueType::Array,
    ValueType::Object,
];

/// The snapshot cannot answer as the caller's values would: the plain entry point does.
#[derive(Debug)]
pub enum Bail {
    Bail,
    Js(JsError),
}

impl From<crate::formats::source::Invalid> for Bail {
    fn from(_: crate::formats::source::Invalid) -> Self {
        Bail::Bail
    }
}

impl<V> From<UnknownMessageType<V>> for Bail {
    fn from(_: UnknownMessageType<V>) -> Self {
        Bail::Bail
    }
}

impl From<JsError> for Bail {
    fn from(e: JsError) -> Self {
        Bail::Js(e)
    }
}

/// The array of items itself.
const ROOT: u32 = u32::MAX;

/// A snapshot as the front took it. A value is a slot: items take `1 + fields` slots each
/// (the item, then its fields in the plan's order), from `main` on come two slots per
/// element of a LIST field (the element, then its `list_key` field).
struct Snapshot<'a, 's> {
    js: &'a Js<'s>,
    plan: &'static Plan,
    count: usize,
    width: usize,
    main: usize,
    kinds: &'a [u8],
    tags: &'a [u8],
    numbers: &'a [f64],
    starts: &'a [i32],
    element_kinds: &'a [u8],
    /// One array per field, holding the values of KEEP fields.
    columns: Value,
    elements: Value,
}

impl Snapshot<'_, '_> {
    fn kind(&self, slot: u32) -> Result<u8, Bail> {
        let slot = slot as usize;
        let kind = match slot.checked_sub(self.main) {
            None => self.kinds.get(slot),
            Some(element) => self.element_kinds.get(element),
        };
        match kind {
            Some(&kind) if kind & 15 != NOT_READ => Ok(kind),
            _ => Err(Bail::Bail),
        }
    }

    /// The plan's field at `slot`, when it is one (not an item or an element).
    fn field(&self, slot: u32) -> Option<(usize, &'static Field)> {
        let slot = slot as usize;
        if slot >= self.main {
            return None;
        }
        let index = (slot % self.width).checked_sub(1)?;
        Some((index, &self.plan.fields[index]))
    }

    /// Whether the front kept the value in `slot`.
    fn kept(&self, slot: u32) -> bool {
        slot as usize >= self.main || self.field(slot).is_some_and(|(_, field)| field.read & KEEP != 0)
    }

    /// The caller's value in `slot`, read through N-API (for the rare rule that needs a
    /// string whole).
    fn value(&self, slot: u32) -> Result<Value, Bail> {
        if !self.kept(slot) {
            return Err(Bail::Bail);
        }
        let slot = slot as usize;
        Ok(match slot.checked_sub(self.main) {
            None => {
                let column = self.js.element(self.columns, slot % self.width - 1)?;
                self.js.element(column, slot / self.width)?
            }
            Some(element) => self.js.element(self.elements, element)?,
        })
    }
}

impl Source for Snapshot<'_, '_> {
    type Value = u32;
    type Error = Bail;

    fn get(&self, object: u32, key: Key) -> Result<u32, Bail> {
        if object == ROOT {
            return Err(Bail::Bail);
        }
        let slot = object as usize;
        if let Some(element) = slot.checked_sub(self.main) {
            // An element's own field.
            return match element % 2 == 0 && key == self.plan.list_key {
                true => Ok(object + 1),
                false => Err(Bail::Bail),
            };
        }
        let parent = (slot % self.width).checked_sub(1);
        let item = slot - slot % self.width;
        let found = self
            .plan
            .fields
            .iter()
            .position(|field| field.parent == parent && field.key == key);
        match found {
            Some(index) => Ok((item + 1 + index) as u32),
            None => Err(Bail::Bail),
        }
    }

    fn has(&self, _: u32, _: Key) -> Result<bool, Bail> {
        Err(Bail::Bail)
    }

    fn value_type(&self, value: u32) -> Result<ValueType, Bail> {
        if value == ROOT {
            return Ok(ValueType::Array);
        }
        KINDS
            .get((self.kind(value)? & 15) as usize)
            .copied()
            .ok_or(Bail::Bail)
    }

    fn tag<'b>(&self, value: u32, _: &'b mut [u8; 32]) -> Result<Option<&'b [u8]>, Bail> {
        if self.kind(value)? & 15 != ValueType::String as u8 {
            return Ok(None);
        }
        match self.field(value) {
            Some((_, field)) if field.read & TAG != 0 => match self.tags.get(value as usize) {
                Some(0) => Ok(Some(&[])),
                Some(&code) => Ok(self.plan.tags.get(code as usize - 1).copied()),
                None => Err(Bail::Bail),
            },
            _ => Err(Bail::Bail),
        }
    }

    fn units(&self, value: u32) -> Result<Vec<u16>, Bail> {
        let mut units = Vec::new();
        self.js.utf16_into(self.value(value)?, &mut units)?;
        Ok(units)
    }

    fn array_len(&self, value: u32) -> Result<Option<usize>, Bail> {
        if value == ROOT {
            return Ok(Some(self.count));
        }
        if self.kind(value)? & 15 != ValueType::Array as u8 {
            return Ok(None);
        }
        match (self.field(value), self.numbers.get(value as usize)) {
            (Some((_, field)), Some(&length)) if field.read & LIST != 0 && length.is_finite() => {
                Ok(Some(length as usize))
            }
            _ => Err(Bail::Bail),
        }
    }

    fn element(&self, array: u32, index: usize) -> Result<u32, Bail> {
        if array == ROOT {
            return match index < self.count {
                true => Ok((index * self.width) as u32),
                false => Err(Bail::Bail),
            };
        }
        let length = self.array_len(array)?.ok_or(Bail::Bail)?;
        let start = *self.starts.get(array as usize).ok_or(Bail::Bail)?;
        match index < length {
            true => Ok((self.main + 2 * (start as usize + index)) as u32),
            false => Err(Bail::Bail),
        }
    }

    fn truthy(&self, value: u32) -> Result<bool, Bail> {
        if value == ROOT {
            return Ok(true);
        }
        Ok(self.kind(value)? & TRUTHY != 0)
    }

    fn number(&self, value: u32) -> Result<f64, Bail> {
        Ok(self.js.number(self.value(value)?)?)
    }

    fn time(&self, value: u32) -> Result<f64, Bail> {
        let kind = self.kind(value)? & 15;
        match (self.field(value), self.numbers.get(value as usize)) {
            (Some((_, field)), Some(&time))
                if field.read & TIME != 0
                    && (kind == ValueType::String as u8 || kind == ValueType::Number as u8) =>
            {
                Ok(time)
            }
            _ => Err(Bail::Bail),
        }
    }
}

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
/// joined contents. `None` for a row these front ends do not build.
fn encode(snapshot: &Snapshot, rows: &[UnifiedMessage<u32>], clock: Option<f64>) -> Option<Vec<f64>> {
    let mut out = Vec::with_capacity(3 + rows.len() * ROW);
    out.extend([
        rows.len() as f64,
        clock.is_some() as u8 as f64,
        clock.unwrap_or(0.0),
    ]);
    let mut pieces = Vec::new();
    for row in rows {
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
                let start = pieces.len() as f64;
                for &value in joined {
                    pieces.push(slot(value)?);
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
        out.extend([
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
    out.extend(pieces);
    Some(out)
}

/// The bytes of a typed array of element type `T` (`kind`), or `None` for anything else.
fn typed<'a, T>(js: &Js, value: Value, kind: sys::napi_typedarray_type) -> JsResult<Option<&'a [T]>> {
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
        return Ok(Some(&[]));
    }
    // SAFETY: the front made these arrays for this call; no JavaScript runs while they
    // are read, so they are neither changed nor detached.
    Ok(Some(unsafe {
        std::slice::from_raw_parts(data.cast::<T>(), length)
    }))
}

/// A new `Float64Array` holding `values`.
fn float64_array(js: &Js, values: &[f64]) -> JsResult<Value> {
    let (mut data, mut buffer, mut array) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    let bytes = std::mem::size_of_val(values);
    // SAFETY: creates values in the current scope; `data` has room for `bytes`.
    js.check(
        unsafe { sys::napi_create_arraybuffer(js.env, bytes, &mut data, &mut buffer) },
        "creating a buffer",
    )?;
    if bytes > 0 {
        unsafe { ptr::copy_nonoverlapping(values.as_ptr(), data.cast::<f64>(), values.len()) };
    }
    js.check(
        unsafe {
            sys::napi_create_typedarray(
                js.env,
                sys::TypedarrayType::float64_array,
                values.len(),
                buffer,
                0,
                &mut array,
            )
        },
        "creating a Float64Array",
    )?;
    Ok(array)
}

/// Which adapter a `decide` callback runs.
#[derive(Clone, Copy)]
enum Adapter {
    Acp,
    Jsonl,
}

/// The rule over the snapshot the front took: the rows' plan, or `undefined` for the
/// plain entry point to do the call.
fn decide(js: &Js, adapter: Adapter, args: [Value; 10]) -> JsResult<Value> {
    let [columns, kinds, tags, numbers, starts, elements, element_kinds, count, _items, options] = args;
    if !js.state.mechanics.get() {
        return js.undefined();
    }
    use sys::TypedarrayType as T;
    let (Some(kinds), Some(tags), Some(numbers), Some(starts), Some(element_kinds)) = (
        typed::<u8>(js, kinds, T::uint8_array)?,
        typed::<u8>(js, tags, T::uint8_array)?,
        typed::<f64>(js, numbers, T::float64_array)?,
        typed::<i32>(js, starts, T::int32_array)?,
        typed::<u8>(js, element_kinds, T::uint8_array)?,
    ) else {
        return Err(JsError::Internal("a snapshot of the wrong shape".into()));
    };
    let plan = match adapter {
        Adapter::Acp => &ACP,
        Adapter::Jsonl => &JSONL,
    };
    let count = js.number(count)? as usize;
    let width = plan.fields.len() + 1;
    let snapshot = Snapshot {
        js,
        plan,
        count,
        width,
        main: count * width,
        kinds,
        tags,
        numbers,
        starts,
        element_kinds,
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
        Ok((rows, now)) => match encode(&snapshot, &rows, now) {
            Some(plan) => float64_array(js, &plan),
            None => js.undefined(),
        },
        Err(Bail::Bail) => js.undefined(),
        Err(Bail::Js(error)) => Err(error),
    }
}

unsafe extern "C" fn decide_acp(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { decide_call(env, info, "adaptACPMessages", Adapter::Acp) }
}

unsafe extern "C" fn decide_jsonl(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { decide_call(env, info, "adaptJSONLMessages", Adapter::Jsonl) }
}

unsafe fn decide_call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    name: &str,
    adapter: Adapter,
) -> sys::napi_value {
    let Some((args, data)) = (unsafe { arguments::<10>(env, info) }) else {
        return ptr::null_mut();
    };
    unsafe { entry::run(env, data, name, &[], |js| decide(js, adapter, args)) }.unwrap_or(ptr::null_mut())
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
        for field in plan.fields {
            keys.push(js.ascii_string(field.key.name())?);
            parents.push(js.create_number(field.parent.map_or(-1.0, |p| p as f64))?);
            reads.push(js.create_number(field.read as f64)?);
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
            js.ascii_string(plan.list_key.name())?,
            js.array(&tags)?,
            names,
        ];
        let this = js.undefined()?;
        let mut front = ptr::null_mut();
        js.check(
            unsafe {
                sys::napi_call_function(env, this, make, arguments.len(), arguments.as_ptr(), &mut front)
            },
            "making a reader",
        )?;
        js.check(
            unsafe { sys::napi_set_named_property(env, exports, name.as_ptr(), front) },
            "installing a reader",
        )?;
    }
    Ok(())
}
