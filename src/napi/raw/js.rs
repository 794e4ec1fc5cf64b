//! A thin, checked layer over the raw N-API calls the hot paths use.
//!
//! The drop-in entry points are raw callbacks (see `entry.rs`), so they talk to N-API
//! directly. Everything here keeps JavaScript values as `napi_value` handles: strings are
//! never copied into Rust, so they stay exact to the UTF-16 unit and V8 concatenates them
//! (as ropes) in linear time.

use std::cell::Cell;
use std::ffi::{c_void, CStr, CString};
use std::ptr;

use napi::sys;

use crate::decode::ValueType;

/// A failed call: either a JavaScript exception is already pending (a throwing getter, a
/// throwing `idFactory`), or one is to be thrown.
#[derive(Debug)]
pub enum JsError {
    Pending,
    /// A ready-made JavaScript value to throw as it is.
    Throw(sys::napi_value),
    Type(String),
    /// Input or output beyond a limit of the engine (a string longer than V8 can hold):
    /// a `RangeError`, as V8's own.
    Range(String),
    Internal(String),
    /// Bad input at a place in a byte stream or file: an `Error` with `offset` and `line`
    /// (when known) and a `code` (for a file that could not be read). The message is
    /// used as it is.
    Located {
        message: String,
        offset: Option<u64>,
        line: Option<u64>,
        code: Option<&'static str>,
    },
}

impl From<crate::decode::InvalidEvent> for JsError {
    fn from(e: crate::decode::InvalidEvent) -> Self {
        JsError::Type(e.to_string())
    }
}

pub type JsResult<T> = Result<T, JsError>;

/// The strings the binding reads and writes, created once per environment. Those up to
/// `Push` are handed to the drop-in on every call (see [`GIVEN`]): the names its native
/// side still reads or writes itself once the compiled front has read the event's
/// fields; the event fields the front reads come after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Interned {
    Type,
    Text,
    Delta,
    Metadata,
    Stream,
    Data,
    Thinking,
    ToolBatch,
    Calls,
    ShellOutput,
    Stdout,
    Stderr,
    Length,
    Push,
    ToolCall,
    Id,
    ToolName,
    Arguments,
    ToolResult,
    ToolCallId,
    Result,
    IsError,
    Error,
    StatusCode,
    Message,
    ModelId,
    KeyId,
    TurnId,
    System,
    Kind,
    Role,
    Chunks,
    MessageId,
    Framing,
    Content,
    Locations,
    Now,
    Parts,
    RawInput,
    RawOutput,
    SessionUpdate,
    Status,
    Timestamp,
    Title,
    Update,
    Uuid,
    DisplayText,
    Entries,
    HookContext,
    SystemPayload,
    Jsonrpc,
    Method,
    Params,
    IsFirst,
    IsLast,
    User,
    Assistant,
    ToolCallRow,
    TextDeltaType,
    ReasoningDeltaType,
    ToolCallType,
    ToolResultType,
    InProgressToolCall,
    CompletedToolCall,
    Pending,
    InProgress,
    Completed,
    Failed,
    Other,
    MsgPrefix,
    ToolPrefix,
    Dash,
    Empty,
}

impl Interned {
    pub(in crate::napi) const COUNT: usize = Interned::Empty as usize + 1;
    pub(in crate::napi) const ALL: [Interned; Interned::COUNT] = [
        Interned::Type,
        Interned::Text,
        Interned::Delta,
        Interned::Metadata,
        Interned::Stream,
        Interned::Data,
        Interned::Thinking,
        Interned::ToolBatch,
        Interned::Calls,
        Interned::ShellOutput,
        Interned::Stdout,
        Interned::Stderr,
        Interned::Length,
        Interned::Push,
        Interned::ToolCall,
        Interned::Id,
        Interned::ToolName,
        Interned::Arguments,
        Interned::ToolResult,
        Interned::ToolCallId,
        Interned::Result,
        Interned::IsError,
        Interned::Error,
        Interned::StatusCode,
        Interned::Message,
        Interned::ModelId,
        Interned::KeyId,
        Interned::TurnId,
        Interned::System,
        Interned::Kind,
        Interned::Role,
        Interned::Chunks,
        Interned::MessageId,
        Interned::Framing,
        Interned::Content,
        Interned::Locations,
        Interned::Now,
        Interned::Parts,
        Interned::RawInput,
        Interned::RawOutput,
        Interned::SessionUpdate,
        Interned::Status,
        Interned::Timestamp,
        Interned::Title,
        Interned::Update,
        Interned::Uuid,
        Interned::DisplayText,
        Interned::Entries,
        Interned::HookContext,
        Interned::SystemPayload,
        Interned::Jsonrpc,
        Interned::Method,
        Interned::Params,
        Interned::IsFirst,
        Interned::IsLast,
        Interned::User,
        Interned::Assistant,
        Interned::ToolCallRow,
        Interned::TextDeltaType,
        Interned::ReasoningDeltaType,
        Interned::ToolCallType,
        Interned::ToolResultType,
        Interned::InProgressToolCall,
        Interned::CompletedToolCall,
        Interned::Pending,
        Interned::InProgress,
        Interned::Completed,
        Interned::Failed,
        Interned::Other,
        Interned::MsgPrefix,
        Interned::ToolPrefix,
        Interned::Dash,
        Interned::Empty,
    ];

    fn text(self) -> &'static str {
        match self {
            Interned::Type => "type",
            Interned::Text => "text",
            Interned::Delta => "delta",
            Interned::Metadata => "metadata",
            Interned::ToolCall => "toolCall",
            Interned::Id => "id",
            Interned::ToolName => "name",
            Interned::Arguments => "arguments",
            Interned::ToolResult => "toolResult",
            Interned::ToolCallId => "toolCallId",
            Interned::Result => "result",
            Interned::IsError => "isError",
            Interned::Stream => "stream",
            Interned::Data => "data",
            Interned::Error => "error",
            Interned::StatusCode => "statusCode",
            Interned::Message => "message",
            Interned::ModelId => "modelId",
            Interned::KeyId => "keyId",
            Interned::TurnId => "turnId",
            Interned::Thinking => "thinking",
            Interned::ToolBatch => "tool-batch",
            Interned::Calls => "calls",
            Interned::ShellOutput => "shellOutput",
            Interned::Stdout => "stdout",
            Interned::Stderr => "stderr",
            Interned::System => "system",
            Interned::Kind => "kind",
            Interned::Role => "role",
            Interned::Chunks => "chunks",
            Interned::MessageId => "messageId",
            Interned::Length => "length",
            Interned::Push => "push",
            Interned::Framing => "framing",
            Interned::Content => "content",
            Interned::Locations => "locations",
            Interned::Now => "now",
            Interned::Parts => "parts",
            Interned::RawInput => "rawInput",
            Interned::RawOutput => "rawOutput",
            Interned::SessionUpdate => "sessionUpdate",
            Interned::Status => "status",
            Interned::Timestamp => "timestamp",
            Interned::Title => "title",
            Interned::Update => "update",
            Interned::Uuid => "uuid",
            Interned::DisplayText => "displayText",
            Interned::Entries => "entries",
            Interned::HookContext => "hookContext",
            Interned::SystemPayload => "systemPayload",
            Interned::Jsonrpc => "jsonrpc",
            Interned::Method => "method",
            Interned::Params => "params",
            Interned::IsFirst => "isFirst",
            Interned::IsLast => "isLast",
            Interned::User => "user",
            Interned::Assistant => "assistant",
            Interned::ToolCallRow => "tool_call",
            Interned::TextDeltaType => "text-delta",
            Interned::ReasoningDeltaType => "reasoning-delta",
            Interned::ToolCallType => "tool-call",
            Interned::ToolResultType => "tool-result",
            Interned::InProgressToolCall => "in-progress-tool-call",
            Interned::CompletedToolCall => "completed-tool-call",
            Interned::Pending => "pending",
            Interned::InProgress => "in_progress",
            Interned::Completed => "completed",
            Interned::Failed => "failed",
            Interned::Other => "other",
            Interned::MsgPrefix => "msg-",
            Interned::ToolPrefix => "tool-",
            Interned::Dash => "-",
            Interned::Empty => "",
        }
    }
}

