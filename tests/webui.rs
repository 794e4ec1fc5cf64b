//! The webui adapters over JSON values: the seed's rows, rule by rule.

use agent_chunks::formats::chatviewer::adapter::adapt_jsonl_messages;
use agent_chunks::views::serde_source::{JsonError, JsonSource};
use agent_chunks::views::unified::{
    Content, Timestamp, ToolCallSlot, UnifiedId, UnifiedMessage, UnifiedType,
};
use agent_chunks::views::webui::adapt_acp_messages;
use serde_json::{json, Value};

/// Test dates: numbers as they are, `"t<n>"` as `n`, anything else invalid.
fn time(value: &Value) -> f64 {
    match value {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => s
            .strip_prefix('t')
            .and_then(|n| n.parse().ok())
            .unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn text(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or("<not a string>")
}

fn flags<V>(rows: &[UnifiedMessage<V>]) -> Vec<(bool, bool)> {
    rows.iter().map(|r| (r.is_first, r.is_last)).collect()
}

#[test]
fn acp_messages_get_the_seeds_ids_types_and_timestamps() {
    let input = json!([
        { "type": "message", "data": { "role": "user", "content": "hi", "timestamp": 5 } },
        { "type": "message", "data": { "role": "thinking", "content": "hmm", "timestamp": 0 } },
        { "type": "in-progress-tool-call", "data": { "toolCallId": "a", "kind": "read" } },
        { "type": "message", "data": { "role": "system", "content": "done" } },
    ]);
    let source = JsonSource::new(time);
    let rows = adapt_acp_messages(&&source, Some(&input)).unwrap();
    assert!(matches!(rows[0].id, UnifiedId::Message(0)));
    assert!(matches!(rows[0].kind, UnifiedType::User));
    assert!(matches!(rows[0].timestamp, Timestamp::Given(Some(t)) if t == &json!(5)));
    // `timestamp || now`: a falsy timestamp means the clock.
    assert!(matches!(rows[1].timestamp, Timestamp::Now));
    assert!(matches!(rows[1].kind, UnifiedType::Thinking));
    assert!(matches!(rows[2].id, UnifiedId::Tool(id) if text(id) == "a"));
    assert!(matches!(rows[2].tool_call, Some(ToolCallSlot::Given(Some(data))) if data == &input[2]["data"]));
    assert!(rows[2].content.is_none(), "a tool row has no content key");
    // Any other role is an assistant row.
    assert!(matches!(rows[3].kind, UnifiedType::Assistant));
    assert_eq!(
        flags(&rows),
        vec![(true, false), (true, false), (false, false), (false, true)]
    );
}

#[test]
fn an_unknown_acp_type_is_the_seeds_error() {
    let input = json!([{ "type": "message", "data": {} }, { "type": "status", "data": {} }]);
    let source = JsonSource::new(time);
    assert_eq!(
        adapt_acp_messages(&&source, Some(&input)),
        Err(JsonError::UnknownMessageType(json!("status")))
    );
}

#[test]
fn acp_bad_input_names_the_index_and_field() {
    let source = JsonSource::new(time);
    let cases = [
        (json!([1]), "messages[0] must be an object, got number"),
        (
            json!([{ "data": {} }]),
            "messages[0].type must be a string, got undefined",
        ),
        (
            json!([{ "type": "message" }]),
            "messages[0].data must be an object, got undefined",
        ),
        (
            json!([{ "type": "message", "data": {} }, { "type": "completed-tool-call", "data": { "toolCallId": 4 } }]),
            "messages[1].data.toolCallId must be a string, got number",
        ),
    ];
    for (input, message) in cases {
        match adapt_acp_messages(&&source, Some(&input)) {
            Err(JsonError::Invalid(e)) => assert_eq!(e.to_string(), message),
            other => panic!("{input}: {other:?}"),
        }
    }
}

#[test]
fn transcripts_sort_by_time_and_extract_content() {
    let input = json!([
        { "uuid": "c", "timestamp": "t30", "type": "assistant", "message": { "role": "thinking", "content": "deep" } },
        { "uuid": "a", "timestamp": "t10", "type": "user", "message": { "content": "question" } },
        { "uuid": "b", "timestamp": "t20", "type": "assistant", "message": { "parts": [{ "text": "an" }, {}, { "text": "swer" }], "content": "ignored" } },
        { "uuid": "d", "timestamp": 30, "type": "tool_call", "message": { "role": "thinking" }, "toolCall": { "toolCallId": "x" } },
        { "uuid": "e", "timestamp": "t40", "type": "assistant", "message": { "parts": [], "content": "" } },
        { "uuid": "f", "timestamp": "t50", "type": "user" },
    ]);
    let source = JsonSource::new(time);
    let rows = adapt_jsonl_messages(&&source, Some(&input)).unwrap();
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| match r.id {
            UnifiedId::Given(id) => text(id),
            _ => "?",
        })
        .collect();
    // Stable: `c` and `d` share a time and keep their input order.
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    assert!(matches!(rows[0].kind, UnifiedType::Given(Some(t)) if t == "user"));
    assert!(matches!(&rows[1].content, Some(Content::Joined(pieces)) if pieces.len() == 2));
    assert!(matches!(rows[2].kind, UnifiedType::Thinking));
    assert!(matches!(&rows[2].content, Some(Content::Given(Some(c))) if *c == &json!("deep")));
    // A tool call stays a tool call even with a thinking role.
    assert!(matches!(rows[3].kind, UnifiedType::ToolCall));
    assert!(matches!(rows[3].tool_call, Some(ToolCallSlot::Given(Some(_)))));
    assert!(matches!(rows[4].content, Some(Content::Empty)));
    assert!(matches!(rows[5].content, Some(Content::Empty)));
    // The `toolCall` key is there even when the line has none.
    assert!(matches!(rows[0].tool_call, Some(ToolCallSlot::Given(None))));
    assert!(matches!(rows[0].timestamp, Timestamp::Millis(t) if t == 10.0));
    assert_eq!(
        flags(&rows),
        vec![
            (true, false),
            (true, false),
            (false, false),
            (false, false),
            (false, true),
            // The user line after an assistant line: the seed flags it as a sequence end.
            (false, true)
        ]
    );
}

#[test]
fn transcript_bad_input_names_the_index_and_field() {
    let source = JsonSource::new(time);
    let line = |extra: Value| {
        let mut line = json!({ "uuid": "u", "timestamp": "t1", "type": "user" });
        for (k, v) in extra.as_object().unwrap() {
            line[k] = v.clone();
        }
        json!([{ "uuid": "ok", "timestamp": 1, "type": "user" }, line])
    };
    let cases = [
        (
            line(json!({ "uuid": 3 })),
            "messages[1].uuid must be a string, got number",
        ),
        (
            line(json!({ "timestamp": true })),
            "messages[1].timestamp must be a string or a number, got boolean",
        ),
        (
            line(json!({ "type": null })),
            "messages[1].type must be a string, got null",
        ),
        (
            line(json!({ "message": "hi" })),
            "messages[1].message must be an object, null or undefined, got string",
        ),
        (
            line(json!({ "message": { "parts": "ab" } })),
            "messages[1].message.parts must be an array, got string",
        ),
        (
            line(json!({ "message": { "parts": [null] } })),
            "messages[1].message.parts[0] must be an object, got null",
        ),
        (
            line(json!({ "message": { "parts": [{ "text": 1 }] } })),
            "messages[1].message.parts[0].text must be a string, null or undefined, got number",
        ),
    ];
    for (input, message) in cases {
        match adapt_jsonl_messages(&&source, Some(&input)) {
            Err(JsonError::Invalid(e)) => assert_eq!(e.to_string(), message),
            other => panic!("{input}: {other:?}"),
        }
    }
}

/// The joined text of a row's content, for rows built from parts.
fn joined(row: &UnifiedMessage<Option<&Value>>) -> String {
    match &row.content {
        Some(Content::Joined(pieces)) => pieces.iter().map(|p| text(*p)).collect(),
        Some(Content::Given(value)) => text(*value).to_string(),
        _ => "<empty>".to_string(),
    }
}

#[test]
fn chatviewer_user_rows_show_what_the_current_qwen_webui_shows() {
    let tag = "<qwen:user-prompt-submit-context>\nhook-only context\n</qwen:user-prompt-submit-context>";
    let user = |parts: Value, payload: Option<Value>| {
        let mut line = json!({ "uuid": "u", "timestamp": "t1", "type": "user", "message": { "role": "user", "parts": parts } });
        if let Some(payload) = payload {
            line["systemPayload"] = payload;
        }
        line
    };
    let input = json!([
        // displayText with the hookContext it replaced.
        user(
            json!([{ "text": "expanded" }, { "text": tag }]),
            Some(json!({ "displayText": "raw @file", "hookContext": "hook-only context" }))
        ),
        // An empty displayText is still what is shown.
        user(
            json!([{ "text": "expanded" }]),
            Some(json!({ "displayText": "", "hookContext": "h" }))
        ),
        // displayText without hookContext, a final tag-only part proving where it came
        // from (the single-field metadata Qwen Code once released): displayText.
        user(
            json!([{ "text": "a" }, { "text": tag }]),
            Some(json!({ "displayText": "shown" }))
        ),
        // displayText with neither (a notification's label): the parts, as the seed joins them.
        user(
            json!([{ "text": "notification model text" }]),
            Some(json!({ "displayText": "Background agent completed" }))
        ),
        // No payload: a final tag-only part is left out.
        user(json!([{ "text": "user prompt" }, { "text": tag }]), None),
        // A payload that is no object (null, an array) is none: the part is left out too.
        user(
            json!([{ "text": "user prompt" }, { "text": tag }]),
            Some(Value::Null)
        ),
        user(
            json!([{ "text": "user prompt" }, { "text": tag }]),
            Some(json!(["x"]))
        ),
        // A payload object without a displayText keeps the part (only no payload strips it).
        user(
            json!([{ "text": "user prompt" }, { "text": tag }]),
            Some(json!({ "hookContext": "h" }))
        ),
        // A bare trailing context without tags is kept.
        user(
            json!([{ "text": "user prompt" }, { "text": "legacy bare" }]),
            None
        ),
        // A lone tag part is the whole message: kept.
        user(json!([{ "text": tag }]), None),
        // Assistant rows are the seed's, tag and all.
        json!({ "uuid": "a", "timestamp": "t2", "type": "assistant", "message": { "parts": [{ "text": "x" }, { "text": tag }] } }),
        // Claude's string content is the seed's.
        json!({ "uuid": "c", "timestamp": "t3", "type": "user", "message": { "role": "user", "content": "Claude prompt" } }),
    ]);
    let source = JsonSource::new(time);
    let rows = adapt_jsonl_messages(&&source, Some(&input)).unwrap();
    let shown: Vec<String> = rows.iter().map(joined).collect();
    assert_eq!(
        shown,
        [
            "raw @file".to_string(),
            String::new(),
            "shown".to_string(),
            "notification model text".to_string(),
            "user prompt".to_string(),
            "user prompt".to_string(),
            "user prompt".to_string(),
            format!("user prompt{tag}"),
            "user promptlegacy bare".to_string(),
            tag.to_string(),
            format!("x{tag}"),
            "Claude prompt".to_string(),
        ]
    );
}

#[test]
fn chatviewer_lines_of_no_row_type_are_left_out() {
    let input = json!([
        { "type": "summary", "summary": "A title", "leafUuid": "x" },
        { "type": "file-history-snapshot", "messageId": "m", "snapshot": {} },
        { "uuid": "u", "timestamp": "t1", "type": "user", "message": { "content": "hi" } },
        { "uuid": "r", "timestamp": "t2", "type": "tool_result", "message": { "parts": [{ "functionResponse": {} }] } },
        { "uuid": "a", "timestamp": "t3", "type": "assistant", "message": { "content": "ok" } },
    ]);
    let source = JsonSource::new(time);
    let rows = adapt_jsonl_messages(&&source, Some(&input)).unwrap();
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| match r.id {
            UnifiedId::Given(id) => text(id),
            _ => "?",
        })
        .collect();
    assert_eq!(ids, ["u", "a"]);
    assert_eq!(flags(&rows), vec![(true, false), (true, true)]);
    // A type that is not a string is still the seed's error, and so is a row without uuid.
    for (bad, message) in [
        (
            json!([{ "uuid": "u", "timestamp": "t1", "type": 7 }]),
            "messages[0].type must be a string, got number",
        ),
        (
            json!([{ "timestamp": "t1", "type": "user" }]),
            "messages[0].uuid must be a string, got undefined",
        ),
    ] {
        match adapt_jsonl_messages(&&source, Some(&bad)) {
            Err(JsonError::Invalid(e)) => assert_eq!(e.to_string(), message),
            other => panic!("{message}: got {:?}", other.map(|rows| rows.len())),
        }
    }
}
