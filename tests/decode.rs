//! Event checking: every field the rules compute with, with the message users see.

use agent_chunks::json::event_from_json;
use agent_chunks::{AgentEvent, LifecycleKind, ShellStream};
use serde_json::{json, Value};

fn error(event: Value) -> String {
    event_from_json(&event)
        .expect_err("should be rejected")
        .to_string()
}

#[test]
fn names_the_event_type_and_field_path() {
    assert_eq!(
        error(json!({ "type": "text-delta", "delta": 5 })),
        "text-delta event: \"delta\" must be a string, got number"
    );
    assert_eq!(
        error(json!({ "type": "reasoning-delta" })),
        "reasoning-delta event: \"delta\" must be a string, got undefined"
    );
    assert_eq!(
        error(json!({ "type": "tool-call", "toolCall": { "id": "1", "name": null } })),
        "tool-call event: \"toolCall.name\" must be a string, got null"
    );
    assert_eq!(
        error(json!({ "type": "tool-call", "toolCall": "x" })),
        "tool-call event: \"toolCall\" must be an object, got string"
    );
    assert_eq!(
        error(json!({ "type": "tool-result", "toolResult": { "toolCallId": [] } })),
        "tool-result event: \"toolResult.toolCallId\" must be a string, got array"
    );
    assert_eq!(
        error(json!({ "type": "shell-output", "stream": 1, "data": "" })),
        "shell-output event: \"stream\" must be a string, got number"
    );
    assert_eq!(
        error(json!({ "type": "shell-output", "stream": "stdout" })),
        "shell-output event: \"data\" must be a string, got undefined"
    );
    assert_eq!(
        error(json!({ "type": "error", "error": "e", "statusCode": "500" })),
        "error event: \"statusCode\" must be a number or undefined, got string"
    );
    assert_eq!(
        error(json!({ "type": "error", "error": "e", "statusCode": null })),
        "error event: \"statusCode\" must be a number or undefined, got null"
    );
    assert_eq!(
        error(json!({ "type": "notice", "message": true })),
        "notice event: \"message\" must be a string, got boolean"
    );
    assert_eq!(
        error(json!({ "type": "model-changed", "modelId": "m" })),
        "model-changed event: \"keyId\" must be a string, got undefined"
    );
}

#[test]
fn the_event_itself_and_its_type_are_checked() {
    assert_eq!(error(json!(null)), "event must be an object, got null");
    assert_eq!(error(json!("text-delta")), "event must be an object, got string");
    assert_eq!(
        error(json!({ "delta": "x" })),
        "event: \"type\" must be a string, got undefined"
    );
    assert_eq!(
        error(json!({ "type": 3 })),
        "event: \"type\" must be a string, got number"
    );
}

#[test]
fn payloads_pass_as_given() {
    let event = event_from_json(&json!({
        "type": "tool-result",
        "toolResult": { "toolCallId": "1", "result": null, "isError": "yes" }
    }))
    .unwrap();
    assert_eq!(
        event,
        AgentEvent::ToolResult {
            tool_call_id: "1".into(),
            result: Some(Value::Null),
            is_error: Some(json!("yes")),
        }
    );
    let event =
        event_from_json(&json!({ "type": "tool-call", "toolCall": { "id": "1", "name": "n" } })).unwrap();
    assert_eq!(
        event,
        AgentEvent::ToolCall {
            id: "1".into(),
            name: "n".into(),
            arguments: None
        }
    );
}

#[test]
fn absent_and_null_metadata_differ() {
    assert_eq!(
        event_from_json(&json!({ "type": "reasoning-end" })).unwrap(),
        AgentEvent::ReasoningEnd { metadata: None }
    );
    assert_eq!(
        event_from_json(&json!({ "type": "reasoning-end", "metadata": null })).unwrap(),
        AgentEvent::ReasoningEnd {
            metadata: Some(Some(Value::Null))
        }
    );
}

#[test]
fn stream_names_other_than_stdout_and_stderr_are_accepted() {
    let event = event_from_json(&json!({ "type": "shell-output", "stream": "pty", "data": "x" })).unwrap();
    assert_eq!(
        event,
        AgentEvent::ShellOutput {
            stream: ShellStream::Other,
            data: "x".into()
        }
    );
}