/// Per-environment state: one persistent reference to an array holding the interned
/// names (Node 20 cannot reference a string directly) followed by
/// `String.prototype.concat`. One per Node environment (main thread, each worker).
pub struct State {
    env: sys::napi_env,
    holder: sys::napi_ref,
    /// Whether `mechanics.js` compiled. Where code from text may not run (a page whose
    /// Content Security Policy forbids `eval`, which the WebAssembly build's
    /// `napi_run_script` uses), the same work is done through built-ins taken at load
    /// (`Object.assign`, `Array.prototype.push`), with the same refusals (see `mechanics.rs`).
    pub(in crate::napi) compiled: bool,
    /// Whether the compiled mechanics are used: `compiled`, unless a test asked for the
    /// built-ins (`__mechanicsForTest`).
    pub(in crate::napi) mechanics: Cell<bool>,
}

/// The built-in functions the binding calls, kept in the holder array after the names
/// (as found at load time, so later changes to the globals do not reach them).
const BUILTINS: [(u32, &[&std::ffi::CStr]); 8] = [
    (CONCAT, &[c"String", c"prototype", c"concat"]),
    (IS_ARRAY, &[c"Array", c"isArray"]),
    (JSON_PARSE, &[c"JSON", c"parse"]),
    (DATE, &[c"Date"]),
    (DATE_NOW, &[c"Date", c"now"]),
    (SET_IMMEDIATE, &[c"setImmediate"]),
    (OBJECT_ASSIGN, &[c"Object", c"assign"]),
    (ARRAY_PUSH, &[c"Array", c"prototype", c"push"]),
];
const CONCAT: u32 = Interned::COUNT as u32;
const IS_ARRAY: u32 = CONCAT + 1;
const JSON_PARSE: u32 = CONCAT + 2;
const DATE: u32 = CONCAT + 3;
const DATE_NOW: u32 = CONCAT + 4;
const SET_IMMEDIATE: u32 = CONCAT + 5;
pub(in crate::napi) const OBJECT_ASSIGN: u32 = CONCAT + 6;
pub(in crate::napi) const ARRAY_PUSH: u32 = CONCAT + 7;
/// Where the compiled functions of `mechanics.js` start in the holder array.
pub(in crate::napi) const MECHANICS_SLOT: u32 = CONCAT + 8;
/// The end of the names, built-ins and compiled functions the drop-in uses.
pub(in crate::napi) const TABLE_END: u32 = MECHANICS_SLOT + 10;
/// `makeAppend` of `mechanics.js`, used once per environment at load.
pub(in crate::napi) const MAKE_APPEND: u32 = TABLE_END;
/// `pushed` of `mechanics.js`, for `Conversation` (not given to the drop-in).
pub(in crate::napi) const PUSHED: u32 = TABLE_END + 1;

/// The table entries the drop-in is handed as arguments on every call (see
/// `mechanics.js`): the names up to `push`, the empty string, the built-ins and the
/// compiled functions. Reading one from the held array costs an N-API call each (a
/// property lookup in V8), several per event; arguments cost nothing more to read.
pub(in crate::napi) const GIVEN: usize = Interned::Push as usize + 2 + (TABLE_END - CONCAT) as usize;

/// Where the table entry `index` is among the given arguments.
const fn given_position(index: u32) -> Option<usize> {
    if index <= Interned::Push as u32 {
        Some(index as usize)
    } else if index == Interned::Empty as u32 {
        Some(Interned::Push as usize + 1)
    } else if index >= CONCAT && index < TABLE_END {
        Some(Interned::Push as usize + 2 + (index - CONCAT) as usize)
    } else {
        None
    }
}

/// The table entries [`GIVEN`] names, in the order they are given.
pub(in crate::napi) fn given_slots() -> impl Iterator<Item = u32> {
    (0..=Interned::Push as u32)
        .chain([Interned::Empty as u32])
        .chain(CONCAT..TABLE_END)
}

/// The largest length a JavaScript array-like may have (2^53 - 1), as `ToLength` clamps.
pub const MAX_LENGTH: f64 = 9_007_199_254_740_991.0;

pub(in crate::napi) fn check(status: sys::napi_status, env: sys::napi_env, what: &str) -> JsResult<()> {
    if status == sys::Status::napi_ok {
        return Ok(());
    }
    let mut pending = false;
    // SAFETY: `env` is the live environment of the current call.
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    if pending {
        Err(JsError::Pending)
    } else {
        Err(JsError::Internal(format!(
            "{what} failed with N-API status {status}"
        )))
    }
}

