//! Solar Network "thinking": `SnThinkingThought` messages made of parts, and their SSE
//! stream.
//!
//! A thought's parts fold into chunks through the same rules as a live stream: a Text
//! part is a `text-delta` (so consecutive ones coalesce), a FunctionCall a `tool-call`
//! (its `arguments` JSON string parsed when it is valid JSON, else kept as the string), a
//! FunctionResult a `tool-result` landing on its call by `callId`. Part types are `0`, `1`,
//! `2` or their names, roles `0` / `1` or `Assistant` / `User`; keys are camelCase,
//! snake_case through the gateway, or PascalCase as the server's own `data:` frames
//! serialize `SnFunctionCall` and `SnFunctionResult` (.NET's defaults). Unknown part types
//! are skipped.

use std::collections::HashMap;

use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole};
use crate::owned::IndexedChunks;
use crate::reducer::append_event;

use crate::bytes::value::{self, Json, ParseErrorKind};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{array, index, join, object, string, wrong, FormatError, FormatResult};
use crate::reading::model_json::{chunk_json, FormatEvent, FormatMessage};

/// What a part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartType {
    Text,
    FunctionCall,
    FunctionResult,
}

impl PartType {
    pub fn code(self) -> u8 {
        match self {
            PartType::Text => 0,
            PartType::FunctionCall => 1,
            PartType::FunctionResult => 2,
        }
    }
}

/// Lowercase, with `_` and `-` dropped: `FunctionCall`, `functionCall` and
/// `function_call` all read as `functioncall`.
fn folded(name: &Wtf8) -> Vec<u8> {
    name.as_bytes()
        .iter()
        .filter(|b| !matches!(b, b'_' | b'-'))
        .map(u8::to_ascii_lowercase)
        .collect()
}

/// The member of `object` under the first of `keys` it has (the casings one field is
/// written in), and that key; the first key when it has none (to name it in an error).
fn member<'a>(object: &'a Json, keys: &[&'static str]) -> (Option<&'a Json>, &'static str) {
    keys.iter()
        .find_map(|&key| object.get(key).map(|value| (Some(value), key)))
        .unwrap_or((None, keys[0]))
}

