//! The events of `@ag-ui/core` 1.0 by their `type`, and the fields the fold reads of them
//! (each also in the snake_case spelling a producer writes that serialises without
//! aliases).

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{wrong, FormatResult};

macro_rules! events {
    ($($name:ident = $tag:literal,)*) => {
        /// An event's `type`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum Type {
            $($name,)*
        }

        impl Type {
            /// Every type, each once.
            pub const ALL: &'static [Type] = &[$(Type::$name,)*];

            pub fn from_tag(tag: &[u8]) -> Option<Type> {
                match tag {
                    $($tag => Some(Type::$name),)*
                    _ => None,
                }
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(Type::$name => stringify!($name),)*
                }
            }
        }
    };
}

events! {
    RUN_STARTED = b"RUN_STARTED",
    RUN_FINISHED = b"RUN_FINISHED",
    RUN_ERROR = b"RUN_ERROR",
    STEP_STARTED = b"STEP_STARTED",
    STEP_FINISHED = b"STEP_FINISHED",
    TEXT_MESSAGE_START = b"TEXT_MESSAGE_START",
    TEXT_MESSAGE_CONTENT = b"TEXT_MESSAGE_CONTENT",
    TEXT_MESSAGE_END = b"TEXT_MESSAGE_END",
    TEXT_MESSAGE_CHUNK = b"TEXT_MESSAGE_CHUNK",
    TOOL_CALL_START = b"TOOL_CALL_START",
    TOOL_CALL_ARGS = b"TOOL_CALL_ARGS",
    TOOL_CALL_END = b"TOOL_CALL_END",
    TOOL_CALL_CHUNK = b"TOOL_CALL_CHUNK",
    TOOL_CALL_RESULT = b"TOOL_CALL_RESULT",
    REASONING_START = b"REASONING_START",
    REASONING_MESSAGE_START = b"REASONING_MESSAGE_START",
    REASONING_MESSAGE_CONTENT = b"REASONING_MESSAGE_CONTENT",
    REASONING_MESSAGE_END = b"REASONING_MESSAGE_END",
    REASONING_MESSAGE_CHUNK = b"REASONING_MESSAGE_CHUNK",
    REASONING_END = b"REASONING_END",
    REASONING_ENCRYPTED_VALUE = b"REASONING_ENCRYPTED_VALUE",
    THINKING_START = b"THINKING_START",
    THINKING_END = b"THINKING_END",
    THINKING_TEXT_MESSAGE_START = b"THINKING_TEXT_MESSAGE_START",
    THINKING_TEXT_MESSAGE_CONTENT = b"THINKING_TEXT_MESSAGE_CONTENT",
    THINKING_TEXT_MESSAGE_END = b"THINKING_TEXT_MESSAGE_END",
    STATE_SNAPSHOT = b"STATE_SNAPSHOT",
    STATE_DELTA = b"STATE_DELTA",
    MESSAGES_SNAPSHOT = b"MESSAGES_SNAPSHOT",
    ACTIVITY_SNAPSHOT = b"ACTIVITY_SNAPSHOT",
    ACTIVITY_DELTA = b"ACTIVITY_DELTA",
    RAW = b"RAW",
    CUSTOM = b"CUSTOM",
    SUBAGENT_STARTED = b"SUBAGENT_STARTED",
    SUBAGENT_FINISHED = b"SUBAGENT_FINISHED",
    SUBAGENT_ERROR = b"SUBAGENT_ERROR",
}

/// Whether the object key `key` is `camel` or its snake_case spelling.
fn names(key: &[u8], camel: &[u8]) -> bool {
    if key == camel {
        return true;
    }
    let mut k = key.iter();
    for &c in camel {
        if c.is_ascii_uppercase() {
            if k.next() != Some(&b'_') || k.next() != Some(&c.to_ascii_lowercase()) {
                return false;
            }
        } else if k.next() != Some(&c) {
            return false;
        }
    }
    k.next().is_none()
}

/// The field `key` of an event (or message), by its camelCase name or its snake_case one;
/// `null` reads as absent, as the client reads the optional fields it tolerates null in.
pub fn get<'a>(value: &'a Json, key: &str) -> Option<&'a Json> {
    find(value, key).filter(|v| !matches!(v, Json::Null | Json::Undefined))
}

/// The field `key` as it is, `null` included.
pub fn find<'a>(value: &'a Json, key: &str) -> Option<&'a Json> {
    let Json::Object(fields) = value else {
        return None;
    };
    fields
        .iter()
        .find(|(k, _)| k.as_bytes() == key.as_bytes())
        .or_else(|| fields.iter().find(|(k, _)| names(k.as_bytes(), key.as_bytes())))
        .map(|(_, v)| v)
}

/// A string field the fold needs; `path` names the value it is in (empty: the event).
pub fn string_at<'a>(value: &'a Json, key: &str, path: &str) -> FormatResult<&'a Wtf8> {
    match find(value, key) {
        Some(Json::String(s)) => Ok(s),
        other => Err(wrong(crate::reading::check::join(path, key), "a string", other)),
    }
}

/// A string field of the event the fold needs.
pub fn string<'a>(value: &'a Json, key: &str) -> FormatResult<&'a Wtf8> {
    string_at(value, key, "")
}

/// A string field that may be absent (or `null`).
pub fn optional_at<'a>(value: &'a Json, key: &str, path: &str) -> FormatResult<Option<&'a Wtf8>> {
    match find(value, key) {
        None | Some(Json::Null | Json::Undefined) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        other => Err(wrong(crate::reading::check::join(path, key), "a string", other)),
    }
}

/// A string field of the event that may be absent.
pub fn optional<'a>(value: &'a Json, key: &str) -> FormatResult<Option<&'a Wtf8>> {
    optional_at(value, key, "")
}

/// The event's `metadata`, when it is an object.
pub fn metadata(value: &Json) -> Option<&Json> {
    get(value, "metadata").filter(|m| matches!(m, Json::Object(_)))
}

/// A lane of chunk events: the subagent run they are attributed to (`None`: the parent).
pub fn lane(value: &Json) -> Option<Wtf8> {
    get(value, "subagentRunId").and_then(Json::as_str).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_named_by_its_tag() {
        for &ty in Type::ALL {
            assert_eq!(Type::from_tag(ty.name().as_bytes()), Some(ty));
        }
        assert_eq!(Type::from_tag(b"text-delta"), None);
    }

    #[test]
    fn a_field_is_read_in_either_spelling() {
        let value =
            crate::bytes::value::parse(br#"{"message_id":"a","toolCallId":"c","parent_message_id":null}"#)
                .unwrap();
        assert_eq!(string(&value, "messageId").unwrap(), "a");
        assert_eq!(string(&value, "toolCallId").unwrap(), "c");
        assert_eq!(get(&value, "parentMessageId"), None);
        assert!(names(b"tool_call_id", b"toolCallId"));
        assert!(!names(b"tool_callid", b"toolCallId"));
        assert!(!names(b"toolCallIds", b"toolCallId"));
        assert_eq!(
            string(&value, "delta").unwrap_err().to_string(),
            "delta must be a string, got undefined"
        );
    }
}