impl State {
    /// Creates the state for `env`.
    ///
    /// # Safety
    /// `env` must be a live environment on the current thread.
    /// `compile` compiles the functions the binding runs inside V8 into the table (see
    /// `mechanics.rs`); whether it could is kept.
    pub unsafe fn new(
        env: sys::napi_env,
        compile: unsafe fn(sys::napi_env, Value) -> JsResult<bool>,
    ) -> JsResult<Box<State>> {
        // A packed array (filled in order from empty): the fastest element reads.
        let mut holder = ptr::null_mut();
        check(
            unsafe { sys::napi_create_array(env, &mut holder) },
            env,
            "creating the name table",
        )?;
        // Property keys must be internalized strings, or V8 looks each one up in its
        // string table on every access. Keys set by `napi_set_named_property` are, and
        // `napi_get_property_names` hands them back.
        let mut keyed = ptr::null_mut();
        check(
            unsafe { sys::napi_create_object(env, &mut keyed) },
            env,
            "creating the name table",
        )?;
        for name in Interned::ALL {
            let key = CString::new(name.text()).map_err(|e| JsError::Internal(e.to_string()))?;
            check(
                unsafe { sys::napi_set_named_property(env, keyed, key.as_ptr(), keyed) },
                env,
                "interning a name",
            )?;
        }
        let mut keys = ptr::null_mut();
        check(
            unsafe { sys::napi_get_property_names(env, keyed, &mut keys) },
            env,
            "reading the interned names",
        )?;
        for name in Interned::ALL {
            let mut value = ptr::null_mut();
            check(
                unsafe { sys::napi_get_element(env, keys, name as u32, &mut value) },
                env,
                "reading an interned name",
            )?;
            check(
                unsafe { sys::napi_set_element(env, holder, name as u32, value) },
                env,
                "storing a name",
            )?;
        }
        let mut global = ptr::null_mut();
        check(
            unsafe { sys::napi_get_global(env, &mut global) },
            env,
            "reading the global object",
        )?;
        for (slot, path) in BUILTINS {
            let mut value = global;
            for key in path {
                value = unsafe { get_named(env, value, key)? };
            }
            check(
                unsafe { sys::napi_set_element(env, holder, slot, value) },
                env,
                "storing a built-in function",
            )?;
        }
        let compiled = unsafe { compile(env, holder)? };
        let mut reference = ptr::null_mut();
        check(
            unsafe { sys::napi_create_reference(env, holder, 1, &mut reference) },
            env,
            "referencing the name table",
        )?;
        Ok(Box::new(State {
            env,
            holder: reference,
            compiled,
            mechanics: Cell::new(compiled),
        }))
    }

    /// Releases the reference.
    ///
    /// # Safety
    /// The environment the state was created in must still be alive (an environment
    /// cleanup hook is the place).
    pub unsafe fn release(&self) {
        unsafe { sys::napi_delete_reference(self.env, self.holder) };
    }
}

pub(in crate::napi) unsafe fn get_named(
    env: sys::napi_env,
    object: sys::napi_value,
    key: &std::ffi::CStr,
) -> JsResult<sys::napi_value> {
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_get_named_property(env, object, key.as_ptr(), &mut value) },
        env,
        "reading a global",
    )?;
    Ok(value)
}

/// The environment of one call, with the names it has already materialised.
pub struct Js<'s> {
    pub env: sys::napi_env,
    pub(in crate::napi) state: &'s State,
    holder: Cell<sys::napi_value>,
    /// Names already read from the table in this call (null: not yet).
    names: [Cell<sys::napi_value>; Interned::COUNT],
    /// The table entries this call was given as arguments ([`GIVEN`] of them), or null.
    given: *const Value,
}

pub type Value = sys::napi_value;

impl<'s> Js<'s> {
    /// # Safety
    /// `env` must be the live environment of the current callback and `state` its state.
    pub unsafe fn new(env: sys::napi_env, state: &'s State) -> Self {
        Js {
            env,
            state,
            holder: Cell::new(ptr::null_mut()),
            names: [const { Cell::new(ptr::null_mut()) }; Interned::COUNT],
            given: ptr::null(),
        }
    }

    /// Makes `given` (the table entries [`given_slots`] lists, in that order) the source
    /// of those entries for this call.
    ///
    /// # Safety
    /// `given` must hold values of the current callback and outlive this `Js`.
    pub unsafe fn with_given(mut self, given: &[Value]) -> Self {
        if given.len() == GIVEN {
            self.given = given.as_ptr();
        }
        self
    }

    /// Whether the mechanics (`mechanics.js`) are compiled in this environment.
    pub(in crate::napi) fn compiled(&self) -> bool {
        self.state.mechanics.get()
    }

    pub(in crate::napi) fn check(&self, status: sys::napi_status, what: &str) -> JsResult<()> {
        check(status, self.env, what)
    }

    /// The `index`th entry of the name table.
    pub(in crate::napi) fn table(&self, index: u32) -> JsResult<Value> {
        if !self.given.is_null() {
            if let Some(position) = given_position(index) {
                // SAFETY: `with_given` made `given` point at GIVEN values of this call.
                return Ok(unsafe { *self.given.add(position) });
            }
        }
        let mut holder = self.holder.get();
        if holder.is_null() {
            // SAFETY: the reference belongs to this environment and lives as long as the state.
            self.check(
                unsafe { sys::napi_get_reference_value(self.env, self.state.holder, &mut holder) },
                "reading the name table",
            )?;
            self.holder.set(holder);
        }
        self.element(holder, index as usize)
    }

    /// The interned JavaScript string for `name`.
    pub fn name(&self, name: Interned) -> JsResult<Value> {
        let slot = &self.names[name as usize];
        if slot.get().is_null() {
            slot.set(self.table(name as u32)?);
        }
        Ok(slot.get())
    }

