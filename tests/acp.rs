//! ACP v1 session updates: agent events, the webview state, and the chunk model as rows.

use agent_chunks::formats::acp::updates::{
    read_update, to_agent_events, webview_messages, Role, SessionUpdate, WebviewMessage,
};
use agent_chunks::reading::source::{Reader, Source};
use agent_chunks::views::serde_source::{JsonError, JsonRef, JsonSource};
use agent_chunks::views::tool_call::Payload;
use agent_chunks::views::unified::{
    to_unified_messages, ToolCallSlot, ToolOutput, ToolStatus, UnifiedId, UnifiedType,
};
use agent_chunks::AgentEvent;
use serde_json::{json, Value};

fn no_dates(_: &Value) -> f64 {
    f64::NAN
}

fn read<'a>(source: &'a JsonSource<fn(&Value) -> f64>, value: &'a Value) -> SessionUpdate<JsonRef<'a>> {
    let reader = Reader {
        source: &source,
        root: "update",
    };
    read_update(&reader, Some(value), &[]).unwrap()
}

fn str_of(value: JsonRef<'_>) -> &str {
    value.and_then(Value::as_str).unwrap()
}

#[test]
fn content_updates_become_events_and_the_rest_nothing() {
    let source = JsonSource::new(no_dates as fn(&Value) -> f64);
    let text = json!({ "sessionId": "s", "update": { "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": "Hi" } } });
    assert!(
        matches!(&to_agent_events(&read(&source, &text))[..], [AgentEvent::TextDelta { delta }] if str_of(*delta) == "Hi")
    );
    let thought =
        json!({ "sessionUpdate": "agent_thought_chunk", "content": { "type": "text", "text": "hm" } });
    assert!(matches!(
        &to_agent_events(&read(&source, &thought))[..],
        [AgentEvent::ReasoningDelta { .. }]
    ));
    for silent in [
        json!({ "sessionUpdate": "user_message_chunk", "content": { "type": "text", "text": "q" } }),
        json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "image", "data": "", "mimeType": "image/png" } }),
        json!({ "sessionUpdate": "plan", "entries": [] }),
        json!({ "sessionUpdate": "available_commands_update", "availableCommands": [] }),
        json!({ "sessionUpdate": "current_mode_update", "currentModeId": "code" }),
        json!({ "sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "in_progress" }),
        json!({ "sessionUpdate": "something_new", "content": 5 }),
    ] {
        assert!(to_agent_events(&read(&source, &silent)).is_empty(), "{silent}");
    }
}