/// A string member under any of `keys`, as [`string`] checks one.
fn string_of<'a>(object: &'a Json, keys: &[&'static str], path: &str) -> FormatResult<&'a Wtf8> {
    let (value, key) = member(object, keys);
    value
        .and_then(Json::as_str)
        .ok_or_else(|| wrong(join(path, key), "a string", value))
}

/// `None` for a part type this version does not know.
fn part_type(value: Option<&Json>, path: &str) -> FormatResult<Option<PartType>> {
    Ok(match value {
        Some(Json::Number(n)) => match &**n {
            "0" => Some(PartType::Text),
            "1" => Some(PartType::FunctionCall),
            "2" => Some(PartType::FunctionResult),
            _ => None,
        },
        Some(Json::String(name)) => match folded(name).as_slice() {
            b"text" => Some(PartType::Text),
            b"functioncall" => Some(PartType::FunctionCall),
            b"functionresult" => Some(PartType::FunctionResult),
            _ => None,
        },
        other => return Err(wrong(join(path, "type"), "a number or a string", other)),
    })
}

fn role(thought: &Json) -> FormatResult<MessageRole> {
    let value = member(thought, &["role", "Role"]).0;
    let role = match value {
        Some(Json::Number(n)) => match &**n {
            "0" => Some(MessageRole::Assistant),
            "1" => Some(MessageRole::User),
            _ => None,
        },
        Some(Json::String(name)) => match folded(name).as_slice() {
            b"assistant" => Some(MessageRole::Assistant),
            b"user" => Some(MessageRole::User),
            _ => None,
        },
        _ => None,
    };
    role.ok_or_else(|| match value {
        Some(Json::Number(_) | Json::String(_)) => FormatError::new(
            "role",
            format!(
                "must be 0, 1, \"Assistant\" or \"User\", got {}",
                String::from_utf8_lossy(&value.map(Json::to_json).unwrap_or_default())
            ),
        ),
        other => wrong("role".into(), "a number or a string", other),
    })
}

/// `functionCall.arguments` as the call's `arguments`: parsed when it is a JSON text,
/// kept as the string when it is not. JSON nested past the reader's limit is an error
/// (`path` names it), not a string: it is JSON, and keeping it as text would be a silent
/// difference from `JSON.parse`.
fn parse_arguments(arguments: Option<&Json>, path: &str) -> FormatResult<Json> {
    Ok(match arguments {
        Some(Json::String(text)) => match value::parse(text.as_bytes()) {
            Ok(parsed) => parsed,
            Err(e) if e.kind == ParseErrorKind::TooDeep => {
                return Err(FormatError::new(join(path, "arguments"), format!("holds {e}")))
            }
            Err(_) => Json::String(text.clone()),
        },
        Some(other) => other.clone(),
        None => Json::Null,
    })
}

/// A `functionCall` (an `SnFunctionCall`) as a `tool-call` event.
pub fn call_event(call: &Json, path: &str) -> FormatResult<FormatEvent> {
    object(call, path)?;
    Ok(AgentEvent::ToolCall {
        id: string_of(call, &["id", "Id"], path)?.clone(),
        name: string_of(call, &["name", "Name"], path)?.clone(),
        arguments: parse_arguments(member(call, &["arguments", "Arguments"]).0, path)?,
    })
}

/// A `functionResult` (an `SnFunctionResult`) as a `tool-result` event.
pub fn result_event(result: &Json, path: &str) -> FormatResult<FormatEvent> {
    object(result, path)?;
    let tool_call_id = string_of(result, &["callId", "call_id", "CallId"], path)?;
    let (is_error, _) = member(result, &["isError", "is_error", "IsError"]);
    Ok(AgentEvent::ToolResult {
        tool_call_id: tool_call_id.clone(),
        result: member(result, &["result", "Result"])
            .0
            .cloned()
            .unwrap_or(Json::Null),
        is_error: is_error.cloned().unwrap_or(Json::Bool(false)),
    })
}

fn part_events(part: &Json, path: &str) -> FormatResult<Option<FormatEvent>> {
    object(part, path)?;
    let nested = |keys: &[&'static str]| {
        let (value, key) = member(part, keys);
        (value.unwrap_or(&Json::Null), join(path, key))
    };
    let (kind, kind_key) = member(part, &["type", "Type"]);
    let kind = part_type(kind, path).map_err(|e| match kind_key {
        "type" => e,
        _ => FormatError::new(join(path, kind_key), e.problem),
    })?;
    Ok(match kind {
        Some(PartType::Text) => match member(part, &["text", "Text"]) {
            (None | Some(Json::Null), _) => None,
            (Some(Json::String(text)), _) => Some(AgentEvent::TextDelta { delta: text.clone() }),
            (other, key) => return Err(wrong(join(path, key), "a string", other)),
        },
        Some(PartType::FunctionCall) => {
            let (call, call_path) = nested(&["functionCall", "function_call", "FunctionCall"]);
            Some(call_event(call, &call_path)?)
        }
        Some(PartType::FunctionResult) => {
            let (result, result_path) = nested(&["functionResult", "function_result", "FunctionResult"]);
            Some(result_event(result, &result_path)?)
        }
        None => None,
    })
}

/// An `SnThinkingThought` as a message.
pub fn read_thought(thought: &Json) -> FormatResult<FormatMessage> {
    object(thought, "")?;
    let id = string_of(thought, &["id", "Id"], "")?
        .to_string_lossy()
        .into_owned();
    let role = role(thought)?;
    // Indexed: a thought can hold any number of calls and results.
    let mut chunks = IndexedChunks::new();
    let parts_key = member(thought, &["parts", "Parts"]).1;
    for (i, part) in array(thought, parts_key, "")?.iter().enumerate() {
        if let Some(event) = part_events(part, &index(parts_key, i))? {
            let Ok(()) = append_event(&mut chunks, event);
        }
    }
    Ok(ChatMessage {
        id,
        role,
        chunks: chunks.into_chunks(),
    })
}

/// Whether `kind` is an SSE event type of Solar Network's stream (in any of the casings
/// it is written in).
pub fn is_stream_type(kind: &Wtf8) -> bool {
    matches!(
        folded(kind).as_slice(),
        b"text" | b"functioncall" | b"functioncallupdate" | b"functionresult" | b"topic" | b"thought"
    )
}

/// One SSE event `{ type, data }` as agent events. `topic` (the conversation's title),
/// `function_call_update` (progress), `thought` (the persisted message: see
/// [`reconcile`]) and unknown types give none.
pub fn stream_events(event: &Json) -> FormatResult<Vec<FormatEvent>> {
    object(event, "")?;
    let data = event.get("data").unwrap_or(&Json::Null);
    Ok(match folded(string(event, "type", "")?).as_slice() {
        b"text" => match data {
            Json::String(text) => vec![AgentEvent::TextDelta { delta: text.clone() }],
            other => return Err(wrong("data".into(), "a string", Some(other))),
        },
        b"functioncall" => vec![call_event(data, "data")?],
        b"functionresult" => vec![result_event(data, "data")?],
        _ => Vec::new(),
    })
}

/// `arguments` as the JSON string Solar Network carries: a string that is not itself JSON
/// text is the original string and goes back as it is; any other value is serialised.
fn arguments_text(arguments: &Json) -> Json {
    match arguments {
        Json::String(text) if value::parse(text.as_bytes()).is_err() => arguments.clone(),
        other => Json::String(Wtf8::from_wtf8_unchecked(other.to_json())),
    }
}

/// A message as an `SnThinkingThought` (camelCase keys, numeric enums), with its keys in
/// the order `id, parts, role[, createdAt]`. Text chunks become Text parts; each tool
/// batch becomes its FunctionCall parts followed by the FunctionResult parts of the calls
/// that have a result. Thinking, error and system chunks have no Solar Network part and
/// are left out. A `system` message has no Solar Network role: that is an error.
pub fn write_thought(message: &FormatMessage, created_at: Option<&Wtf8>) -> FormatResult<Json> {
    let role = match message.role {
        MessageRole::Assistant => 0,
        MessageRole::User => 1,
        MessageRole::System => {
            return Err(FormatError::new(
                "role",
                "\"system\" has no Solar Network role (only assistant and user)",
            ))
        }
    };
    let part = |ty: PartType, key: &str, value: Json| {
        Json::Object(vec![
            (Wtf8::from("type"), Json::Number(ty.code().to_string().into())),
            (Wtf8::from(key), value),
        ])
    };
    let mut parts = Vec::new();
    for chunk in &message.chunks {
        match chunk {
            Chunk::Text { text } => parts.push(part(PartType::Text, "text", Json::String(text.clone()))),
            Chunk::ToolBatch { calls } => {
                for call in calls {
                    let function_call = Json::object([
                        ("id", Json::String(call.id.clone())),
                        ("name", Json::String(call.name.clone())),
                        ("arguments", arguments_text(&call.arguments)),
                    ]);
                    parts.push(part(PartType::FunctionCall, "functionCall", function_call));
                }
                for call in calls {
                    if let Some((result, is_error)) = &call.result {
                        let function_result = Json::object([
                            ("callId", Json::String(call.id.clone())),
                            ("result", result.clone()),
                            ("isError", is_error.clone()),
                        ]);
                        parts.push(part(PartType::FunctionResult, "functionResult", function_result));
                    }
                }
            }
            Chunk::Thinking { .. } | Chunk::Error { .. } | Chunk::System { .. } | Chunk::File { .. } => {}
        }
    }
    let mut fields = vec![
        (Wtf8::from("id"), Json::string(message.id.as_str())),
        (Wtf8::from("parts"), Json::Array(parts)),
        (Wtf8::from("role"), Json::Number(role.to_string().into())),
    ];
    fields.extend(created_at.map(|at| (Wtf8::from("createdAt"), Json::String(at.clone()))));
    Ok(Json::Object(fields))
}

/// Where a streamed message and the persisted thought first differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// e.g. `chunks[1].calls[0].result`.
    pub path: String,
    /// The value the stream built there (`None`: nothing there).
    pub streamed: Option<Json>,
    /// The value the persisted thought has there (`None`: nothing there).
    pub persisted: Option<Json>,
}