    /// `object[key]`; `undefined` when `object` is `null` or `undefined` (which callers
    /// check for only when it matters, off the hot path).
    pub fn get(&self, object: Value, key: Interned) -> JsResult<Value> {
        let key = self.name(key)?;
        let mut value = ptr::null_mut();
        // SAFETY: all handles belong to the current scope.
        let status = unsafe { sys::napi_get_property(self.env, object, key, &mut value) };
        if status == sys::Status::napi_object_expected {
            // V8 threw while converting null/undefined to an object; that is not the
            // caller's exception, so drop it.
            self.clear_exception()?;
            return self.undefined();
        }
        if status == sys::Status::napi_pending_exception {
            // emnapi (the WebAssembly build) throws a TypeError for null/undefined where
            // Node returns the status above: drop that one, keep a getter's own.
            let mut exception = ptr::null_mut();
            // SAFETY: `env` is live and an exception is pending.
            unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut exception) };
            if matches!(self.value_type(object)?, ValueType::Undefined | ValueType::Null) {
                return self.undefined();
            }
            // SAFETY: rethrows the exception just taken.
            unsafe { sys::napi_throw(self.env, exception) };
        }
        self.check(status, "reading a property")?;
        Ok(value)
    }

    /// The pending exception, cleared.
    pub fn take_exception(&self) -> JsResult<Value> {
        let mut exception = ptr::null_mut();
        // SAFETY: `env` is live.
        self.check(
            unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut exception) },
            "taking an exception",
        )?;
        Ok(exception)
    }

    fn clear_exception(&self) -> JsResult<()> {
        let mut exception = ptr::null_mut();
        // SAFETY: `env` is live; clearing with nothing pending is harmless.
        self.check(
            unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut exception) },
            "clearing an exception",
        )
    }

    pub fn set(&self, object: Value, key: Interned, value: Value) -> JsResult<()> {
        let key = self.name(key)?;
        // SAFETY: all handles belong to the current scope.
        self.check(
            unsafe { sys::napi_set_property(self.env, object, key, value) },
            "writing a property",
        )
    }

    /// `array[index]`, for any index an array-like may have (up to 2^53 - 2): indexes
    /// past the u32 range of `napi_get_element` are read as number keys, as JavaScript
    /// reads them.
    pub fn element(&self, array: Value, index: usize) -> JsResult<Value> {
        let mut value = ptr::null_mut();
        let status = match u32::try_from(index) {
            // SAFETY: all handles belong to the current scope.
            Ok(small) if small != u32::MAX => unsafe {
                sys::napi_get_element(self.env, array, small, &mut value)
            },
            _ => {
                let key = self.index_key(index)?;
                unsafe { sys::napi_get_property(self.env, array, key, &mut value) }
            }
        };
        self.check(status, "reading an element")?;
        Ok(value)
    }

    /// The property key for `index`: a number, which JavaScript turns into the same
    /// string key an index expression makes.
    pub fn index_key(&self, index: usize) -> JsResult<Value> {
        let mut key = ptr::null_mut();
        // SAFETY: creates a value in the current scope.
        let status = match u32::try_from(index) {
            Ok(small) => unsafe { sys::napi_create_uint32(self.env, small, &mut key) },
            Err(_) => unsafe { sys::napi_create_double(self.env, index as f64, &mut key) },
        };
        self.check(status, "creating an index")?;
        Ok(key)
    }

    /// Writes an element of an array this call created (nothing can refuse it).
    pub fn set_element(&self, array: Value, index: usize, value: Value) -> JsResult<()> {
        let index = u32::try_from(index).map_err(|_| JsError::Internal("index out of range".into()))?;
        // SAFETY: all handles belong to the current scope.
        self.check(
            unsafe { sys::napi_set_element(self.env, array, index, value) },
            "writing an element",
        )
    }

    /// `delete object[key]`, for undoing a write; whether it was deleted.
    pub fn delete(&self, object: Value, key: Value) -> JsResult<bool> {
        let mut deleted = false;
        // SAFETY: all handles belong to the current scope.
        self.check(
            unsafe { sys::napi_delete_property(self.env, object, key, &mut deleted) },
            "deleting a property",
        )?;
        Ok(deleted)
    }

    /// Whether `object` has an own property `key`.
    pub fn has_own(&self, object: Value, key: Interned) -> JsResult<bool> {
        let key = self.name(key)?;
        let mut result = false;
        // SAFETY: all handles belong to the current scope.
        self.check(
            unsafe { sys::napi_has_own_property(self.env, object, key, &mut result) },
            "testing an own property",
        )?;
        Ok(result)
    }

    /// The length of `value` if it is an array, as `Array.isArray` sees arrays: a
    /// `Proxy` of an array (a Vue or MobX reactive store) counts, and is read through it.
    pub fn array_len(&self, value: Value) -> JsResult<Option<usize>> {
        self.array_len_of(value, "")
    }

    /// [`Js::array_len`], naming the array `what` (when not empty) when a Proxy reports a
    /// length that no array can have (a string, a Symbol, a fraction, more than 2^53 - 1).
    pub fn array_len_of(&self, value: Value, what: &str) -> JsResult<Option<usize>> {
        // emnapi's `napi_get_array_length` (the WebAssembly build) takes a Proxy of an
        // array too and cuts its `length` to 32 bits (`>>> 0`), so that a Proxy reporting
        // 2^32 would be written at index 0: there the length is read as below.
        if cfg!(not(target_arch = "wasm32")) {
            let mut len = 0u32;
            // SAFETY: `value` belongs to the current scope.
            let status = unsafe { sys::napi_get_array_length(self.env, value, &mut len) };
            if status != sys::Status::napi_array_expected {
                self.check(status, "reading an array length")?;
                return Ok(Some(len as usize));
            }
        }
        if !self.is_array(value)? {
            return Ok(None);
        }
        let length = self.get(value, Interned::Length)?;
        self.length_of(length, what).map(Some)
    }

    /// The `length` read from an array, checked as [`Js::array_len_of`] checks it.
    pub fn length_of(&self, length: Value, what: &str) -> JsResult<usize> {
        let number = match self.value_type(length)? {
            ValueType::Number => self.number(length)?,
            _ => f64::NAN,
        };
        let whose = || match what {
            "" => "an array's \"length\" is".to_string(),
            what => format!("{what} is an array whose \"length\" is"),
        };
        if number.fract() != 0.0 || !(0.0..=MAX_LENGTH).contains(&number) {
            return Err(JsError::Type(format!(
                "{} {}, not a whole number from 0 to 2^53 - 1",
                whose(),
                self.describe(length)?
            )));
        }
        if number > usize::MAX as f64 {
            // Only where indexes are 32 bits wide (WebAssembly), and only for an array-like
            // (a Proxy): a real array is never longer than 2^32 - 1.
            return Err(JsError::Range(format!(
                "{} {number}, more than the WebAssembly build can index (2^32 - 1)",
                whose()
            )));
        }
        Ok(number as usize)
    }

    /// `Array.isArray(value)`: true for arrays and Proxies of arrays.
    pub fn is_array(&self, value: Value) -> JsResult<bool> {
        let mut is_array = false;
        // SAFETY: `value` belongs to the current scope.
        self.check(
            unsafe { sys::napi_is_array(self.env, value, &mut is_array) },
            "isArray",
        )?;
        if is_array || !self.is_object(value)? {
            return Ok(is_array);
        }
        let is_array = self.table(IS_ARRAY)?;
        let this = self.undefined()?;
        let mut verdict = ptr::null_mut();
        let mut proxied_array = false;
        // SAFETY: `is_array` is Array.isArray, called with one argument (it throws for a
        // revoked Proxy, as it does in JavaScript).
        self.check(
            unsafe { sys::napi_call_function(self.env, this, is_array, 1, &value, &mut verdict) },
            "Array.isArray",
        )?;
        self.check(
            unsafe { sys::napi_get_value_bool(self.env, verdict, &mut proxied_array) },
            "reading a boolean",
        )?;
        Ok(proxied_array)
    }

    /// What a value is, for an error message: `NaN`, `Infinity`, `-0.5`, `a string ("3")`,
    /// `a bigint (3n)`, `a symbol`, `null`, `an object`…
    pub fn describe(&self, value: Value) -> JsResult<String> {
        Ok(match self.value_type(value)? {
            ValueType::Number => {
                let number = self.number(value)?;
                if number.is_nan() {
                    "NaN".into()
                } else if number.is_infinite() {
                    if number > 0.0 { "Infinity" } else { "-Infinity" }.into()
                } else {
                    format!("the number {number}")
                }
            }
            ValueType::String => {
                let mut units = Vec::new();
                self.utf16_into(value, &mut units)?;
                let text = String::from_utf16_lossy(&units[..units.len().min(40)]);
                let more = if units.len() > 40 { "…" } else { "" };
                format!("a string ({text:?}{more})")
            }
            ValueType::BigInt => "a bigint".into(),
            ValueType::Symbol => "a symbol".into(),
            ValueType::Boolean => format!("the boolean {}", self.truthy(value)?),
            ValueType::Array => "an array".into(),
            ValueType::Object => "an object".into(),
            ValueType::Function => "a function".into(),
            ValueType::Undefined => "undefined".into(),
            ValueType::Null => "null".into(),
        })
    }

    pub fn value_type(&self, value: Value) -> JsResult<ValueType> {
        let mut ty = 0;
        // SAFETY: `value` belongs to the current scope.
        self.check(unsafe { sys::napi_typeof(self.env, value, &mut ty) }, "typeof")?;
        use sys::ValueType as T;
        Ok(match ty {
            T::napi_undefined => ValueType::Undefined,
            T::napi_null => ValueType::Null,
            T::napi_boolean => ValueType::Boolean,
            T::napi_number => ValueType::Number,
            T::napi_string => ValueType::String,
            T::napi_symbol => ValueType::Symbol,
            T::napi_function => ValueType::Function,
            T::napi_bigint => ValueType::BigInt,
            _ => {
                let mut is_array = false;
                // SAFETY: as above.
                self.check(
                    unsafe { sys::napi_is_array(self.env, value, &mut is_array) },
                    "isArray",
                )?;
                if is_array {
                    ValueType::Array
                } else {
                    ValueType::Object
                }
            }
        })
    }

    /// Whether property reads on `value` reach an object (not a primitive or a hole).
    pub fn is_object(&self, value: Value) -> JsResult<bool> {
        let mut ty = 0;
        // SAFETY: `value` belongs to the current scope.
        self.check(unsafe { sys::napi_typeof(self.env, value, &mut ty) }, "typeof")?;
        Ok(ty == sys::ValueType::napi_object || ty == sys::ValueType::napi_function)
    }

    /// Whether `value` is the boolean `true` (one call, no conversion).
    pub fn is_true(&self, value: Value) -> bool {
        let mut result = false;
        // SAFETY: `value` belongs to the current scope; a non-boolean leaves `false`.
        let status = unsafe { sys::napi_get_value_bool(self.env, value, &mut result) };
        status == sys::Status::napi_ok && result
    }

    /// JavaScript truthiness.
    pub fn truthy(&self, value: Value) -> JsResult<bool> {
        if self.is_object(value)? {
            return Ok(true);
        }
        let mut boolean = ptr::null_mut();
        let mut result = false;
        // SAFETY: `value` belongs to the current scope.
        self.check(
            unsafe { sys::napi_coerce_to_bool(self.env, value, &mut boolean) },
            "coercing to boolean",
        )?;
        self.check(
            unsafe { sys::napi_get_value_bool(self.env, boolean, &mut result) },
            "reading a boolean",
        )?;
        Ok(result)
    }

    /// The string `value` as ASCII bytes, for comparing with known tags. `None` when
    /// `value` is not a string; an empty slice when it is too long to be a known tag or
    /// not ASCII (no known tag is either).
    pub fn tag<'b>(&self, value: Value, buf: &'b mut [u8; 32]) -> JsResult<Option<&'b [u8]>> {
        let mut units = [0u16; 32];
        let mut written = 0usize;
        // SAFETY: `units` is writable for its length; `value` belongs to the current scope.
        let status = unsafe {
            sys::napi_get_value_string_utf16(self.env, value, units.as_mut_ptr(), units.len(), &mut written)
        };
        if status == sys::Status::napi_string_expected {
            return Ok(None);
        }
        self.check(status, "reading a string")?;
        // A string that fills the buffer may have been cut short; no tag is that long.
        if written >= units.len() - 1 || units[..written].iter().any(|&u| u >= 0x80) {
            return Ok(Some(&[]));
        }
        for (byte, unit) in buf.iter_mut().zip(&units[..written]) {
            *byte = *unit as u8;
        }
        Ok(Some(&buf[..written]))
    }

    pub fn strict_equals(&self, a: Value, b: Value) -> JsResult<bool> {
        let mut equal = false;
        // SAFETY: both handles belong to the current scope.
        self.check(
            unsafe { sys::napi_strict_equals(self.env, a, b, &mut equal) },
            "===",
        )?;
        Ok(equal)
    }

    pub fn number(&self, value: Value) -> JsResult<f64> {
        let mut number = 0f64;
        // SAFETY: `value` belongs to the current scope.
        self.check(
            unsafe { sys::napi_get_value_double(self.env, value, &mut number) },
            "reading a number",
        )?;
        Ok(number)
    }

    pub fn create_number(&self, number: f64) -> JsResult<Value> {
        let mut value = ptr::null_mut();
        // SAFETY: creates a value in the current scope.
        self.check(
            unsafe { sys::napi_create_double(self.env, number, &mut value) },
            "creating a number",
        )?;
        Ok(value)
    }

    /// A new object with `fields` set in order (JavaScript keeps insertion order).
    ///
    /// The properties are defined in one call, as an object literal defines them (no
    /// setter on `Object.prototype` is run).
    pub fn object(&self, fields: &[(Interned, Value)]) -> JsResult<Value> {
        let descriptors = fields
            .iter()
            .map(|&(key, value)| Ok(data_property(ptr::null(), self.name(key)?, value)))
            .collect::<JsResult<Vec<_>>>()?;
        self.define(&descriptors)
    }

    /// [`Js::object`] with keys given as text (names the table does not hold).
    pub fn object_named(&self, fields: &[(&CStr, Value)]) -> JsResult<Value> {
        let descriptors: Vec<_> = fields
            .iter()
            .map(|&(key, value)| data_property(key.as_ptr(), ptr::null_mut(), value))
            .collect();
        self.define(&descriptors)
    }

    /// `{ [key]: value }`, a fresh object with one own data property (defined, so no
    /// setter on `Object.prototype` runs); `key` a string or a symbol.
    pub(in crate::napi) fn object_with(&self, key: Value, value: Value) -> JsResult<Value> {
        self.define(&[data_property(ptr::null(), key, value)])
    }

    /// A new object with `descriptors` defined in one call.
    fn define(&self, descriptors: &[sys::napi_property_descriptor]) -> JsResult<Value> {
        let mut object = ptr::null_mut();
        // SAFETY: creates a value in the current scope.
        self.check(
            unsafe { sys::napi_create_object(self.env, &mut object) },
            "creating an object",
        )?;
        // SAFETY: the descriptors name values of the current scope.
        self.check(
            unsafe { sys::napi_define_properties(self.env, object, descriptors.len(), descriptors.as_ptr()) },
            "defining properties",
        )?;
        Ok(object)
    }

    pub fn array(&self, items: &[Value]) -> JsResult<Value> {
        let mut array = ptr::null_mut();
        // SAFETY: creates a value in the current scope.
        self.check(
            unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut array) },
            "creating an array",
        )?;
        for (index, &item) in items.iter().enumerate() {
            self.set_element(array, index, item)?;
        }
        Ok(array)
    }

    pub fn undefined(&self) -> JsResult<Value> {
        let mut value = ptr::null_mut();
        // SAFETY: reads a singleton in the current scope.
        self.check(
            unsafe { sys::napi_get_undefined(self.env, &mut value) },
            "undefined",
        )?;
        Ok(value)
    }

    /// The string's UTF-16 units, appended to `out` (lone surrogates kept).
    pub fn utf16_into(&self, value: Value, out: &mut Vec<u16>) -> JsResult<()> {
        let mut len = 0usize;
        // SAFETY: a null buffer asks for the length only.
        self.check(
            unsafe { sys::napi_get_value_string_utf16(self.env, value, ptr::null_mut(), 0, &mut len) },
            "measuring a string",
        )?;
        let start = out.len();
        out.resize(start + len + 1, 0);
        let mut written = 0usize;
        // SAFETY: `out[start..]` has room for `len` units and the terminator.
        self.check(
            unsafe {
                sys::napi_get_value_string_utf16(
                    self.env,
                    value,
                    out[start..].as_mut_ptr(),
                    len + 1,
                    &mut written,
                )
            },
            "reading a string",
        )?;
        out.truncate(start + written);
        Ok(())
    }

    pub fn create_utf16(&self, units: &[u16]) -> JsResult<Value> {
        let mut value = ptr::null_mut();
        // SAFETY: `units` is valid for its length.
        self.check(
            unsafe {
                sys::napi_create_string_utf16(self.env, units.as_ptr(), units.len() as isize, &mut value)
            },
            "creating a string",
        )?;
        Ok(value)
    }

    /// `a + b` for a string `b`, as JavaScript evaluates it. Strings are joined by V8
    /// (`String.prototype.concat`), which makes a rope instead of copying `a`.
    pub fn plus(&self, a: Value, b: Value) -> JsResult<Value> {
        // `+` takes an object's primitive value first, asking for none in particular
        // (`concat` would ask for a string: `toString` before `valueOf`).
        let a = match self.value_type(a)? {
            ValueType::Object | ValueType::Function => self.primitive(a)?,
            _ => a,
        };
        let concat = self.table(CONCAT)?;
        let mut joined = ptr::null_mut();
        // SAFETY: `concat` is String.prototype.concat, called with one string argument.
        let status = unsafe { sys::napi_call_function(self.env, a, concat, 1, &b, &mut joined) };
        if status == sys::Status::napi_ok {
            // On a string, `concat` is `+`; on numbers, booleans, bigints and objects it
            // converts `this` with ToString just as `+` does with a string operand.
            return Ok(joined);
        }
        // `concat` refuses `null` and `undefined` as `this`, where `+` gives
        // "null…" / "undefined…"; any other failure is the value's own exception.
        match self.value_type(a) {
            Ok(ValueType::Undefined | ValueType::Null) => {
                self.clear_exception()?;
                let mut text = ptr::null_mut();
                // SAFETY: `a` belongs to the current scope.
                self.check(
                    unsafe { sys::napi_coerce_to_string(self.env, a, &mut text) },
                    "converting to a string",
                )?;
                self.check(
                    unsafe { sys::napi_call_function(self.env, text, concat, 1, &b, &mut joined) },
                    "joining strings",
                )?;
                Ok(joined)
            }
            _ => self.check(status, "joining strings").map(|()| joined),
        }
    }
    /// An object's primitive value as `+` takes it (ToPrimitive with no hint): its
    /// `Symbol.toPrimitive` given `"default"`, else `valueOf`, else `toString`, the first
    /// that answers one; else V8's `TypeError`. A `Symbol.toPrimitive` that is not a
    /// function is left to `concat`, which throws what `+` throws.
    fn primitive(&self, object: Value) -> JsResult<Value> {
        const REFUSED: &std::ffi::CStr = c"Cannot convert object to primitive value";
        let refused = || {
            // SAFETY: `env` is live; the message is a C string.
            unsafe { sys::napi_throw_type_error(self.env, ptr::null(), REFUSED.as_ptr()) };
            JsError::Pending
        };
        let mut global = ptr::null_mut();
        // SAFETY: `env` is live.
        self.check(
            unsafe { sys::napi_get_global(self.env, &mut global) },
            "reading a global",
        )?;
        // SAFETY: `global` and what is read from it belong to the current scope.
        let symbol = unsafe { get_named(self.env, get_named(self.env, global, c"Symbol")?, c"toPrimitive")? };
        let mut exotic = ptr::null_mut();
        // SAFETY: all handles belong to the current scope; `object` is an object.
        self.check(
            unsafe { sys::napi_get_property(self.env, object, symbol, &mut exotic) },
            "reading a property",
        )?;
        let call = |function: Value, args: &[Value]| -> JsResult<Value> {
            let mut result = ptr::null_mut();
            // SAFETY: all handles belong to the current scope.
            self.check(
                unsafe {
                    sys::napi_call_function(
                        self.env,
                        object,
                        function,
                        args.len(),
                        args.as_ptr(),
                        &mut result,
                    )
                },
                "calling a function",
            )?;
            Ok(result)
        };
        let is_object = |value: Value| -> JsResult<bool> {
            Ok(matches!(
                self.value_type(value)?,
                ValueType::Object | ValueType::Function
            ))
        };
        match self.value_type(exotic)? {
            ValueType::Undefined | ValueType::Null => {}
            ValueType::Function => {
                let result = call(exotic, &[self.ascii_string("default")?])?;
                return if is_object(result)? {
                    Err(refused())
                } else {
                    Ok(result)
                };
            }
            _ => return Ok(object),
        }
        for name in [c"valueOf", c"toString"] {
            // SAFETY: `object` is an object of the current scope.
            let method = unsafe { get_named(self.env, object, name)? };
            if self.value_type(method)? == ValueType::Function {
                let result = call(method, &[])?;
                if !is_object(result)? {
                    return Ok(result);
                }
            }
        }
        Err(refused())
    }

    /// A string's text as UTF-8 (lone surrogates become U+FFFD, as `Buffer.from` makes them).
    pub fn utf8(&self, value: Value) -> JsResult<String> {
        let mut len = 0usize;
        // SAFETY: a null buffer asks for the length; then the buffer has room for it.
        self.check(
            unsafe { sys::napi_get_value_string_utf8(self.env, value, ptr::null_mut(), 0, &mut len) },
            "measuring a string",
        )?;
        let mut bytes = vec![0u8; len + 1];
        self.check(
            unsafe {
                sys::napi_get_value_string_utf8(self.env, value, bytes.as_mut_ptr().cast(), len + 1, &mut len)
            },
            "reading a string",
        )?;
        bytes.truncate(len);
        String::from_utf8(bytes).map_err(|e| JsError::Internal(e.to_string()))
    }

    /// A JavaScript string of WTF-8 `text` (lone surrogates kept): ASCII, as most
    /// streamed deltas are, copied as it is; anything else through UTF-16.
    pub fn wtf8_string(&self, text: &crate::bytes::wtf8::Wtf8) -> JsResult<Value> {
        match text.as_bytes().is_ascii() {
            true => self.ascii_string(text.as_bytes()),
            false => self.create_utf16(&text.to_utf16()),
        }
    }

    /// A JavaScript string from ASCII text, made by copying (no decoding).
    pub fn ascii_string(&self, text: &(impl AsRef<[u8]> + ?Sized)) -> JsResult<Value> {
        let text = text.as_ref();
        debug_assert!(text.is_ascii());
        let mut value = ptr::null_mut();
        // ASCII is Latin-1 and UTF-8. emnapi (the WebAssembly build) makes a Latin-1 string
        // a character at a time and UTF-8 with `TextDecoder`; V8 copies Latin-1 as it is.
        #[cfg(target_family = "wasm")]
        let create = sys::napi_create_string_utf8;
        #[cfg(not(target_family = "wasm"))]
        let create = sys::napi_create_string_latin1;
        // SAFETY: `text` is valid for its length.
        let status = unsafe { create(self.env, text.as_ptr().cast(), text.len() as isize, &mut value) };
        if status != sys::Status::napi_ok && text.len() > MAX_STRING_CHECKED {
            // V8 refuses a string past its length limit without throwing.
            let mut pending = false;
            // SAFETY: `env` is the live environment of the current call.
            unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
            if !pending {
                return Err(JsError::Range(too_long(text.len(), "characters")));
            }
        }
        self.check(status, "creating a string")?;
        Ok(value)
    }

    /// A string of ASCII `text` that V8 reads where it is, without a copy into its heap,
    /// where Node can make one (`node_api_create_external_string_latin1`, Node 20.4 and
    /// later): large texts then cost neither the copy nor fresh pages for V8's large
    /// object space. `text` is freed when the string is collected. Small texts, and Node
    /// versions without the call, get an ordinary string.
    pub fn ascii_string_owned(&self, text: impl Into<Vec<u8>>) -> JsResult<Value> {
        let text: Vec<u8> = text.into();
        debug_assert!(text.is_ascii());
        const EXTERNAL_FROM: usize = 16 * 1024;
        let create = match external_latin1() {
            Some(create) if text.len() >= EXTERNAL_FROM && text.len() <= MAX_STRING_CHECKED => create,
            _ => return self.ascii_string(&text),
        };
        let text = Box::new(text);
        let (data, len) = (text.as_ptr(), text.len());
        let held = Box::into_raw(text);
        let mut value = ptr::null_mut();
        let mut copied = false;
        // SAFETY: the bytes stay alive (and unmoved: they are the box's heap buffer) until
        // `free_external` runs, which Node calls once, when the string is collected or at
        // once if it copied them.
        let status = unsafe {
            create(
                self.env,
                data.cast_mut().cast(),
                len as isize,
                Some(free_external),
                held.cast(),
                &mut value,
                &mut copied,
            )
        };
        // On failure the bytes are left to Node, which may still hold them.
        self.check(status, "creating a string")?;
        Ok(value)
    }

    /// `JSON.parse(text)` for ASCII JSON text, read in place where it is large (see
    /// [`Js::ascii_string_owned`]).
    pub fn parse_json_owned(&self, text: impl Into<Vec<u8>>) -> JsResult<Value> {
        let string = self.ascii_string_owned(text)?;
        self.call_json_parse(string)
    }

    /// `JSON.parse(text)` for ASCII JSON text, copied into V8's heap. Right for many
    /// short-lived texts in a row (history slices): external strings are finalized by
    /// the garbage collector, and hundreds of them made its pauses twice as long.
    pub fn parse_json(&self, text: &[u8]) -> JsResult<Value> {
        let string = self.ascii_string(text)?;
        self.call_json_parse(string)
    }

    fn call_json_parse(&self, string: Value) -> JsResult<Value> {
        let parse = self.table(JSON_PARSE)?;
        let this = self.undefined()?;
        let mut result = ptr::null_mut();
        // SAFETY: `parse` is JSON.parse, called with one string.
        self.check(
            unsafe { sys::napi_call_function(self.env, this, parse, 1, &string, &mut result) },
            "JSON.parse",
        )?;
        Ok(result)
    }

    /// `key in object`.
    pub fn has(&self, object: Value, key: Interned) -> JsResult<bool> {
        let key = self.name(key)?;
        let mut result = false;
        // SAFETY: all handles belong to the current scope.
        self.check(
            unsafe { sys::napi_has_property(self.env, object, key, &mut result) },
            "testing a property",
        )?;
        Ok(result)
    }

    pub fn boolean(&self, value: bool) -> JsResult<Value> {
        let mut result = ptr::null_mut();
        // SAFETY: reads a singleton in the current scope.
        self.check(
            unsafe { sys::napi_get_boolean(self.env, value, &mut result) },
            "a boolean",
        )?;
        Ok(result)
    }

    /// `new Date(value).getTime()`, by JavaScript's own `Date`: its parsing of strings
    /// (local time without an offset), numbers and objects, `NaN` when invalid.
    pub fn time(&self, value: Value) -> JsResult<f64> {
        let date_ctor = self.table(DATE)?;
        let mut date = ptr::null_mut();
        let mut time = 0f64;
        // SAFETY: `date_ctor` is the global `Date`, constructed with one argument.
        self.check(
            unsafe { sys::napi_new_instance(self.env, date_ctor, 1, &value, &mut date) },
            "new Date",
        )?;
        self.check(
            unsafe { sys::napi_get_date_value(self.env, date, &mut time) },
            "reading a date",
        )?;
        Ok(time)
    }

    /// `Date.now()`.
    pub fn now(&self) -> JsResult<f64> {
        let date_ctor = self.table(DATE)?;
        let date_now = self.table(DATE_NOW)?;
        let mut now = ptr::null_mut();
        // SAFETY: `Date.now` called on `Date` with no arguments.
        self.check(
            unsafe { sys::napi_call_function(self.env, date_ctor, date_now, 0, ptr::null(), &mut now) },
            "Date.now",
        )?;
        self.number(now)
    }

    /// A new `Error` (not a `TypeError`) whose message is `message`, exactly.
    pub fn error(&self, message: Value) -> JsResult<Value> {
        let mut error = ptr::null_mut();
        // SAFETY: `message` is a string of the current scope.
        self.check(
            unsafe { sys::napi_create_error(self.env, ptr::null_mut(), message, &mut error) },
            "creating an error",
        )?;
        Ok(error)
    }

    /// `setImmediate(function)`: runs it after the event loop's next I/O phase.
    pub fn set_immediate(&self, function: Value) -> JsResult<()> {
        let set_immediate = self.table(SET_IMMEDIATE)?;
        let this = self.undefined()?;
        let mut result = ptr::null_mut();
        // SAFETY: `set_immediate` is the global found at load time, called with a function.
        self.check(
            unsafe { sys::napi_call_function(self.env, this, set_immediate, 1, &function, &mut result) },
            "setImmediate",
        )
    }

    /// Calls `function` with no arguments and `this` undefined.
    pub fn call0(&self, function: Value) -> JsResult<Value> {
        let this = self.undefined()?;
        let mut result = ptr::null_mut();
        // SAFETY: all handles belong to the current scope.
        self.check(
            unsafe { sys::napi_call_function(self.env, this, function, 0, ptr::null(), &mut result) },
            "calling a function",
        )?;
        Ok(result)
    }

    /// Throws `error` (prefixed with the function name) unless one is already pending.
    pub fn throw(&self, error: JsError, prefix: &str) {
        if let JsError::Pending = error {
            return;
        }
        let fallback = match &error {
            JsError::Type(message)
            | JsError::Range(message)
            | JsError::Internal(message)
            | JsError::Located { message, .. } => message.clone(),
            _ => String::new(),
        };
        match self.error_value(error, prefix) {
            // SAFETY: `value` belongs to the current scope; `env` is live.
            Ok(value) => unsafe {
                sys::napi_throw(self.env, value);
            },
            Err(_) => {
                let fallback =
                    CString::new(format!("{prefix}: {}", fallback.replace('\0', "\\0"))).unwrap_or_default();
                // SAFETY: a valid C string in the live environment.
                unsafe { sys::napi_throw_error(self.env, ptr::null(), fallback.as_ptr()) };
            }
        }
    }

    /// The error value `throw` throws for `error`, e.g. to reject a promise with. A pending
    /// exception is taken (and cleared).
    pub fn error_value(&self, error: JsError, prefix: &str) -> JsResult<Value> {
        let mut value = ptr::null_mut();
        enum Kind {
            Type,
            Range,
            Plain,
        }
        let (message, kind) = match error {
            JsError::Pending => {
                // SAFETY: reads (and clears) the pending exception of the live environment.
                self.check(
                    unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut value) },
                    "taking an exception",
                )?;
                return Ok(value);
            }
            JsError::Throw(value) => return Ok(value),
            JsError::Type(message) => (format!("{prefix}: {message}"), Kind::Type),
            JsError::Range(message) => (format!("{prefix}: {message}"), Kind::Range),
            JsError::Internal(message) => (format!("{prefix}: internal error: {message}"), Kind::Plain),
            JsError::Located {
                message,
                offset,
                line,
                code,
            } => {
                let error = self.error(self.create_utf16(&message.encode_utf16().collect::<Vec<_>>())?)?;
                let numbers = [(c"offset", offset), (c"line", line)];
                for (key, number) in numbers.into_iter().filter_map(|(k, n)| Some((k, n?))) {
                    let number = self.create_number(number as f64)?;
                    // SAFETY: all handles belong to the current scope.
                    self.check(
                        unsafe { sys::napi_set_named_property(self.env, error, key.as_ptr(), number) },
                        "writing a property",
                    )?;
                }
                if let Some(code) = code {
                    let code = self.ascii_string(code)?;
                    self.check(
                        unsafe { sys::napi_set_named_property(self.env, error, c"code".as_ptr(), code) },
                        "writing a property",
                    )?;
                }
                return Ok(error);
            }
        };
        let text = self.create_utf16(&message.encode_utf16().collect::<Vec<_>>())?;
        // SAFETY: `text` is a string of the current scope.
        self.check(
            unsafe {
                match kind {
                    Kind::Type => sys::napi_create_type_error(self.env, ptr::null_mut(), text, &mut value),
                    Kind::Range => sys::napi_create_range_error(self.env, ptr::null_mut(), text, &mut value),
                    Kind::Plain => sys::napi_create_error(self.env, ptr::null_mut(), text, &mut value),
                }
            },
            "creating an error",
        )?;
        Ok(value)
    }
}

