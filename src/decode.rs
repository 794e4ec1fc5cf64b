//! Checking an incoming event before any rule runs.
//!
//! An event arrives as a loosely typed object (a JavaScript value, a JSON value). Every
//! field the rules compute with is checked here, once, whatever the source; a wrong one
//! becomes an [`InvalidEvent`] naming the event type and the field path. Fields the
//! rules only store (`arguments`, `result`, `isError`, `metadata`) pass as they are.

use std::fmt;

use crate::model::{AgentEvent, EventType, ShellStream};

/// The fields of an event that are read. The binding keeps one cached key per field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Type,
    Delta,
    Metadata,
    ToolCall,
    Id,
    Name,
    Arguments,
    ToolResult,
    ToolCallId,
    Result,
    IsError,
    Stream,
    Data,
    Error,
    StatusCode,
    Message,
    ModelId,
    KeyId,
    /// Read by history loading only (a `turn-start` event's id), never by the rules.
    TurnId,
}

impl Field {
    pub const ALL: [Field; 19] = [
        Field::Type,
        Field::Delta,
        Field::Metadata,
        Field::ToolCall,
        Field::Id,
        Field::Name,
        Field::Arguments,
        Field::ToolResult,
        Field::ToolCallId,
        Field::Result,
        Field::IsError,
        Field::Stream,
        Field::Data,
        Field::Error,
        Field::StatusCode,
        Field::Message,
        Field::ModelId,
        Field::KeyId,
        Field::TurnId,
    ];

    /// The field a key names, if the rules read it.
    pub fn from_key(key: &str) -> Option<Field> {
        Some(match key {
            "type" => Field::Type,
            "delta" => Field::Delta,
            "metadata" => Field::Metadata,
            "toolCall" => Field::ToolCall,
            "id" => Field::Id,
            "name" => Field::Name,
            "arguments" => Field::Arguments,
            "toolResult" => Field::ToolResult,
            "toolCallId" => Field::ToolCallId,
            "result" => Field::Result,
            "isError" => Field::IsError,
            "stream" => Field::Stream,
            "data" => Field::Data,
            "error" => Field::Error,
            "statusCode" => Field::StatusCode,
            "message" => Field::Message,
            "modelId" => Field::ModelId,
            "keyId" => Field::KeyId,
            "turnId" => Field::TurnId,
            _ => return None,
        })
    }

    pub fn key(self) -> &'static str {
        match self {
            Field::Type => "type",
            Field::Delta => "delta",
            Field::Metadata => "metadata",
            Field::ToolCall => "toolCall",
            Field::Id => "id",
            Field::Name => "name",
            Field::Arguments => "arguments",
            Field::ToolResult => "toolResult",
            Field::ToolCallId => "toolCallId",
            Field::Result => "result",
            Field::IsError => "isError",
            Field::Stream => "stream",
            Field::Data => "data",
            Field::Error => "error",
            Field::StatusCode => "statusCode",
            Field::Message => "message",
            Field::ModelId => "modelId",
            Field::KeyId => "keyId",
            Field::TurnId => "turnId",
        }
    }
}

/// A value's type, in the words of JavaScript's `typeof` (with `null` and `array` apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    Undefined,
    Null,
    Boolean,
    Number,
    BigInt,
    String,
    Symbol,
    Function,
    Array,
    Object,
}

impl ValueType {
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Undefined => "undefined",
            ValueType::Null => "null",
            ValueType::Boolean => "boolean",
            ValueType::Number => "number",
            ValueType::BigInt => "bigint",
            ValueType::String => "string",
            ValueType::Symbol => "symbol",
            ValueType::Function => "function",
            ValueType::Array => "array",
            ValueType::Object => "object",
        }
    }
}

/// What a field must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    String,
    Object,
    OptionalNumber,
}

impl Expected {
    fn describe(self) -> &'static str {
        match self {
            Expected::String => "a string",
            Expected::Object => "an object",
            Expected::OptionalNumber => "a number or undefined",
        }
    }
}

/// A field of an event that does not have the type the rules need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidEvent {
    /// The event's `type`, when it could be read.
    pub event_type: Option<&'static str>,
    /// `None` for the event itself; else the field path, e.g. `toolCall.id`.
    pub path: Option<&'static str>,
    pub expected: Expected,
    pub got: ValueType,
}

impl fmt::Display for InvalidEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.event_type, self.path) {
            (Some(ty), Some(path)) => write!(f, "{ty} event: \"{path}\"")?,
            (None, Some(path)) => write!(f, "event: \"{path}\"")?,
            (_, None) => write!(f, "event")?,
        }
        write!(
            f,
            " must be {}, got {}",
            self.expected.describe(),
            self.got.name()
        )
    }
}

impl std::error::Error for InvalidEvent {}