/// An object's members by key: searched in place when there are few, through a hash map
/// when there are many (comparing two objects of a million keys must not cost 10¹²).
enum Members<'a> {
    Few(&'a [(Wtf8, Json)]),
    Many(HashMap<&'a Wtf8, &'a Json>),
}

impl<'a> Members<'a> {
    fn new(fields: &'a [(Wtf8, Json)]) -> Self {
        if fields.len() <= 32 {
            return Members::Few(fields);
        }
        let mut map = HashMap::with_capacity(fields.len());
        for (key, value) in fields {
            // The first of a repeated key, as a search in place finds it.
            map.entry(key).or_insert(value);
        }
        Members::Many(map)
    }

    fn get(&self, key: &Wtf8) -> Option<&'a Json> {
        match self {
            Members::Few(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Members::Many(map) => map.get(key).copied(),
        }
    }
}

/// The first difference between two JSON values, depth first, in `persisted`'s order.
/// Object keys are matched by name (their order does not count); arrays by position.
pub fn first_difference(streamed: &Json, persisted: &Json, path: &str) -> Option<Difference> {
    let differ = || {
        Some(Difference {
            path: path.to_string(),
            streamed: Some(streamed.clone()),
            persisted: Some(persisted.clone()),
        })
    };
    match (streamed, persisted) {
        (Json::Array(a), Json::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                if let Some(found) = member_difference(a.get(i), b.get(i), index(path, i)) {
                    return Some(found);
                }
            }
            None
        }
        (Json::Object(a), Json::Object(b)) => {
            let (in_a, in_b) = (Members::new(a), Members::new(b));
            let keys = b
                .iter()
                .map(|(k, _)| k)
                .chain(a.iter().map(|(k, _)| k).filter(|k| in_b.get(k).is_none()));
            for key in keys {
                let here = join(path, &key.to_string_lossy());
                if let Some(found) = member_difference(in_a.get(key), in_b.get(key), here) {
                    return Some(found);
                }
            }
            None
        }
        (Json::Number(a), Json::Number(b)) if a.parse::<f64>().ok() == b.parse::<f64>().ok() => None,
        (a, b) if a == b => None,
        _ => differ(),
    }
}

/// The first difference at an element or member `here`, which either side may lack.
fn member_difference(streamed: Option<&Json>, persisted: Option<&Json>, here: String) -> Option<Difference> {
    match (streamed, persisted) {
        (Some(x), Some(y)) => first_difference(x, y, &here),
        (x, y) => Some(Difference {
            path: here,
            streamed: x.cloned(),
            persisted: y.cloned(),
        }),
    }
}

/// The final `thought` event against the chunks the stream built: the thought's message
/// (which wins) and, when they disagree, where first.
pub fn reconcile(streamed: &[Json], thought: &Json) -> FormatResult<(FormatMessage, Option<Difference>)> {
    let message = read_thought(thought)?;
    let persisted = Json::Array(message.chunks.iter().map(chunk_json).collect());
    let difference = first_difference(&Json::Array(streamed.to_vec()), &persisted, "chunks");
    Ok((message, difference))
}