/// Above this many characters, a string V8 fails to create is taken to be past its
/// length limit (2²⁹ − 24 characters on 64-bit platforms, 2²⁸ − 16 on 32-bit ones).
type CreateExternalLatin1 = unsafe extern "C" fn(
    sys::napi_env,
    *mut std::ffi::c_char,
    isize,
    sys::napi_finalize,
    *mut c_void,
    *mut sys::napi_value,
    *mut bool,
) -> sys::napi_status;

/// Node's `node_api_create_external_string_latin1`, looked up once in the process (it is
/// not in every Node version this package supports).
fn external_latin1() -> Option<CreateExternalLatin1> {
    static FOUND: std::sync::OnceLock<Option<CreateExternalLatin1>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        #[cfg(unix)]
        {
            let this = libloading::os::unix::Library::this();
            // SAFETY: the symbol, where present, has this signature (node_api.h).
            unsafe { this.get::<CreateExternalLatin1>(b"node_api_create_external_string_latin1\0") }
                .ok()
                .map(|symbol| *symbol)
        }
        #[cfg(not(unix))]
        {
            None
        }
    })
}

unsafe extern "C" fn free_external(_env: sys::napi_env, _data: *mut c_void, held: *mut c_void) {
    // SAFETY: `held` is the box `ascii_string_owned` leaked for this string.
    drop(unsafe { Box::from_raw(held as *mut Vec<u8>) });
}