/// Read access to an event object, whatever holds it.
pub trait EventSource {
    type Text;
    type Value;
    type Error: From<InvalidEvent>;

    /// The value of `field` on `object` (`undefined` when absent).
    fn field(&self, object: &Self::Value, field: Field) -> Result<Self::Value, Self::Error>;
    fn value_type(&self, value: &Self::Value) -> Result<ValueType, Self::Error>;
    /// The value as text; only called on values whose type is `String`.
    fn text(&self, value: Self::Value) -> Result<Self::Text, Self::Error>;
    /// `value` classified as an event type, or `None` when it is not a string.
    fn event_type(&self, value: &Self::Value) -> Result<Option<EventType>, Self::Error>;
    /// `value` as a shell stream name, or `None` when it is not a string.
    fn shell_stream(&self, value: &Self::Value) -> Result<Option<ShellStream>, Self::Error>;
    /// The value as a number; only called on values whose type is `Number`.
    fn number(&self, value: &Self::Value) -> Result<f64, Self::Error>;
}

/// Names of the event types, for error messages.
fn type_name(ty: EventType) -> Option<&'static str> {
    Some(match ty {
        EventType::TextDelta => "text-delta",
        EventType::ReasoningDelta => "reasoning-delta",
        EventType::ReasoningEnd => "reasoning-end",
        EventType::ToolCall => "tool-call",
        EventType::ToolResult => "tool-result",
        EventType::ShellOutput => "shell-output",
        EventType::Error => "error",
        EventType::Notice => "notice",
        EventType::ModelChanged => "model-changed",
        EventType::ConfigReload => "config-reload",
        EventType::Lifecycle(_) | EventType::Unknown => return None,
    })
}

struct Reader<'a, E: EventSource> {
    source: &'a E,
    event_type: Option<&'static str>,
}

impl<E: EventSource> Reader<'_, E> {
    fn fail(&self, path: &'static str, expected: Expected, got: ValueType) -> E::Error {
        InvalidEvent {
            event_type: self.event_type,
            path: Some(path),
            expected,
            got,
        }
        .into()
    }

    fn string(&self, object: &E::Value, field: Field, path: &'static str) -> Result<E::Text, E::Error> {
        let value = self.source.field(object, field)?;
        match self.source.value_type(&value)? {
            ValueType::String => self.source.text(value),
            got => Err(self.fail(path, Expected::String, got)),
        }
    }

    fn object(&self, object: &E::Value, field: Field, path: &'static str) -> Result<E::Value, E::Error> {
        let value = self.source.field(object, field)?;
        match self.source.value_type(&value)? {
            ValueType::Object | ValueType::Array | ValueType::Function => Ok(value),
            got => Err(self.fail(path, Expected::Object, got)),
        }
    }

    fn optional_number(
        &self,
        object: &E::Value,
        field: Field,
        path: &'static str,
    ) -> Result<Option<f64>, E::Error> {
        let value = self.source.field(object, field)?;
        match self.source.value_type(&value)? {
            ValueType::Undefined => Ok(None),
            ValueType::Number => self.source.number(&value).map(Some),
            got => Err(self.fail(path, Expected::OptionalNumber, got)),
        }
    }

    /// A field stored as given; `undefined` stays a value (it still creates a key).
    fn any(&self, object: &E::Value, field: Field) -> Result<E::Value, E::Error> {
        self.source.field(object, field)
    }
}

/// Checks `event` and turns it into an [`AgentEvent`] whose payloads are the source's own
/// values. Nothing is mutated; the rules run only on what this returns.
pub fn decode_event<E: EventSource>(
    source: &E,
    event: &E::Value,
) -> Result<AgentEvent<E::Text, E::Value>, E::Error> {
    let ty = decode_type(source, event)?;
    decode_payload(source, event, ty)
}

/// Reads and classifies the event's `type` (once: a getter on it runs once).
pub fn decode_type<E: EventSource>(source: &E, event: &E::Value) -> Result<EventType, E::Error> {
    // The hot path reads `type` first; what `event` itself is matters only when that
    // fails (reading a field of a non-object gives `undefined`).
    let tag = source.field(event, Field::Type)?;
    classify_type(source, event, &tag)
}

/// [`decode_type`] for a `type` already read from `event`.
pub fn classify_type<E: EventSource>(
    source: &E,
    event: &E::Value,
    tag: &E::Value,
) -> Result<EventType, E::Error> {
    let Some(ty) = source.event_type(tag)? else {
        return Err(match source.value_type(event)? {
            ValueType::Object | ValueType::Array | ValueType::Function => InvalidEvent {
                event_type: None,
                path: Some("type"),
                expected: Expected::String,
                got: source.value_type(tag)?,
            },
            got => InvalidEvent {
                event_type: None,
                path: None,
                expected: Expected::Object,
                got,
            },
        }
        .into());
    };
    Ok(ty)
}

