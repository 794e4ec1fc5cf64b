//! The canonical model as JSON values: chunks, messages and agent events, with the key
//! order of the drop-in (`{type, text}` then `metadata`; `{id, name, arguments}` then
//! `result`, `isError`, `shellOutput` in arrival order), and messages read back from JSON
//! (what `JSON.stringify` makes of a caller's `ChatMessage[]`).

use crate::model::{
    AgentEvent, ChatMessage, Chunk, MessageRole, ShellOutput, SystemChunkKind, ToolCallEntry,
};

use crate::bytes::value::{self, write_str_with, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{array, index, join, object, string, wrong, FormatError, FormatResult};

/// A chunk of a message read from a wire format.
pub type FormatChunk = Chunk<Wtf8, Json>;
/// A message read from a wire format.
pub type FormatMessage = ChatMessage<Wtf8, Json>;
/// An agent event mapped from a wire format's stream event.
pub type FormatEvent = AgentEvent<Wtf8, Json>;

fn text(value: &Wtf8) -> Json {
    Json::String(value.clone())
}

/// A number as JavaScript prints it, for the integral status codes that occur.
pub fn number(value: f64) -> Json {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        Json::Number(format!("{}", value as i64).into())
    } else if value.is_finite() {
        Json::Number(format!("{value}").into())
    } else {
        Json::Null
    }
}

pub fn role_name(role: MessageRole) -> &'static str {
    match role {
        MessageRole::User => "user",
        MessageRole::Assistant => "assistant",
        MessageRole::System => "system",
    }
}

pub fn call_json(call: &ToolCallEntry<Wtf8, Json>) -> Json {
    let mut fields = vec![
        (Wtf8::from("id"), text(&call.id)),
        (Wtf8::from("name"), text(&call.name)),
        (Wtf8::from("arguments"), call.arguments.clone()),
    ];
    fields.extend(call.meta.clone().map(|meta| (Wtf8::from("meta"), meta)));
    let shell = call.shell_output.as_ref().map(|output| {
        (
            Wtf8::from("shellOutput"),
            Json::object([("stdout", text(&output.stdout)), ("stderr", text(&output.stderr))]),
        )
    });
    let result = call.result.as_ref().map(|(result, is_error)| {
        [
            (Wtf8::from("result"), result.clone()),
            (Wtf8::from("isError"), is_error.clone()),
        ]
    });
    if call.shell_output_first {
        fields.extend(shell.clone());
    }
    fields.extend(result.into_iter().flatten());
    if !call.shell_output_first {
        fields.extend(shell);
    }
    Json::Object(fields)
}

pub fn chunk_json(chunk: &FormatChunk) -> Json {
    match chunk {
        Chunk::Text { text: t } => Json::object([("type", Json::string("text")), ("text", text(t))]),
        Chunk::Thinking { text: t, metadata } => {
            let mut object = Json::object([("type", Json::string("thinking")), ("text", text(t))]);
            if let (Some(metadata), Json::Object(fields)) = (metadata, &mut object) {
                fields.push((Wtf8::from("metadata"), metadata.clone()));
            }
            object
        }
        Chunk::ToolBatch { calls } => Json::object([
            ("type", Json::string("tool-batch")),
            ("calls", Json::Array(calls.iter().map(call_json).collect())),
        ]),
        Chunk::Error { message, status_code } => {
            let mut object = Json::object([("type", Json::string("error")), ("message", text(message))]);
            if let (Some(code), Json::Object(fields)) = (status_code, &mut object) {
                fields.push((Wtf8::from("statusCode"), number(*code)));
            }
            object
        }
        Chunk::System { kind, text: t } => Json::object([
            ("type", Json::string("system")),
            ("kind", Json::string(kind.as_str())),
            ("text", text(t)),
        ]),
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => {
            let mut fields = vec![
                (Wtf8::from("type"), Json::string("file")),
                (Wtf8::from("mediaType"), text(media_type)),
            ];
            for (key, value) in [("data", data), ("url", url), ("filename", filename)] {
                fields.extend(value.as_ref().map(|v| (Wtf8::from(key), text(v))));
            }
            Json::Object(fields)
        }
    }
}

/// `{ id, role, chunks }`.
pub fn message_json(message: &FormatMessage) -> Json {
    Json::object([
        ("id", Json::string(message.id.as_str())),
        ("role", Json::string(role_name(message.role))),
        (
            "chunks",
            Json::Array(message.chunks.iter().map(chunk_json).collect()),
        ),
    ])
}