#[test]
fn tool_calls_name_by_kind_else_title_and_results_come_when_final() {
    let source = JsonSource::new(no_dates as fn(&Value) -> f64);
    let call = json!({ "sessionUpdate": "tool_call", "toolCallId": "t", "title": "Read a.ts", "kind": "read", "rawInput": { "path": "a.ts" } });
    match &to_agent_events(&read(&source, &call))[..] {
        [AgentEvent::ToolCall {
            id,
            name,
            arguments: Payload::Given(input),
        }] => {
            assert_eq!((str_of(*id), str_of(*name)), ("t", "read"));
            assert_eq!(*input, Some(&call["rawInput"]));
        }
        other => panic!("{other:?}"),
    }
    let untyped = json!({ "sessionUpdate": "tool_call", "toolCallId": "t", "title": "Ask" });
    assert!(matches!(&to_agent_events(&read(&source, &untyped))[..],
        [AgentEvent::ToolCall { name, arguments: Payload::Undefined, .. }] if str_of(*name) == "Ask"));
    let failed =
        json!({ "sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "failed", "content": [] });
    assert!(matches!(
        &to_agent_events(&read(&source, &failed))[..],
        [AgentEvent::ToolResult {
            result: Payload::Given(Some(_)),
            is_error: Payload::Bool(true),
            ..
        }]
    ));
    // A call that arrives finished is a call and its result.
    let done =
        json!({ "sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "status": "completed" });
    assert!(matches!(
        &to_agent_events(&read(&source, &done))[..],
        [
            AgentEvent::ToolCall { .. },
            AgentEvent::ToolResult {
                is_error: Payload::Bool(false),
                result: Payload::Undefined,
                ..
            }
        ]
    ));
}

#[test]
fn bad_updates_name_the_field() {
    let source = JsonSource::new(no_dates as fn(&Value) -> f64);
    let reader = Reader {
        source: &&source,
        root: "update",
    };
    let cases = [
        (json!(3), "update must be an object, got number"),
        (
            json!({ "sessionId": "s" }),
            "update.update must be an object, got undefined",
        ),
        (
            json!({ "sessionUpdate": 1 }),
            "update.sessionUpdate must be a string, got number",
        ),
        (
            json!({ "sessionUpdate": "agent_message_chunk" }),
            "update.content must be an object, got undefined",
        ),
        (
            json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text" } }),
            "update.content.text must be a string, got undefined",
        ),
        (
            json!({ "sessionUpdate": "tool_call", "toolCallId": "t" }),
            "update.title must be a string, got undefined",
        ),
        (
            json!({ "sessionUpdate": "tool_call_update", "toolCallId": "t", "status": 2 }),
            "update.status must be a string, null or undefined, got number",
        ),
    ];
    for (input, message) in cases {
        match read_update(&reader, Some(&input), &[]) {
            Err(JsonError::Invalid(e)) => assert_eq!(e.to_string(), message),
            other => panic!("{input}: {other:?}"),
        }
    }
}

#[test]
fn the_webview_coalesces_text_and_replaces_tool_fields() {
    let source = JsonSource::new(no_dates as fn(&Value) -> f64);
    let updates = json!([
        { "sessionUpdate": "user_message_chunk", "content": { "type": "text", "text": "Fix" } },
        { "sessionUpdate": "agent_thought_chunk", "content": { "type": "text", "text": "Look" } },
        { "sessionUpdate": "agent_thought_chunk", "content": { "type": "text", "text": "ing" } },
        { "sessionUpdate": "tool_call_update", "toolCallId": "b", "status": "in_progress" },
        { "sessionUpdate": "tool_call", "toolCallId": "a", "title": "Edit", "kind": "edit", "content": [1], "locations": [{ "path": "x" }] },
        { "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": "Done" } },
        { "sessionUpdate": "tool_call_update", "toolCallId": "a", "status": "completed", "content": [2], "title": null },
        { "sessionUpdate": "agent_message_chunk", "content": { "type": "image", "data": "", "mimeType": "image/png" } },
        { "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": "!" } },
        { "sessionUpdate": "tool_call", "toolCallId": "b", "title": "Run", "kind": "execute" },
    ]);
    let decoded: Vec<_> = updates
        .as_array()
        .unwrap()
        .iter()
        .map(|u| read(&source, u))
        .collect();
    let messages = webview_messages(&decoded, |id| (&source).units(id)).unwrap();
    assert_eq!(messages.len(), 5);
    assert!(
        matches!(&messages[0], WebviewMessage::Message { role: Role::User, pieces } if pieces.len() == 1)
    );
    assert!(
        matches!(&messages[1], WebviewMessage::Message { role: Role::Thinking, pieces } if pieces.len() == 2)
    );
    // The update before its call made the entry; the call filled it in.
    match &messages[2] {
        WebviewMessage::ToolCall(call) => {
            assert_eq!(str_of(call.id), "b");
            assert_eq!(str_of(call.title.unwrap()), "Run");
            assert_eq!(str_of(call.status.unwrap().0), "in_progress");
        }
        other => panic!("{other:?}"),
    }
    match &messages[3] {
        WebviewMessage::ToolCall(call) => {
            assert_eq!(call.content, Some(Some(&json!([2]))), "content replaced whole");
            assert_eq!(
                call.locations,
                Some(Some(&json!([{ "path": "x" }]))),
                "locations kept"
            );
            assert_eq!(
                str_of(call.title.unwrap()),
                "Edit",
                "null leaves a field unchanged"
            );
            assert!(messages[3].is_completed_call());
        }
        other => panic!("{other:?}"),
    }
    // A tool update between two agent chunks does not split the message; an image adds nothing.
    assert!(
        matches!(&messages[4], WebviewMessage::Message { role: Role::Assistant, pieces } if pieces.len() == 2)
    );
}

#[test]
fn chat_messages_render_as_rows() {
    let source = JsonSource::new(no_dates as fn(&Value) -> f64);
    let messages = json!([
        { "id": "u1", "role": "user", "chunks": [{ "type": "text", "text": "Fix it" }] },
        { "id": "a1", "role": "assistant", "chunks": [
            { "type": "thinking", "text": "hm" },
            null,
            { "type": "tool-batch", "calls": [
                { "id": "c1", "name": "read", "arguments": { "path": "a" }, "result": "text", "isError": false },
                { "id": "c2", "name": "edit", "arguments": {}, "result": [{ "type": "diff", "path": "a", "newText": "b" }], "isError": false },
                { "id": "c3", "name": "bash", "arguments": {}, "result": { "code": 1 }, "isError": true },
                { "id": "c4", "name": "bash", "arguments": {} }
            ] },
            { "type": "image", "url": "x" },
            { "type": "text", "text": "Done" },
            { "type": "error", "message": "Overloaded", "statusCode": 529 },
            { "type": "system", "kind": "notice", "text": "Compacted" }
        ] }
    ]);
    let rows = to_unified_messages(&&source, Some(&messages)).unwrap();
    let kinds: Vec<&str> = rows.iter().map(|r| r.kind.literal().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "user",
            "thinking",
            "tool_call",
            "tool_call",
            "tool_call",
            "tool_call",
            "assistant",
            "error",
            "system"
        ]
    );
    assert!(matches!(rows[1].id, UnifiedId::Chunk(id, 0) if str_of(id) == "a1"));
    let view = |i: usize| match rows[i].tool_call {
        Some(ToolCallSlot::Built(view)) => view,
        _ => panic!("row {i}"),
    };
    assert_eq!(view(2).status, ToolStatus::Completed);
    assert!(matches!(view(2).output, Some(ToolOutput::Text(_))));
    assert!(matches!(view(3).output, Some(ToolOutput::Given(_))));
    assert_eq!(view(4).status, ToolStatus::Failed);
    assert_eq!(view(4).output, None, "an object result has no webui form");
    assert_eq!(view(5).status, ToolStatus::InProgress);
    assert!(matches!(rows[2].id, UnifiedId::Tool(id) if str_of(id) == "c1"));
    assert!(matches!(rows[6].kind, UnifiedType::Assistant));
    let flags: Vec<_> = rows.iter().map(|r| (r.is_first, r.is_last)).collect();
    assert_eq!(flags[0], (true, false));
    assert_eq!(flags[1], (true, false));
    assert_eq!(flags[8], (false, true));
}