/// A `tool-result` event's `toolResult` object and its checked `toolCallId`: what the
/// original helper reads before it looks for the call (it reads `result` and `isError`
/// only once it has found one).
pub fn decode_tool_result_id<E: EventSource>(
    source: &E,
    event: &E::Value,
) -> Result<(E::Value, E::Text), E::Error> {
    let r = Reader {
        source,
        event_type: type_name(EventType::ToolResult),
    };
    let result = r.object(event, Field::ToolResult, "toolResult")?;
    let id = r.string(&result, Field::ToolCallId, "toolResult.toolCallId")?;
    Ok((result, id))
}

/// The first fields [`decode_payload`] reads for events of type `ty`, in its order, and
/// how each depends on the one before it: a caller that reads them ahead of the call
/// (the Node binding's compiled front) reads each only when the one before passed the
/// check `decode_payload` makes of it, so it reads no field `decode_payload` would not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Prefetch {
    /// None.
    Nothing = 0,
    /// The first field.
    One = 1,
    /// The first field, then the second when the first is a string.
    StringThen = 2,
    /// The first field, then the second of it when the first is an object.
    ObjectThen = 3,
    /// The first field; when it is an object, the second of it, then when that is a
    /// string the third, then when that is a string the fourth.
    Call = 4,
}

/// The [`Prefetch`] for events of type `ty`, with the fields it names.
pub fn prefetch(ty: EventType) -> (Prefetch, &'static [Field]) {
    match ty {
        EventType::ReasoningEnd => (Prefetch::One, &[Field::Metadata]),
        EventType::Notice => (Prefetch::One, &[Field::Message]),
        EventType::Error => (Prefetch::StringThen, &[Field::Error, Field::StatusCode]),
        EventType::ModelChanged => (Prefetch::StringThen, &[Field::ModelId, Field::KeyId]),
        EventType::ToolResult => (Prefetch::ObjectThen, &[Field::ToolResult, Field::ToolCallId]),
        EventType::ToolCall => (
            Prefetch::Call,
            &[Field::ToolCall, Field::Id, Field::Name, Field::Arguments],
        ),
        _ => (Prefetch::Nothing, &[]),
    }
}

/// Checks the fields of an event whose type [`decode_type`] read, in the order the
/// original helper reads them.
pub fn decode_payload<E: EventSource>(
    source: &E,
    event: &E::Value,
    ty: EventType,
) -> Result<AgentEvent<E::Text, E::Value>, E::Error> {
    let r = Reader {
        source,
        event_type: type_name(ty),
    };
    Ok(match ty {
        EventType::TextDelta => AgentEvent::TextDelta {
            delta: r.string(event, Field::Delta, "delta")?,
        },
        EventType::ReasoningDelta => AgentEvent::ReasoningDelta {
            delta: r.string(event, Field::Delta, "delta")?,
        },
        EventType::ReasoningEnd => {
            let metadata = r.any(event, Field::Metadata)?;
            let present = source.value_type(&metadata)? != ValueType::Undefined;
            AgentEvent::ReasoningEnd {
                metadata: present.then_some(metadata),
            }
        }
        EventType::ToolCall => {
            let call = r.object(event, Field::ToolCall, "toolCall")?;
            AgentEvent::ToolCall {
                id: r.string(&call, Field::Id, "toolCall.id")?,
                name: r.string(&call, Field::Name, "toolCall.name")?,
                arguments: r.any(&call, Field::Arguments)?,
            }
        }
        EventType::ToolResult => {
            let (result, tool_call_id) = decode_tool_result_id(source, event)?;
            AgentEvent::ToolResult {
                tool_call_id,
                result: r.any(&result, Field::Result)?,
                is_error: r.any(&result, Field::IsError)?,
            }
        }
        EventType::ShellOutput => {
            let stream = source.field(event, Field::Stream)?;
            let Some(stream) = source.shell_stream(&stream)? else {
                return Err(r.fail("stream", Expected::String, source.value_type(&stream)?));
            };
            AgentEvent::ShellOutput {
                stream,
                data: r.string(event, Field::Data, "data")?,
            }
        }
        EventType::Error => AgentEvent::Error {
            error: r.string(event, Field::Error, "error")?,
            status_code: r.optional_number(event, Field::StatusCode, "statusCode")?,
        },
        EventType::Notice => AgentEvent::Notice {
            message: r.string(event, Field::Message, "message")?,
        },
        EventType::ModelChanged => AgentEvent::ModelChanged {
            model_id: r.string(event, Field::ModelId, "modelId")?,
            key_id: r.string(event, Field::KeyId, "keyId")?,
        },
        EventType::ConfigReload => AgentEvent::ConfigReload,
        EventType::Lifecycle(kind) => AgentEvent::Lifecycle(kind),
        EventType::Unknown => AgentEvent::Unknown,
    })
}