#[test]
fn lifecycle_and_unknown_types_are_accepted_with_any_fields() {
    assert_eq!(
        event_from_json(&json!({ "type": "usage", "delta": 5 })).unwrap(),
        AgentEvent::Lifecycle(LifecycleKind::Usage)
    );
    assert_eq!(
        event_from_json(&json!({ "type": "from-the-future", "delta": 5 })).unwrap(),
        AgentEvent::Unknown
    );
    assert_eq!(
        event_from_json(&json!({ "type": "config-reload", "anything": 1 })).unwrap(),
        AgentEvent::ConfigReload
    );
}

/// Reads JSON values as the decoder asks for them, remembering which fields it read.
struct Recording {
    reads: std::cell::RefCell<Vec<agent_chunks::decode::Field>>,
}

impl agent_chunks::decode::EventSource for Recording {
    type Text = String;
    type Value = Option<Value>;
    type Error = agent_chunks::InvalidEvent;

    fn field(
        &self,
        object: &Option<Value>,
        field: agent_chunks::decode::Field,
    ) -> Result<Option<Value>, Self::Error> {
        self.reads.borrow_mut().push(field);
        Ok(match object {
            Some(Value::Object(map)) => map.get(field.key()).cloned(),
            _ => None,
        })
    }

    fn value_type(&self, value: &Option<Value>) -> Result<agent_chunks::decode::ValueType, Self::Error> {
        use agent_chunks::decode::ValueType as T;
        Ok(match value {
            None => T::Undefined,
            Some(Value::Null) => T::Null,
            Some(Value::Bool(_)) => T::Boolean,
            Some(Value::Number(_)) => T::Number,
            Some(Value::String(_)) => T::String,
            Some(Value::Array(_)) => T::Array,
            Some(Value::Object(_)) => T::Object,
        })
    }

    fn text(&self, value: Option<Value>) -> Result<String, Self::Error> {
        Ok(value
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default())
    }

    fn event_type(&self, _: &Option<Value>) -> Result<Option<agent_chunks::EventType>, Self::Error> {
        Ok(None)
    }

    fn shell_stream(&self, value: &Option<Value>) -> Result<Option<ShellStream>, Self::Error> {
        Ok(value.as_ref().and_then(Value::as_str).map(|s| match s {
            "stdout" => ShellStream::Stdout,
            "stderr" => ShellStream::Stderr,
            _ => ShellStream::Other,
        }))
    }

    fn number(&self, value: &Option<Value>) -> Result<f64, Self::Error> {
        Ok(value.as_ref().and_then(Value::as_f64).unwrap_or(f64::NAN))
    }
}

/// The fields `decode_payload` reads of `event` for `ty`, in order.
fn reads_of(ty: agent_chunks::EventType, event: &Value) -> Vec<agent_chunks::decode::Field> {
    let source = Recording {
        reads: Default::default(),
    };
    let _ = agent_chunks::decode::decode_payload(&source, &Some(event.clone()), ty);
    source.reads.into_inner()
}

/// The binding's compiled front reads `prefetch(ty)`'s fields ahead of the decoder, each
/// only when the one before passed the decoder's check: so they must be the decoder's
/// first reads, and the decoder must stop where a check fails before it reads the next.
#[test]
fn prefetched_fields_are_the_first_the_decoder_reads_and_guards_stop_where_it_stops() {
    use agent_chunks::decode::{prefetch, Prefetch};
    use agent_chunks::EventType;
    let valid = json!({
        "delta": "d", "metadata": { "s": 1 }, "stream": "stdout", "data": "x",
        "toolCall": { "id": "1", "name": "n", "arguments": {} },
        "toolResult": { "toolCallId": "1", "result": 1, "isError": false },
        "error": "e", "statusCode": 5, "message": "m", "modelId": "m", "keyId": "k",
    });
    let mut covered = 0;
    for tag in EventType::TAGS {
        let ty = EventType::from_tag(tag.as_bytes());
        let (plan, fields) = prefetch(ty);
        let reads = reads_of(ty, &valid);
        assert!(
            reads.starts_with(fields),
            "{tag}: reads {reads:?}, prefetched {fields:?}"
        );
        // Each guard failing: the field it guards is a number, which no guard accepts.
        for guarded in 1..fields.len() {
            let mut event = valid.clone();
            let nested = matches!(plan, Prefetch::ObjectThen | Prefetch::Call);
            let key = fields[guarded - 1].key();
            if nested && guarded > 1 {
                event[fields[0].key()][key] = json!(7);
            } else {
                event[key] = json!(7);
            }
            let reads = reads_of(ty, &event);
            assert_eq!(reads, fields[..guarded], "{tag}: a failed check at {key}");
            covered += 1;
        }
    }
    // error, model-changed, tool-result (one guard each), tool-call (three).
    assert_eq!(covered, 6);
}
