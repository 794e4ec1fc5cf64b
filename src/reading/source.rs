//! Reading loosely typed input (JavaScript values, JSON) for the format adapters.
//!
//! The adapters never convert their input: they read it through [`Source`], keep the
//! values they pass on as handles (`Source::Value`), and check every field they compute
//! with. A wrong field is an [`Invalid`] naming its path, e.g.
//! `messages[3].uuid must be a string, got number`.

use std::fmt;

pub use crate::decode::ValueType;

/// The property names the adapters read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Arguments,
    Calls,
    Chunks,
    Content,
    Data,
    DisplayText,
    Entries,
    HookContext,
    Id,
    IsError,
    Kind,
    Jsonrpc,
    Locations,
    Message,
    MessageId,
    Method,
    Name,
    Now,
    Params,
    Parts,
    RawInput,
    RawOutput,
    Result,
    Role,
    SessionUpdate,
    Status,
    SystemPayload,
    Text,
    Timestamp,
    Title,
    ToolCall,
    ToolCallId,
    Type,
    Update,
    Uuid,
}

impl Key {
    pub fn name(self) -> &'static str {
        match self {
            Key::Arguments => "arguments",
            Key::Calls => "calls",
            Key::Chunks => "chunks",
            Key::Content => "content",
            Key::Data => "data",
            Key::DisplayText => "displayText",
            Key::Entries => "entries",
            Key::HookContext => "hookContext",
            Key::Id => "id",
            Key::IsError => "isError",
            Key::Kind => "kind",
            Key::Jsonrpc => "jsonrpc",
            Key::Locations => "locations",
            Key::Message => "message",
            Key::MessageId => "messageId",
            Key::Method => "method",
            Key::Name => "name",
            Key::Now => "now",
            Key::Params => "params",
            Key::Parts => "parts",
            Key::RawInput => "rawInput",
            Key::RawOutput => "rawOutput",
            Key::Result => "result",
            Key::Role => "role",
            Key::SessionUpdate => "sessionUpdate",
            Key::Status => "status",
            Key::SystemPayload => "systemPayload",
            Key::Text => "text",
            Key::Timestamp => "timestamp",
            Key::Title => "title",
            Key::ToolCall => "toolCall",
            Key::ToolCallId => "toolCallId",
            Key::Type => "type",
            Key::Update => "update",
            Key::Uuid => "uuid",
        }
    }
}

/// Read access to a tree of loosely typed values.
pub trait Source {
    /// A handle to one value; strings and payloads are passed on as handles.
    type Value: Copy;
    type Error: From<Invalid>;

    /// `object[key]`, `undefined` when absent. Only called on objects.
    fn get(&self, object: Self::Value, key: Key) -> Result<Self::Value, Self::Error>;
    /// `key in object`. Only called on objects.
    fn has(&self, object: Self::Value, key: Key) -> Result<bool, Self::Error>;
    fn value_type(&self, value: Self::Value) -> Result<ValueType, Self::Error>;
    /// The string as ASCII bytes for comparing with known tags: `None` for a non-string,
    /// an empty slice for a string too long or not ASCII (no known tag is either).
    fn tag<'b>(&self, value: Self::Value, buf: &'b mut [u8; 32]) -> Result<Option<&'b [u8]>, Self::Error>;
    /// The string's UTF-16 units, to key tool calls by id. Only called on strings.
    fn units(&self, value: Self::Value) -> Result<Vec<u16>, Self::Error>;
    /// The array's length, or `None` when `value` is not an array.
    fn array_len(&self, value: Self::Value) -> Result<Option<usize>, Self::Error>;
    fn element(&self, array: Self::Value, index: usize) -> Result<Self::Value, Self::Error>;
    /// JavaScript truthiness.
    fn truthy(&self, value: Self::Value) -> Result<bool, Self::Error>;
    /// Only called on numbers.
    fn number(&self, value: Self::Value) -> Result<f64, Self::Error>;
    /// `new Date(value).getTime()`: milliseconds, `NaN` for an invalid date.
    fn time(&self, value: Self::Value) -> Result<f64, Self::Error>;
}

/// A field that does not have the type an adapter needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// Where, from the argument's name: `messages[3].message.parts[0].text`.
    pub path: String,
    /// What it must be: `a string`, `an object`, …
    pub expected: &'static str,
    pub got: ValueType,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} must be {}, got {}",
            self.path,
            self.expected,
            self.got.name()
        )
    }
}

impl std::error::Error for Invalid {}

/// What a checked field may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    String,
    Object,
    Array,
    Number,
    /// A string, or absent (`undefined` or `null`).
    OptionalString,
    /// An object, or absent (`undefined` or `null`).
    OptionalObject,
    /// An array, or absent (`undefined` or `null`).
    OptionalArray,
    /// A number, or `undefined`.
    OptionalNumber,
    StringOrNumber,
}

