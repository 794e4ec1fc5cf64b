//! Properties of the rules over arbitrary event sequences (proptest): the invariants the
//! open/close table promises, the indexed store against the plain one, and the bytes path
//! against the owned reducer.

use agent_chunks::owned::IndexedChunks;
use agent_chunks::{append_event, AgentEvent, Chunk, LifecycleKind, ShellStream};
use proptest::prelude::*;
use serde_json::{json, Value};

type Event = AgentEvent<String, Value>;
type Chunks = Vec<Chunk<String, Value>>;

/// Texts from a small alphabet (so deltas join and ids repeat), with characters beyond
/// the BMP, escapes JSON needs and a NUL.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "bc", "😀", "é", "\"", "\\", "\n", "\u{0}", " ", "t1"]),
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

fn id() -> impl Strategy<Value = String> {
    (0..5u8).prop_map(|n| format!("t{n}"))
}

fn payload() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        text().prop_map(Value::String),
        (text(), text()).prop_map(|(k, v)| json!({ k: v, "__proto__": { "x": 1 }, "n": [1.5, -0.0] })),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        4 => text().prop_map(|delta| AgentEvent::TextDelta { delta }),
        3 => text().prop_map(|delta| AgentEvent::ReasoningDelta { delta }),
        2 => prop::option::of(payload()).prop_map(|metadata| AgentEvent::ReasoningEnd { metadata }),
        3 => (id(), text(), payload()).prop_map(|(id, name, arguments)| AgentEvent::ToolCall { id, name, arguments }),
        3 => (id(), payload(), payload()).prop_map(|(tool_call_id, result, is_error)| AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error
        }),
        2 => (prop::sample::select(vec![ShellStream::Stdout, ShellStream::Stderr, ShellStream::Other]), text())
            .prop_map(|(stream, data)| AgentEvent::ShellOutput { stream, data }),
        1 => (text(), prop::option::of(100..600u16)).prop_map(|(error, code)| AgentEvent::Error {
            error,
            status_code: code.map(f64::from)
        }),
        1 => text().prop_map(|message| AgentEvent::Notice { message }),
        1 => (text(), text()).prop_map(|(model_id, key_id)| AgentEvent::ModelChanged { model_id, key_id }),
        1 => Just(AgentEvent::ConfigReload),
        1 => Just(AgentEvent::Lifecycle(LifecycleKind::Usage)),
        1 => Just(AgentEvent::Unknown),
    ]
}

fn events() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec(event(), 0..60)
}

fn fold(events: &[Event]) -> Chunks {
    let mut chunks = Vec::new();
    for event in events {
        let Ok(()) = append_event(&mut chunks, event.clone());
    }
    chunks
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The index changes how fast the rules find things, never what they find: from an
    /// empty list, and from a list indexed after any number of events.
    #[test]
    fn the_indexed_store_gives_the_plain_stores_chunks(events in events(), split in 0..60usize) {
        let split = split.min(events.len());
        let mut indexed = IndexedChunks::new();
        let mut later = IndexedChunks::from(fold(&events[..split]));
        for event in &events {
            let Ok(()) = append_event(&mut indexed, event.clone());
        }
        for event in &events[split..] {
            let Ok(()) = append_event(&mut later, event.clone());
        }
        let plain = fold(&events);
        prop_assert_eq!(indexed.chunks(), &plain[..]);
        prop_assert_eq!(later.chunks(), &plain[..]);
    }
}

/// The newest batch holding a call with `id`, and the first such call in it.
fn result_target(chunks: &Chunks, id: &str) -> Option<(usize, usize)> {
    chunks
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, chunk)| match chunk {
            Chunk::ToolBatch { calls } => calls.iter().position(|c| c.id == id).map(|call| (index, call)),
            _ => None,
        })
}