/// `,"key":value`, or nothing for an `undefined` value (as `JSON.stringify` leaves it out).
fn write_member<const ASCII: bool>(out: &mut Vec<u8>, key: &str, value: &Json) {
    if *value != Json::Undefined {
        out.extend_from_slice(b",\"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
        value::write_with::<ASCII>(out, value);
    }
}

/// Writes one call entry, keys in the drop-in's order. `ASCII`: only ASCII output, other
/// characters as `\u` escapes.
pub fn write_call<const ASCII: bool>(out: &mut Vec<u8>, call: &ToolCallEntry<Wtf8, Json>) {
    out.extend_from_slice(b"{\"id\":");
    write_str_with::<ASCII>(out, call.id.as_bytes());
    out.extend_from_slice(b",\"name\":");
    write_str_with::<ASCII>(out, call.name.as_bytes());
    write_member::<ASCII>(out, "arguments", &call.arguments);
    if let Some(meta) = &call.meta {
        write_member::<ASCII>(out, "meta", meta);
    }
    let shell = |out: &mut Vec<u8>| {
        if let Some(output) = &call.shell_output {
            out.extend_from_slice(b",\"shellOutput\":{\"stdout\":");
            write_str_with::<ASCII>(out, output.stdout.as_bytes());
            out.extend_from_slice(b",\"stderr\":");
            write_str_with::<ASCII>(out, output.stderr.as_bytes());
            out.push(b'}');
        }
    };
    if call.shell_output_first {
        shell(out);
    }
    if let Some((result, is_error)) = &call.result {
        write_member::<ASCII>(out, "result", result);
        write_member::<ASCII>(out, "isError", is_error);
    }
    if !call.shell_output_first {
        shell(out);
    }
    out.push(b'}');
}

/// `{"type":"tool-batch","calls":[`: a tool batch up to its first call.
pub const TOOL_BATCH_HEAD: &[u8] = b"{\"type\":\"tool-batch\",\"calls\":[";

/// Writes one chunk, keys in the drop-in's order.
pub fn write_chunk<const ASCII: bool>(out: &mut Vec<u8>, chunk: &FormatChunk) {
    let typed = |out: &mut Vec<u8>, ty: &str, key: &str, text: &Wtf8| {
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(ty.as_bytes());
        out.extend_from_slice(b"\",\"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
        write_str_with::<ASCII>(out, text.as_bytes());
    };
    match chunk {
        Chunk::Text { text } => typed(out, "text", "text", text),
        Chunk::Thinking { text, metadata } => {
            typed(out, "thinking", "text", text);
            if let Some(metadata) = metadata {
                write_member::<ASCII>(out, "metadata", metadata);
            }
        }
        Chunk::ToolBatch { calls } => {
            out.extend_from_slice(TOOL_BATCH_HEAD);
            for (k, call) in calls.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_call::<ASCII>(out, call);
            }
            out.push(b']');
        }
        Chunk::Error { message, status_code } => {
            typed(out, "error", "message", message);
            if let Some(code) = status_code {
                write_member::<ASCII>(out, "statusCode", &number(*code));
            }
        }
        Chunk::System { kind, text } => {
            out.extend_from_slice(b"{\"type\":\"system\",\"kind\":\"");
            out.extend_from_slice(kind.as_str().as_bytes());
            out.extend_from_slice(b"\",\"text\":");
            write_str_with::<ASCII>(out, text.as_bytes());
        }
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => {
            typed(out, "file", "mediaType", media_type);
            for (key, value) in [("data", data), ("url", url), ("filename", filename)] {
                if let Some(value) = value {
                    out.extend_from_slice(b",\"");
                    out.extend_from_slice(key.as_bytes());
                    out.extend_from_slice(b"\":");
                    write_str_with::<ASCII>(out, value.as_bytes());
                }
            }
        }
    }
    out.push(b'}');
}

/// `{"id":…,"role":…,"chunks":[`: a message up to its first chunk.
pub fn write_message_head<const ASCII: bool>(out: &mut Vec<u8>, id: &str, role: MessageRole) {
    out.extend_from_slice(b"{\"id\":");
    write_str_with::<ASCII>(out, id.as_bytes());
    out.extend_from_slice(b",\"role\":\"");
    out.extend_from_slice(role_name(role).as_bytes());
    out.extend_from_slice(b"\",\"chunks\":[");
}

/// Writes `messages` as the JSON text of a `ChatMessage[]`: what [`message_json`] gives,
/// without building the values first.
pub fn write_messages(out: &mut Vec<u8>, messages: &[FormatMessage]) {
    out.push(b'[');
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_message_head::<false>(out, &message.id, message.role);
        for (j, chunk) in message.chunks.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            write_chunk::<false>(out, chunk);
        }
        out.extend_from_slice(b"]}");
    }
    out.push(b']');
}