impl Expect {
    fn describe(self) -> &'static str {
        match self {
            Expect::String => "a string",
            Expect::Object => "an object",
            Expect::Array => "an array",
            Expect::Number => "a number",
            Expect::OptionalString => "a string, null or undefined",
            Expect::OptionalObject => "an object, null or undefined",
            Expect::OptionalArray => "an array, null or undefined",
            Expect::OptionalNumber => "a number or undefined",
            Expect::StringOrNumber => "a string or a number",
        }
    }

    /// `Some(true)` present and right, `Some(false)` absent and allowed, `None` wrong.
    fn admits(self, ty: ValueType) -> Option<bool> {
        use ValueType as T;
        let absent = matches!(ty, T::Undefined | T::Null);
        let object = matches!(ty, T::Object | T::Array | T::Function);
        match self {
            Expect::String => (ty == T::String).then_some(true),
            Expect::Object => object.then_some(true),
            Expect::Array => (ty == T::Array).then_some(true),
            Expect::Number => (ty == T::Number).then_some(true),
            Expect::StringOrNumber => matches!(ty, T::String | T::Number).then_some(true),
            Expect::OptionalString if ty == T::String => Some(true),
            Expect::OptionalObject if object => Some(true),
            Expect::OptionalArray if ty == T::Array => Some(true),
            Expect::OptionalNumber if ty == T::Number => Some(true),
            Expect::OptionalNumber => (ty == T::Undefined).then_some(false),
            Expect::OptionalString | Expect::OptionalObject | Expect::OptionalArray => {
                absent.then_some(false)
            }
        }
    }
}

/// A place in the input, for error messages: a root name, then fields and indexes.
/// Built only when a check fails.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    Field(&'static str),
    Index(usize),
}

pub fn render_path(root: &str, steps: &[Step]) -> String {
    let mut path = root.to_string();
    for step in steps {
        match step {
            Step::Field(name) => {
                path.push('.');
                path.push_str(name);
            }
            Step::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

/// Reads and checks fields, naming a failure by `root` and the steps to it.
pub struct Reader<'a, S: Source> {
    pub source: &'a S,
    pub root: &'a str,
}

impl<S: Source> Reader<'_, S> {
    fn fail(&self, steps: &[Step], expect: Expect, got: ValueType) -> S::Error {
        Invalid {
            path: render_path(self.root, steps),
            expected: expect.describe(),
            got,
        }
        .into()
    }

    /// Checks `value`, found at `steps`. `Ok(None)` for an allowed absent value.
    pub fn check(
        &self,
        value: S::Value,
        expect: Expect,
        steps: &[Step],
    ) -> Result<Option<S::Value>, S::Error> {
        let ty = self.source.value_type(value)?;
        match expect.admits(ty) {
            Some(true) => Ok(Some(value)),
            Some(false) => Ok(None),
            None => Err(self.fail(steps, expect, ty)),
        }
    }

    /// `object[key]` checked; `steps` lead to `object`.
    pub fn field(
        &self,
        object: S::Value,
        key: Key,
        expect: Expect,
        steps: &[Step],
    ) -> Result<Option<S::Value>, S::Error> {
        let value = self.source.get(object, key)?;
        let ty = self.source.value_type(value)?;
        match expect.admits(ty) {
            Some(true) => Ok(Some(value)),
            Some(false) => Ok(None),
            None => {
                let mut path = steps.to_vec();
                path.push(Step::Field(key.name()));
                Err(self.fail(&path, expect, ty))
            }
        }
    }

    /// A field that must be present (a non-optional `expect`).
    pub fn required(
        &self,
        object: S::Value,
        key: Key,
        expect: Expect,
        steps: &[Step],
    ) -> Result<S::Value, S::Error> {
        match self.field(object, key, expect, steps)? {
            Some(value) => Ok(value),
            // Only optional expectations admit an absent value.
            None => self.source.get(object, key),
        }
    }

    /// The array at `steps` (its handle and length).
    pub fn array(&self, value: S::Value, steps: &[Step]) -> Result<(S::Value, usize), S::Error> {
        match self.source.array_len(value)? {
            Some(len) => Ok((value, len)),
            None => Err(self.fail(steps, Expect::Array, self.source.value_type(value)?)),
        }
    }

    /// Whether `value` is the string `tag`.
    pub fn is_tag(&self, value: S::Value, tag: &[u8]) -> Result<bool, S::Error> {
        let mut buf = [0u8; 32];
        Ok(self.source.tag(value, &mut buf)? == Some(tag))
    }
}
