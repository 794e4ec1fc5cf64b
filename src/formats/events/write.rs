//! Messages written as agent events: each assistant message a turn (`turn-start` with its
//! id as `turnId`), then the events that rebuild its chunks, one NDJSON line each, in the
//! order the reducer stores their keys. Read back by the same format, they are the
//! assistant messages again, as far as agent events can carry them: a file, a plan or a
//! system notice of a kind no event makes has no event and is left out.

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, MessageRole, SystemChunkKind, ToolCallEntry};
use crate::reading::model_json::{number, FormatChunk, FormatMessage};

/// The assistant messages of `messages` as agent events, NDJSON.
pub fn write_events(messages: &[FormatMessage]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut line = |event: Json| {
        value::write(&mut out, &event);
        out.push(b'\n');
    };
    for message in messages.iter().filter(|m| m.role == MessageRole::Assistant) {
        line(Json::object([
            ("type", Json::string("turn-start")),
            ("turnId", Json::string(message.id.as_str())),
        ]));
        for chunk in &message.chunks {
            chunk_events(chunk, &mut line);
        }
    }
    Ok(out)
}

fn tagged<const N: usize>(kind: &str, fields: [(&str, Json); N]) -> Json {
    let mut object = vec![(Wtf8::from("type"), Json::string(kind))];
    object.extend(fields.into_iter().map(|(key, value)| (Wtf8::from(key), value)));
    Json::Object(object)
}

/// The events that rebuild one chunk.
fn chunk_events(chunk: &FormatChunk, line: &mut impl FnMut(Json)) {
    match chunk {
        Chunk::Text { text } => line(tagged("text-delta", [("delta", Json::String(text.clone()))])),
        Chunk::Thinking { text, metadata } => {
            line(tagged("reasoning-delta", [("delta", Json::String(text.clone()))]));
            if let Some(metadata) = metadata {
                line(tagged("reasoning-end", [("metadata", metadata.clone())]));
            }
        }
        Chunk::ToolBatch { calls } => {
            for call in calls {
                call_events(call, line);
            }
        }
        Chunk::Error { message, status_code } => line(tagged(
            "error",
            [
                ("error", Json::String(message.clone())),
                ("statusCode", status_code.map_or(Json::Undefined, number)),
            ],
        )),
        Chunk::System { kind, text } => match kind {
            SystemChunkKind::ConfigReload => line(tagged("config-reload", [])),
            SystemChunkKind::Notice => line(tagged("notice", [("message", Json::String(text.clone()))])),
            SystemChunkKind::ModelChanged => {
                if let Some((model, key)) = switched(text.as_bytes()) {
                    line(tagged(
                        "model-changed",
                        [
                            ("modelId", Json::String(Wtf8::from_wtf8_unchecked(model.to_vec()))),
                            ("keyId", Json::String(Wtf8::from_wtf8_unchecked(key.to_vec()))),
                        ],
                    ))
                }
            }
            _ => {}
        },
        Chunk::File { .. } => {}
    }
}

/// `Switched to MODEL (KEY)`, the text a `model-changed` event makes: its model and key
/// (the key the text in the last parentheses).
fn switched(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = text.strip_prefix(b"Switched to ")?.strip_suffix(b")")?;
    let open = rest.windows(2).rposition(|pair| pair == b" (")?;
    Some((&rest[..open], &rest[open + 2..]))
}

/// A call, then its result and its shell output in the order the call holds them.
fn call_events(call: &ToolCallEntry<Wtf8, Json>, line: &mut impl FnMut(Json)) {
    line(tagged(
        "tool-call",
        [(
            "toolCall",
            Json::object([
                ("id", Json::String(call.id.clone())),
                ("name", Json::String(call.name.clone())),
                ("arguments", call.arguments.clone()),
            ]),
        )],
    ));
    let result = |line: &mut dyn FnMut(Json)| {
        if let Some((result, is_error)) = &call.result {
            let is_error = match is_error {
                Json::Undefined | Json::Null => Json::Bool(false),
                given => given.clone(),
            };
            line(tagged(
                "tool-result",
                [(
                    "toolResult",
                    Json::object([
                        ("toolCallId", Json::String(call.id.clone())),
                        ("result", result.clone()),
                        ("isError", is_error),
                    ]),
                )],
            ));
        }
    };
    let shell = |line: &mut dyn FnMut(Json)| {
        if let Some(output) = &call.shell_output {
            let shell_output = |stream: &str, data: &Wtf8| {
                tagged(
                    "shell-output",
                    [
                        ("stream", Json::string(stream)),
                        ("data", Json::String(data.clone())),
                    ],
                )
            };
            if !output.stdout.is_empty() || output.stderr.is_empty() {
                line(shell_output("stdout", &output.stdout));
            }
            if !output.stderr.is_empty() {
                line(shell_output("stderr", &output.stderr));
            }
        }
    };
    if call.shell_output_first {
        shell(line);
        result(line);
    } else {
        result(line);
        shell(line);
    }
}

#[cfg(test)]
mod tests {
    use super::switched;

    #[test]
    fn a_model_change_is_split_at_its_last_parentheses() {
        assert_eq!(
            switched(b"Switched to gpt (5) (key (a))"),
            Some((&b"gpt (5) (key"[..], &b"a)"[..]))
        );
        assert_eq!(switched(b"Switched to m (k)"), Some((&b"m"[..], &b"k"[..])));
        assert_eq!(switched(b"Switched to m"), None);
    }
}