/// The event as the drop-in takes it; `None` for lifecycle and unknown events, which no
/// format produces.
pub fn event_json(event: &FormatEvent) -> Option<Json> {
    let tagged = |tag: &str, rest: Vec<(&str, Json)>| {
        let mut fields = vec![(Wtf8::from("type"), Json::string(tag))];
        fields.extend(rest.into_iter().map(|(k, v)| (Wtf8::from(k), v)));
        Json::Object(fields)
    };
    Some(match event {
        AgentEvent::TextDelta { delta } => tagged("text-delta", vec![("delta", text(delta))]),
        AgentEvent::ReasoningDelta { delta } => tagged("reasoning-delta", vec![("delta", text(delta))]),
        AgentEvent::ReasoningEnd { metadata } => tagged(
            "reasoning-end",
            metadata.iter().map(|m| ("metadata", m.clone())).collect(),
        ),
        AgentEvent::ToolCall { id, name, arguments } => tagged(
            "tool-call",
            vec![(
                "toolCall",
                Json::object([
                    ("id", text(id)),
                    ("name", text(name)),
                    ("arguments", arguments.clone()),
                ]),
            )],
        ),
        AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error,
        } => tagged(
            "tool-result",
            vec![(
                "toolResult",
                Json::object([
                    ("toolCallId", text(tool_call_id)),
                    ("result", result.clone()),
                    ("isError", is_error.clone()),
                ]),
            )],
        ),
        AgentEvent::ShellOutput { stream, data } => {
            let stream = match stream {
                crate::model::ShellStream::Stdout => "stdout",
                crate::model::ShellStream::Stderr => "stderr",
                crate::model::ShellStream::Other => return None,
            };
            tagged(
                "shell-output",
                vec![("stream", Json::string(stream)), ("data", text(data))],
            )
        }
        AgentEvent::Error { error, status_code } => {
            let mut rest = vec![("error", text(error))];
            rest.extend(status_code.map(|code| ("statusCode", number(code))));
            tagged("error", rest)
        }
        AgentEvent::Notice { message } => tagged("notice", vec![("message", text(message))]),
        AgentEvent::ModelChanged { model_id, key_id } => tagged(
            "model-changed",
            vec![("modelId", text(model_id)), ("keyId", text(key_id))],
        ),
        AgentEvent::ConfigReload => tagged("config-reload", vec![]),
        AgentEvent::Lifecycle(_) | AgentEvent::Unknown => return None,
    })
}

fn role(value: &Json, path: &str) -> FormatResult<MessageRole> {
    let given = string(value, "role", path)?;
    match given.as_bytes() {
        b"user" => Ok(MessageRole::User),
        b"assistant" => Ok(MessageRole::Assistant),
        b"system" => Ok(MessageRole::System),
        _ => Err(FormatError::new(
            join(path, "role"),
            format!("must be \"user\", \"assistant\" or \"system\", got \"{given}\""),
        )),
    }
}

fn call_from_json(value: &Json, path: &str) -> FormatResult<ToolCallEntry<Wtf8, Json>> {
    object(value, path)?;
    let mut call = ToolCallEntry::new(
        string(value, "id", path)?.clone(),
        string(value, "name", path)?.clone(),
        value.get("arguments").cloned().unwrap_or(Json::Null),
    );
    let Json::Object(fields) = value else {
        unreachable!("checked above")
    };
    let position = |key: &str| fields.iter().position(|(k, _)| *k == key);
    call.meta = value
        .get("meta")
        .filter(|m| matches!(m, Json::Object(_)))
        .cloned();
    if position("result").is_some() || position("isError").is_some() {
        call.result = Some((
            value.get("result").cloned().unwrap_or(Json::Null),
            value.get("isError").cloned().unwrap_or(Json::Null),
        ));
    }
    if let Some(at) = position("shellOutput") {
        let output_path = join(path, "shellOutput");
        let output = object(&fields[at].1, &output_path)?;
        call.shell_output = Some(ShellOutput {
            stdout: string(output, "stdout", &output_path)?.clone(),
            stderr: string(output, "stderr", &output_path)?.clone(),
        });
        call.shell_output_first = position("result").is_none_or(|result| at < result);
    }
    Ok(call)
}

