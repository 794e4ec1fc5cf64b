//! Helpers shared by the targets: the owned reducer's chunks as the JSON the bytes path
//! writes, and a comparison that treats numbers as JavaScript does.

#![allow(dead_code)]

use agent_chunks::json::JsonValue;
use agent_chunks::Chunk;
use serde_json::{json, Map, Value};

/// Chunks of the owned reducer over parsed events (`None` is an absent payload).
pub type OwnedChunk = Chunk<String, JsonValue>;

fn put(map: &mut Map<String, Value>, key: &str, value: &JsonValue) {
    if let Some(value) = value {
        map.insert(key.into(), value.clone());
    }
}

/// The chunks as `JSON.parse` of the bytes path's output gives them.
pub fn chunks_value(chunks: &[OwnedChunk]) -> Value {
    Value::Array(chunks.iter().map(chunk_value).collect())
}

fn chunk_value(chunk: &OwnedChunk) -> Value {
    match chunk {
        Chunk::Text { text } => json!({ "type": "text", "text": text }),
        Chunk::Thinking { text, metadata } => {
            let mut map = Map::new();
            map.insert("type".into(), json!("thinking"));
            map.insert("text".into(), json!(text));
            if let Some(metadata) = metadata {
                put(&mut map, "metadata", metadata);
            }
            Value::Object(map)
        }
        Chunk::ToolBatch { calls } => {
            let calls = calls
                .iter()
                .map(|call| {
                    let mut map = Map::new();
                    map.insert("id".into(), json!(call.id));
                    map.insert("name".into(), json!(call.name));
                    put(&mut map, "arguments", &call.arguments);
                    if let Some((result, is_error)) = &call.result {
                        put(&mut map, "result", result);
                        put(&mut map, "isError", is_error);
                    }
                    if let Some(shell) = &call.shell_output {
                        map.insert(
                            "shellOutput".into(),
                            json!({ "stdout": shell.stdout, "stderr": shell.stderr }),
                        );
                    }
                    Value::Object(map)
                })
                .collect();
            json!({ "type": "tool-batch", "calls": Value::Array(calls) })
        }
        Chunk::Error { message, status_code } => {
            let mut map = Map::new();
            map.insert("type".into(), json!("error"));
            map.insert("message".into(), json!(message));
            if let Some(code) = status_code {
                map.insert("statusCode".into(), number(*code));
            }
            Value::Object(map)
        }
        Chunk::System { kind, text } => json!({ "type": "system", "kind": kind.as_str(), "text": text }),
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => {
            let mut map = Map::new();
            map.insert("type".into(), json!("file"));
            map.insert("mediaType".into(), json!(media_type));
            for (key, value) in [("data", data), ("url", url), ("filename", filename)] {
                if let Some(value) = value {
                    map.insert(key.into(), json!(value));
                }
            }
            Value::Object(map)
        }
    }
}

fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// `value` with every number as a double, as JavaScript holds numbers.
pub fn as_js(value: &Value) -> Value {
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Null, number),
        Value::Array(items) => Value::Array(items.iter().map(as_js).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), as_js(v))).collect()),
        other => other.clone(),
    }
}

/// Whether serde_json refused a text only for what JavaScript accepts and serde_json does
/// not: unpaired surrogate escapes, nesting past its recursion limit, numbers past f64.
pub fn serde_only_limit(error: &serde_json::Error) -> bool {
    let message = error.to_string();
    [
        "surrogate",
        "hex escape",
        "recursion limit",
        "number out of range",
    ]
    .iter()
    .any(|reason| message.contains(reason))
}
