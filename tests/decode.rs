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