/// One chunk; `None` for a chunk type this version does not know.
pub fn chunk_from_json(value: &Json, path: &str) -> FormatResult<Option<FormatChunk>> {
    object(value, path)?;
    let tag = string(value, "type", path)?;
    Ok(Some(match tag.as_bytes() {
        b"text" => Chunk::Text {
            text: string(value, "text", path)?.clone(),
        },
        b"thinking" => Chunk::Thinking {
            text: string(value, "text", path)?.clone(),
            metadata: value.get("metadata").cloned(),
        },
        b"tool-batch" => Chunk::ToolBatch {
            calls: array(value, "calls", path)?
                .iter()
                .enumerate()
                .map(|(i, call)| call_from_json(call, &index(&join(path, "calls"), i)))
                .collect::<FormatResult<_>>()?,
        },
        b"error" => Chunk::Error {
            message: string(value, "message", path)?.clone(),
            status_code: match value.get("statusCode") {
                None => None,
                Some(code @ Json::Number(_)) => code.as_f64(),
                other => return Err(wrong(join(path, "statusCode"), "a number or undefined", other)),
            },
        },
        b"system" => {
            let kind = string(value, "kind", path)?;
            Chunk::System {
                kind: kind
                    .as_str()
                    .and_then(SystemChunkKind::from_name)
                    .ok_or_else(|| {
                        FormatError::new(
                            join(path, "kind"),
                            format!("is not a system chunk kind: \"{kind}\""),
                        )
                    })?,
                text: string(value, "text", path)?.clone(),
            }
        }
        b"file" => {
            let optional = |key: &str| -> FormatResult<Option<Wtf8>> {
                match value.get(key) {
                    None | Some(Json::Undefined) => Ok(None),
                    Some(Json::String(text)) => Ok(Some(text.clone())),
                    other => Err(wrong(join(path, key), "a string or undefined", other)),
                }
            };
            Chunk::File {
                media_type: string(value, "mediaType", path)?.clone(),
                data: optional("data")?,
                url: optional("url")?,
                filename: optional("filename")?,
            }
        }
        _ => return Ok(None),
    }))
}

/// A `ChatMessage` from its JSON form; unknown chunk types are skipped.
pub fn message_from_json(value: &Json, path: &str) -> FormatResult<FormatMessage> {
    object(value, path)?;
    let chunks_path = join(path, "chunks");
    let mut chunks = Vec::new();
    for (i, chunk) in array(value, "chunks", path)?.iter().enumerate() {
        chunks.extend(chunk_from_json(chunk, &index(&chunks_path, i))?);
    }
    Ok(ChatMessage {
        id: string(value, "id", path)?.to_string_lossy().into_owned(),
        role: role(value, path)?,
        chunks,
    })
}

/// A `ChatMessage[]` from its JSON form.
/// `name` is what the caller calls the array, for error paths (`messages[2].role`).
pub fn messages_from_json(value: &Json, name: &str) -> FormatResult<Vec<FormatMessage>> {
    match value {
        Json::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| message_from_json(item, &index(name, i)))
            .collect(),
        other => Err(wrong(name.to_string(), "an array", Some(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(data: Option<&str>, url: Option<&str>, filename: Option<&str>) -> FormatChunk {
        Chunk::File {
            media_type: Wtf8::from("image/png"),
            data: data.map(Wtf8::from),
            url: url.map(Wtf8::from),
            filename: filename.map(Wtf8::from),
        }
    }

    #[test]
    fn a_file_chunk_lists_only_the_keys_it_has_and_reads_back() {
        for chunk in [
            file(Some("iVBORw0KGgo="), None, None),
            file(None, Some("https://example.com/a.png"), Some("a.png")),
        ] {
            let json = chunk_json(&chunk);
            let mut written = Vec::new();
            write_chunk::<false>(&mut written, &chunk);
            assert_eq!(written, json.to_json());
            assert_eq!(chunk_from_json(&json, "chunk").unwrap(), Some(chunk));
        }
        assert_eq!(
            chunk_json(&file(Some("AA=="), None, None)).to_json(),
            br#"{"type":"file","mediaType":"image/png","data":"AA=="}"#
        );
    }

    #[test]
    fn a_file_chunk_needs_its_media_type() {
        let json = value::parse(br#"{"type":"file","data":"AA=="}"#).unwrap();
        let error = chunk_from_json(&json, "chunk").unwrap_err();
        assert!(error.to_string().contains("mediaType"), "{error}");
    }

    #[test]
    fn the_new_system_kinds_round_trip_by_name() {
        for name in ["compaction", "branch-summary", "thinking-level-changed", "custom"] {
            let kind = SystemChunkKind::from_name(name).unwrap();
            assert_eq!(kind.as_str(), name);
        }
    }
}
