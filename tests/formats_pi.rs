//! Pi: the recorded stream folds to the persisted session, round trips, errors.

use agent_chunks::append_event;
use agent_chunks::formats::model_json::{message_json, FormatChunk};
use agent_chunks::formats::pi::{gateway_events, read_lines, read_session, tool_result_value, write_session};
use agent_chunks::formats::value::{parse, Json};
use agent_chunks::{Chunk, MessageRole};

const SESSION: &[u8] = include_bytes!("../examples/pi-session.jsonl");
const STREAM: &str = include_str!("../examples/pi-session.stream.ndjson");

#[test]
fn the_stream_builds_the_persisted_session() {
    let history = read_session(SESSION).unwrap();
    let assistants: Vec<_> = history
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .collect();
    let mut turns: Vec<Vec<FormatChunk>> = vec![Vec::new()];
    for line in STREAM.lines() {
        let event = parse(line.as_bytes()).unwrap();
        if event.get("type") == Some(&Json::string("final")) {
            turns.push(Vec::new());
            continue;
        }
        for agent_event in gateway_events(&event).unwrap() {
            let Ok(()) = append_event(turns.last_mut().unwrap(), agent_event);
        }
    }
    turns.pop();
    assert_eq!(turns.len(), 3);
    for (built, persisted) in turns.iter().zip(&assistants) {
        assert_eq!(built, &persisted.chunks);
    }
}

#[test]
fn write_then_read_gives_the_same_messages() {
    let history = read_session(SESSION).unwrap();
    assert_eq!(read_session(&write_session(&history)).unwrap(), history);
}

#[test]
fn parsed_lines_read_like_the_text() {
    let lines: Vec<Json> = SESSION
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| parse(l).unwrap())
        .collect();
    assert_eq!(read_lines(lines).unwrap(), read_session(SESSION).unwrap());
}

#[test]
fn thinking_signature_becomes_metadata_keyed_by_provider() {
    let text = br#"{"role":"assistant","content":[{"type":"thinking","thinking":"a","thinkingSignature":"s"},{"type":"thinking","thinking":"b"}]}"#;
    let messages = read_session(text).unwrap();
    let json = String::from_utf8(message_json(&messages[0]).to_json()).unwrap();
    assert_eq!(
        json,
        r#"{"id":"line-1","role":"assistant","chunks":[{"type":"thinking","text":"a","metadata":{"unknown":{"signature":"s"}}},{"type":"thinking","text":"b"}]}"#
    );
}

#[test]
fn tool_results_are_joined_text_or_content_as_given() {
    let joined =
        tool_result_value(parse(br#"[{"type":"text","text":"a"},{"type":"text","text":"b"}]"#).unwrap());
    assert_eq!(joined, Json::string("ab"));
    let mixed = parse(br#"[{"type":"text","text":"a"},{"type":"image","data":""}]"#).unwrap();
    assert_eq!(tool_result_value(mixed.clone()), mixed);
    assert_eq!(tool_result_value(Json::string("s")), Json::string("s"));
}

#[test]
fn a_result_without_its_call_changes_nothing() {
    let text = br#"{"role":"toolResult","toolCallId":"nope","content":"x"}"#;
    let messages = read_session(text).unwrap();
    assert_eq!(messages[0].chunks, Vec::<Chunk<_, _>>::new());
}

#[test]
fn errors_name_line_and_path() {
    let text = b"{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"x\"}]}";
    assert_eq!(
        read_session(text).unwrap_err().to_string(),
        "line 3: content[0].name must be a string, got undefined"
    );
    let truncated = read_session(b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\n\n").unwrap_err();
    assert_eq!(truncated.line, Some(2));
    assert!(truncated.problem.starts_with("truncated JSON"), "{truncated}");
}