fn texts(chunks: &Chunks, thinking: bool) -> String {
    chunks
        .iter()
        .filter_map(|chunk| match (chunk, thinking) {
            (Chunk::Text { text }, false) | (Chunk::Thinking { text, .. }, true) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Text chunks never touch, and every delta is in the text, in order; the same for
    /// reasoning. Chunks are only added or extended, and a sealed thinking chunk never
    /// changes again.
    #[test]
    fn deltas_join_in_order_and_sealed_thinking_stays_sealed(events in events()) {
        let mut chunks: Chunks = Vec::new();
        let (mut text, mut reasoning) = (String::new(), String::new());
        for event in events {
            match &event {
                AgentEvent::TextDelta { delta } => text.push_str(delta),
                AgentEvent::ReasoningDelta { delta } => reasoning.push_str(delta),
                _ => {}
            }
            let before = chunks.clone();
            let Ok(()) = append_event(&mut chunks, event);
            prop_assert!(chunks.len() >= before.len());
            for (old, new) in before.iter().zip(&chunks) {
                prop_assert_eq!(std::mem::discriminant(old), std::mem::discriminant(new));
                if matches!(old, Chunk::Thinking { metadata: Some(_), .. }) {
                    prop_assert_eq!(old, new, "a sealed thinking chunk changed");
                }
            }
            let adjacent = chunks.windows(2).any(|w| matches!(w, [Chunk::Text { .. }, Chunk::Text { .. }]));
            prop_assert!(!adjacent, "two text chunks in a row");
            prop_assert_eq!(texts(&chunks, false), text.clone());
            prop_assert_eq!(texts(&chunks, true), reasoning.clone());
        }
    }

    /// A result lands on the first call with its id in the newest batch that has one,
    /// and changes nothing else; with no such call, nothing at all.
    #[test]
    fn a_tool_result_lands_on_the_newest_matching_call(events in events(), id in id(), result in payload()) {
        let before = fold(&events);
        let mut after = before.clone();
        let Ok(()) = append_event(&mut after, AgentEvent::ToolResult {
            tool_call_id: id.clone(),
            result: result.clone(),
            is_error: json!(true),
        });
        let mut expected = before.clone();
        if let Some((index, call)) = result_target(&before, &id) {
            if let Chunk::ToolBatch { calls } = &mut expected[index] {
                calls[call].result = Some((result, json!(true)));
            }
        }
        prop_assert_eq!(after, expected);
    }
}

// ─── The bytes path against the owned reducer ──────────────────────────────────────

/// The event as a line of JSON, as an agent writes it: `type` first, fields in the
/// order `JSON.stringify` gives them, `None` payloads left out.
fn event_line(event: &Event) -> String {
    let text = |s: &String| serde_json::to_string(s).unwrap();
    let value = |v: &Value| serde_json::to_string(v).unwrap();
    match event {
        AgentEvent::TextDelta { delta } => format!(r#"{{"type":"text-delta","delta":{}}}"#, text(delta)),
        AgentEvent::ReasoningDelta { delta } => {
            format!(r#"{{"type":"reasoning-delta","delta":{}}}"#, text(delta))
        }
        AgentEvent::ReasoningEnd { metadata: None } => r#"{"type":"reasoning-end"}"#.into(),
        AgentEvent::ReasoningEnd { metadata: Some(m) } => {
            format!(r#"{{"type":"reasoning-end","metadata":{}}}"#, value(m))
        }
        AgentEvent::ToolCall { id, name, arguments } => format!(
            r#"{{"type":"tool-call","toolCall":{{"id":{},"name":{},"arguments":{}}}}}"#,
            text(id),
            text(name),
            value(arguments)
        ),
        AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error,
        } => format!(
            r#"{{"type":"tool-result","toolResult":{{"toolCallId":{},"result":{},"isError":{}}}}}"#,
            text(tool_call_id),
            value(result),
            value(is_error)
        ),
        AgentEvent::ShellOutput { stream, data } => {
            let stream = match stream {
                ShellStream::Stdout => "stdout",
                ShellStream::Stderr => "stderr",
                ShellStream::Other => "pty",
            };
            format!(
                r#"{{"type":"shell-output","stream":"{stream}","data":{}}}"#,
                text(data)
            )
        }
        AgentEvent::Error {
            error,
            status_code: None,
        } => format!(r#"{{"type":"error","error":{}}}"#, text(error)),
        AgentEvent::Error {
            error,
            status_code: Some(code),
        } => {
            format!(
                r#"{{"type":"error","error":{},"statusCode":{code}}}"#,
                text(error)
            )
        }
        AgentEvent::Notice { message } => format!(r#"{{"type":"notice","message":{}}}"#, text(message)),
        AgentEvent::ModelChanged { model_id, key_id } => format!(
            r#"{{"type":"model-changed","modelId":{},"keyId":{}}}"#,
            text(model_id),
            text(key_id)
        ),
        AgentEvent::ConfigReload => r#"{"type":"config-reload"}"#.into(),
        AgentEvent::Lifecycle(_) => r#"{"type":"usage","tokens":3}"#.into(),
        AgentEvent::Unknown => r#"{"type":"from-the-future","delta":5}"#.into(),
    }
}

/// Chunks of the owned reducer over parsed events, as `JSON.parse` of the bytes path's
/// output gives them: absent payloads left out, numbers as doubles.
fn chunks_value(chunks: &[Chunk<String, Option<Value>>]) -> Value {
    let payload = |map: &mut serde_json::Map<String, Value>, key: &str, value: &Option<Value>| {
        if let Some(value) = value {
            map.insert(key.into(), value.clone());
        }
    };
    let chunk = |chunk: &Chunk<String, Option<Value>>| {
        let mut map = serde_json::Map::new();
        match chunk {
            Chunk::Text { text } => {
                map.insert("type".into(), json!("text"));
                map.insert("text".into(), json!(text));
            }
            Chunk::Thinking { text, metadata } => {
                map.insert("type".into(), json!("thinking"));
                map.insert("text".into(), json!(text));
                if let Some(metadata) = metadata {
                    payload(&mut map, "metadata", metadata);
                }
            }
            Chunk::ToolBatch { calls } => {
                map.insert("type".into(), json!("tool-batch"));
                let calls = calls.iter().map(|call| {
                    let mut entry = serde_json::Map::new();
                    entry.insert("id".into(), json!(call.id));
                    entry.insert("name".into(), json!(call.name));
                    payload(&mut entry, "arguments", &call.arguments);
                    if let Some((result, is_error)) = &call.result {
                        payload(&mut entry, "result", result);
                        payload(&mut entry, "isError", is_error);
                    }
                    if let Some(shell) = &call.shell_output {
                        entry.insert(
                            "shellOutput".into(),
                            json!({ "stdout": shell.stdout, "stderr": shell.stderr }),
                        );
                    }
                    Value::Object(entry)
                });
                map.insert("calls".into(), Value::Array(calls.collect()));
            }
            Chunk::Error { message, status_code } => {
                map.insert("type".into(), json!("error"));
                map.insert("message".into(), json!(message));
                if let Some(code) = status_code {
                    map.insert("statusCode".into(), json!(code));
                }
            }
            Chunk::System { kind, text } => {
                map.insert("type".into(), json!("system"));
                map.insert("kind".into(), json!(kind.as_str()));
                map.insert("text".into(), json!(text));
            }
            Chunk::File {
                media_type,
                data,
                url,
                filename,
            } => {
                map.insert("type".into(), json!("file"));
                map.insert("mediaType".into(), json!(media_type));
                for (key, value) in [("data", data), ("url", url), ("filename", filename)] {
                    if let Some(value) = value {
                        map.insert(key.into(), json!(value));
                    }
                }
            }
        }
        Value::Object(map)
    };
    as_js(&Value::Array(chunks.iter().map(chunk).collect()))
}

/// Every number as a double, as JavaScript holds numbers.
fn as_js(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(items) => Value::Array(items.iter().map(as_js).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), as_js(v))).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Events written as JSON, framed as NDJSON or SSE and pushed in arbitrary pieces,
    /// fold to what the owned reducer makes of the parsed events.
    #[test]
    fn the_bytes_path_folds_as_the_owned_reducer(
        events in events(),
        sse in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        use agent_chunks::bytes::Framing;
        use agent_chunks::live::EventStream;
        use agent_chunks::json::event_from_json;
        let mut owned: Vec<Chunk<String, Option<Value>>> = Vec::new();
        let mut bytes = Vec::new();
        for event in &events {
            let line = event_line(event);
            let value: Value = serde_json::from_str(&line).unwrap();
            let Ok(()) = append_event(&mut owned, event_from_json(&value).unwrap());
            bytes.extend_from_slice(if sse { format!("data: {line}\n\n") } else { format!("{line}\n") }.as_bytes());
        }
        let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut stream = EventStream::new(if sse { Framing::Sse } else { Framing::Ndjson });
        let mut from = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            stream.push(&bytes[from..cut]).unwrap();
            from = cut;
        }
        stream.end().unwrap();
        prop_assert_eq!(stream.event_count() as usize, events.len());
        let folded: Value = serde_json::from_str(&stream.to_json()).unwrap();
        prop_assert_eq!(as_js(&folded), chunks_value(&owned));
    }
}