pub const MAX_STRING_CHECKED: usize = (1 << 28) - 16;

/// The error for a result longer than V8 can hold in one string.
pub fn too_long(size: usize, units: &str) -> String {
    format!("the result would be a string of {size} {units}, longer than V8 can hold")
}

/// A writable, enumerable, configurable data property, named by `utf8name` or `name`.
fn data_property(
    utf8name: *const std::ffi::c_char,
    name: Value,
    value: Value,
) -> sys::napi_property_descriptor {
    sys::napi_property_descriptor {
        utf8name,
        name,
        method: None,
        getter: None,
        setter: None,
        value,
        attributes: sys::PropertyAttributes::writable
            | sys::PropertyAttributes::enumerable
            | sys::PropertyAttributes::configurable,
        data: ptr::null_mut(),
    }
}

/// Reads the callback's arguments (missing ones are `undefined`) and the data pointer
/// the function was created with.
///
/// # Safety
/// `env` and `info` must be the current callback's.
pub unsafe fn arguments<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Option<([Value; N], *mut c_void)> {
    let mut args = [ptr::null_mut(); N];
    let mut argc = N;
    let mut data: *mut c_void = ptr::null_mut();
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            args.as_mut_ptr(),
            ptr::null_mut(),
            &mut data,
        )
    };
    (status == sys::Status::napi_ok).then_some((args, data))
}
