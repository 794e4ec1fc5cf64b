//! Solar Network: the recorded stream folds to the persisted thoughts, round trips,
//! reconciliation.

use agent_chunks::append_event;
use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::formats::sn::thought::{read_thought, reconcile, stream_events, write_thought};
use agent_chunks::reading::model_json::FormatChunk;
use agent_chunks::MessageRole;

const HISTORY: &[u8] = include_bytes!("../examples/sn-history.json");
const STREAM: &str = include_str!("../examples/sn-thinking.sse");

fn thoughts() -> Vec<Json> {
    match parse(HISTORY).unwrap() {
        Json::Array(items) => items,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_stream_builds_the_persisted_thoughts() {
    let persisted: Vec<_> = thoughts().iter().map(|t| read_thought(t).unwrap()).collect();
    let assistants: Vec<_> = persisted
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .collect();
    let mut chunks: Vec<FormatChunk> = Vec::new();
    let mut turn = 0;
    for frame in STREAM.split("\n\n").filter(|f| !f.trim().is_empty()) {
        let event = parse(frame.trim_start_matches("data: ").as_bytes()).unwrap();
        if event.get("type") == Some(&Json::string("thought")) {
            assert_eq!(chunks, assistants[turn].chunks);
            let (message, difference) = reconcile(&[], event.get("data").unwrap()).unwrap();
            assert_eq!(message, *assistants[turn]);
            assert!(difference.is_some(), "an empty stream differs from the thought");
            chunks.clear();
            turn += 1;
            continue;
        }
        for agent_event in stream_events(&event).unwrap() {
            let Ok(()) = append_event(&mut chunks, agent_event);
        }
    }
    assert_eq!(turn, 2);
}

#[test]
fn write_then_read_gives_the_same_message() {
    for thought in thoughts() {
        let message = read_thought(&thought).unwrap();
        assert_eq!(
            read_thought(&write_thought(&message, None).unwrap()).unwrap(),
            message
        );
    }
}

#[test]
fn arguments_are_parsed_when_they_are_json() {
    let thought = parse(br#"{"id":"t","role":0,"parts":[{"type":1,"functionCall":{"id":"a","name":"f","arguments":"{\"x\": [1]}"}},{"type":1,"functionCall":{"id":"b","name":"f","arguments":"x=1"}}]}"#).unwrap();
    let written = write_thought(&read_thought(&thought).unwrap(), None).unwrap();
    let args: Vec<_> = match written.get("parts") {
        Some(Json::Array(parts)) => parts
            .iter()
            .map(|p| p.get("functionCall").unwrap().get("arguments").unwrap().clone())
            .collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(args, vec![Json::string(r#"{"x":[1]}"#), Json::string("x=1")]);
}

#[test]
fn errors_name_the_path() {
    let thought = parse(br#"{"id":"t","role":"Bot","parts":[]}"#).unwrap();
    assert_eq!(
        read_thought(&thought).unwrap_err().to_string(),
        r#"role must be 0, 1, "Assistant" or "User", got "Bot""#
    );
}
