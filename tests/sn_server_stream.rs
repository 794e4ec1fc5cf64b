//! Solar Network's stream as its server (`ThoughtController`, DysonNetwork.Insight) writes
//! it: `data:` frames serialized with .NET's defaults (PascalCase `Id`, `Name`,
//! `Arguments`, `CallId`, `Result`, `IsError`, non-ASCII escaped), then the topic and the
//! persisted thought as SSE fields of their own, `topic: {…}` and `thought: {…}`, the
//! thought in snake_case. The thought replaces what streamed, as the client guide says, so
//! live equals a reload.

use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::formats::sn::thought::{read_thought, stream_events};
use agent_chunks::formats::{detect, find};
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::message_json;
use agent_chunks::{AgentEvent, Chunk};

const SERVER: &[u8] = include_bytes!("../__test__/fixtures/sn-server.sse");

fn thought() -> Json {
    let text = std::str::from_utf8(SERVER).unwrap();
    let line = text.lines().find(|l| l.starts_with("thought: ")).unwrap();
    parse(&line.as_bytes()["thought: ".len()..]).unwrap()
}

#[test]
fn pascal_case_frames_are_calls_and_results() {
    let call = parse(
        br#"{"type":"function_call","data":{"Id":"c1","Name":"get_post","Arguments":"{\"id\":\"p-1\"}"}}"#,
    )
    .unwrap();
    let result =
        parse(br#"{"type":"function_result","data":{"CallId":"c1","Result":"ok","IsError":true}}"#).unwrap();
    assert!(matches!(
        &stream_events(&call).unwrap()[..],
        [AgentEvent::ToolCall { id, name, arguments }] if *id == "c1" && *name == "get_post" && arguments.get("id").is_some()
    ));
    assert!(matches!(
        &stream_events(&result).unwrap()[..],
        [AgentEvent::ToolResult { tool_call_id, is_error: Json::Bool(true), .. }] if *tool_call_id == "c1"
    ));
    // Errors name the field in the casing the frame is missing.
    let bad = parse(br#"{"type":"function_call","data":{"Name":"x"}}"#).unwrap();
    assert_eq!(
        stream_events(&bad).unwrap_err().to_string(),
        "data.id must be a string, got undefined"
    );
}

#[test]
fn the_servers_capture_is_detected_and_ends_as_its_thought() {
    assert_eq!(detect(SERVER).unwrap().name, "sn-stream");
    let read = fold_stream(find("sn-stream").unwrap(), SERVER, false).unwrap();
    assert_eq!(read.skips.count, 0, "{:?}", read.skips.examples);
    let persisted = read_thought(&thought().get("data").unwrap().clone()).unwrap();
    assert_eq!(read.messages, std::slice::from_ref(&persisted));
    assert_eq!(read.messages[0].id, "3f0c7a52-9d1e-4c2b-8a55-0d6f0e2b9c41");
    // The result as the thought stores it (snake_case), not as its frame carried it.
    let shown = String::from_utf8(message_json(&read.messages[0]).to_json()).unwrap();
    assert!(shown.contains(r#""result":{"total":2"#), "{shown}");
}

#[test]
fn live_the_thought_replaces_what_streamed_and_says_so() {
    let text = std::str::from_utf8(SERVER).unwrap();
    let at = text.find("\n\n\n\ntopic: ").unwrap();
    let mut live = Conversation::new(find("sn-stream").unwrap(), Default::default()).unwrap();
    live.push_bytes(&SERVER[..at + 2]).unwrap();
    let streamed = owned_messages(live.messages());
    assert_eq!(streamed.len(), 1);
    // A text frame was lost in transit: the streamed text lacks it.
    assert!(
        matches!(&streamed[0].chunks[2], Chunk::Text { text } if !text.to_string_lossy().contains("about the aurora"))
    );
    let changes = live.push_bytes(&SERVER[at + 2..]).unwrap();
    assert_eq!(changes.changed.len(), 1);
    assert!(changes.changed[0].renamed);
    // The call's result as the thought stores it (chunk 1), the text replaced (chunk 2).
    assert_eq!(changes.changed[0].chunks, [1, 2]);
    assert_eq!(changes.changed[0].replaced, Some(2), "{:?}", changes.changed[0]);
    live.end().unwrap();
    assert_eq!(
        owned_messages(live.messages()),
        fold_stream(find("sn-stream").unwrap(), SERVER, false)
            .unwrap()
            .messages
    );
}

#[test]
fn a_thought_with_nothing_streamed_before_it_is_the_message() {
    let only = format!(
        "\n\nthought: {}\n\n",
        String::from_utf8(thought().to_json()).unwrap()
    );
    let read = fold_stream(find("sn-stream").unwrap(), only.as_bytes(), false).unwrap();
    assert_eq!(read.messages.len(), 1);
    assert_eq!(read.messages[0].id, "3f0c7a52-9d1e-4c2b-8a55-0d6f0e2b9c41");
}

#[test]
fn a_capture_holding_only_the_thought_is_detected() {
    let only = format!(
        "\n\nthought: {}\n\n",
        String::from_utf8(thought().to_json()).unwrap()
    );
    assert_eq!(detect(only.as_bytes()).unwrap().name, "sn-stream");
}
