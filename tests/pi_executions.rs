//! Pi's tool executions no message announced are calls, where they happened, with the
//! result their end gives; an assistant message no update built is read from its end;
//! an announcement after the execution does not make the call twice. Live and whole agree
//! after every line.

use agent_chunks::bytes::value::Json;
use agent_chunks::formats::find;
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::fold_stream;
use agent_chunks::model::{Chunk, MessageRole};
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::FormatMessage;

mod pi_events_common;
use pi_events_common::{ndjson, read};

/// A call as found: its message's index, id, name, arguments and `(result, isError)`.
type Found = (usize, String, String, Json, Option<(Json, Json)>);

/// Every call, in order.
fn calls(messages: &[FormatMessage]) -> Vec<Found> {
    let mut out = Vec::new();
    for (m, message) in messages.iter().enumerate() {
        for chunk in &message.chunks {
            if let Chunk::ToolBatch { calls } = chunk {
                for call in calls {
                    out.push((
                        m,
                        call.id.to_string_lossy().into_owned(),
                        call.name.to_string_lossy().into_owned(),
                        call.arguments.clone(),
                        call.result.clone(),
                    ));
                }
            }
        }
    }
    out
}

const START_A: &str =
    r#"{"type":"tool_execution_start","toolCallId":"a","toolName":"read","args":{"path":"x"}}"#;
const UPDATE_A: &str = r#"{"type":"tool_execution_update","toolCallId":"a","toolName":"read","args":{"path":"x"},"partialResult":{"content":[]}}"#;
const END_A: &str = r#"{"type":"tool_execution_end","toolCallId":"a","toolName":"read","result":{"content":[{"type":"text","text":"hello"}],"details":{}},"isError":false}"#;
const RESULT_A: &str = r#"{"type":"message_end","message":{"role":"toolResult","toolCallId":"a","toolName":"read","content":[{"type":"text","text":"hello"}],"isError":false}}"#;
const USER: &str = r#"{"type":"message_end","message":{"role":"user","content":"go"}}"#;

fn args(path: &str) -> Json {
    Json::object([("path", Json::string(path))])
}

#[test]
fn an_execution_no_message_announced_is_a_call_with_its_result() {
    let messages = read(&[USER, START_A, UPDATE_A, END_A, RESULT_A]);
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1].role, MessageRole::Assistant);
    let found = calls(&messages);
    assert_eq!(found.len(), 1, "{found:?}");
    let (at, id, name, arguments, result) = &found[0];
    assert_eq!((*at, id.as_str(), name.as_str()), (1, "a", "read"));
    assert_eq!(arguments, &args("x"));
    assert_eq!(result, &Some((Json::string("hello"), Json::Bool(false))));
}

#[test]
fn parallel_executions_join_one_batch_and_an_end_alone_is_a_call_without_arguments() {
    let start_b =
        r#"{"type":"tool_execution_start","toolCallId":"b","toolName":"bash","args":{"command":"ls"}}"#;
    let end_c = r#"{"type":"tool_execution_end","toolCallId":"c","toolName":"grep","result":"no match","isError":true}"#;
    let messages = read(&[START_A, start_b, END_A, end_c]);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].chunks.len(), 1, "one batch: {:?}", messages[0].chunks);
    let found = calls(&messages);
    let ids: Vec<_> = found.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(found[1].4, None, "b has not ended");
    assert_eq!(found[2].3, Json::Undefined, "the end names no arguments");
    assert_eq!(found[2].4, Some((Json::string("no match"), Json::Bool(true))));
}

const MESSAGE_START: &str =
    r#"{"type":"message_start","message":{"role":"assistant","content":[],"provider":"anthropic"}}"#;
const TEXT: &str = r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Reading."}}"#;
const ANNOUNCE_A: &str = r#"{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","contentIndex":1,"toolCall":{"type":"toolCall","id":"a","name":"read","arguments":{"path":"x"}}}}"#;
const END_WITH_A: &str = r#"{"type":"message_end","message":{"role":"assistant","provider":"anthropic","stopReason":"toolUse","content":[{"type":"text","text":"Reading."},{"type":"toolCall","id":"a","name":"read","arguments":{"path":"x"}}]}}"#;

#[test]
fn an_announced_call_is_not_made_again_and_takes_its_result_from_the_end() {
    let messages = read(&[MESSAGE_START, TEXT, ANNOUNCE_A, END_WITH_A, START_A, END_A]);
    assert_eq!(messages.len(), 1);
    let found = calls(&messages);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].4, Some((Json::string("hello"), Json::Bool(false))));
}

#[test]
fn a_message_no_update_built_is_read_from_its_end() {
    // The recording begins after the message's updates.
    let messages = read(&[END_WITH_A, START_A, END_A, RESULT_A]);
    assert_eq!(messages.len(), 1);
    assert_eq!(
        messages[0].chunks[0],
        Chunk::Text {
            text: "Reading.".into()
        }
    );
    let found = calls(&messages);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].4, Some((Json::string("hello"), Json::Bool(false))));
}

#[test]
fn a_call_its_updates_lost_is_taken_from_the_end() {
    let messages = read(&[MESSAGE_START, TEXT, END_WITH_A, START_A]);
    let found = calls(&messages);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 0, "in the message that announced it");
    assert_eq!(messages[0].chunks.len(), 2);
}

#[test]
fn an_announcement_after_its_execution_keeps_the_call_where_it_was_made() {
    let messages = read(&[
        USER,
        START_A,
        END_A,
        MESSAGE_START,
        TEXT,
        ANNOUNCE_A,
        END_WITH_A,
        RESULT_A,
    ]);
    let found = calls(&messages);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 1, "the execution's message");
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[2].chunks,
        vec![Chunk::Text {
            text: "Reading.".into()
        }]
    );
}

#[test]
fn the_same_id_in_a_later_turn_is_a_call_of_its_own() {
    let messages = read(&[
        MESSAGE_START,
        ANNOUNCE_A,
        END_WITH_A,
        START_A,
        END_A,
        USER,
        START_A,
        END_A,
    ]);
    let found = calls(&messages);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!((found[0].0, found[1].0), (0, 2));
}

#[test]
fn resumed_after_the_announcing_message_an_execution_is_its_call() {
    let format = find("pi-events").unwrap();
    let frames = [MESSAGE_START, TEXT, ANNOUNCE_A, END_WITH_A];
    let loaded = fold_stream(format, &ndjson(&frames), true).unwrap().messages;
    let mut live = Conversation::resume(format, Default::default(), loaded, None).unwrap();
    live.push_bytes(&ndjson(&[START_A, END_A])).unwrap();
    let whole = fold_stream(format, &ndjson(&[&frames[..], &[START_A, END_A]].concat()), true).unwrap();
    assert_eq!(owned_messages(live.messages()), whole.messages);
}

#[test]
fn a_turn_start_ends_a_message_executions_made() {
    let start_b =
        r#"{"type":"tool_execution_start","toolCallId":"b","toolName":"bash","args":{"command":"ls"}}"#;
    let messages = read(&[START_A, END_A, r#"{"type":"turn_start"}"#, start_b]);
    assert_eq!(messages.len(), 2);
    let found = calls(&messages);
    assert_eq!((found[0].0, found[1].0), (0, 1));
}

/// OpenClaw's gateway: a tool's result (or progress) whose start the capture missed is
/// the call, by the name the frame gives.
#[test]
fn a_gateway_result_without_its_start_is_a_call() {
    let format = find("pi-stream").unwrap();
    let frames = [
        r#"{"type":"event","event":"agent","payload":{"stream":"tool","data":{"phase":"update","name":"weather","toolCallId":"w1","partialResult":{}}}}"#,
        r#"{"type":"event","event":"agent","payload":{"stream":"tool","data":{"phase":"result","name":"weather","toolCallId":"w1","result":{"content":[{"type":"text","text":"18°C"}]},"isError":false}}}"#,
        r#"{"type":"tool-end","toolCallId":"g2","name":"grep","result":"none","isError":true}"#,
    ];
    let mut live = Conversation::new(format, Default::default()).unwrap();
    for (i, frame) in frames.iter().enumerate() {
        live.push_bytes(&ndjson(&[frame])).unwrap();
        let whole = fold_stream(format, &ndjson(&frames[..=i]), true).unwrap();
        assert_eq!(owned_messages(live.messages()), whole.messages);
    }
    let found = calls(&owned_messages(live.messages()));
    let named: Vec<_> = found.iter().map(|c| (c.1.as_str(), c.2.as_str())).collect();
    assert_eq!(named, [("w1", "weather"), ("g2", "grep")]);
    assert_eq!(found[0].4, Some((Json::string("18°C"), Json::Bool(false))));
    assert_eq!(found[1].4, Some((Json::string("none"), Json::Bool(true))));
}

#[test]
fn resumed_after_a_user_message_an_execution_is_an_assistant_message_of_its_own() {
    let format = find("pi-events").unwrap();
    let loaded = fold_stream(format, &ndjson(&[USER]), true).unwrap().messages;
    let mut live = Conversation::resume(format, Default::default(), loaded, None).unwrap();
    live.push_bytes(&ndjson(&[START_A, END_A])).unwrap();
    let whole = fold_stream(format, &ndjson(&[USER, START_A, END_A]), true).unwrap();
    assert_eq!(owned_messages(live.messages()), whole.messages);
    assert_eq!(whole.messages[1].role, MessageRole::Assistant);
}

#[test]
fn a_refused_message_end_changes_nothing() {
    let format = find("pi-events").unwrap();
    let nameless_call = r#"{"type":"message_end","message":{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"z","arguments":{}}]}}"#;
    let bad_reason = r#"{"type":"message_end","message":{"role":"assistant","stopReason":5,"content":[]}}"#;
    // After a streamed message only its calls and error are read from the end; read whole,
    // it is read as the pi reader reads a stored message.
    let cases: [(&[&str], &[&str]); 2] = [
        (&[MESSAGE_START, TEXT], &[nameless_call, bad_reason]),
        (&[USER], &[nameless_call, bad_reason]),
    ];
    for (before, refused) in cases {
        for frame in refused {
            let mut live = Conversation::new(format, Default::default()).unwrap();
            live.push_bytes(&ndjson(before)).unwrap();
            let messages = owned_messages(live.messages());
            assert!(live.push_bytes(&ndjson(&[frame])).is_err(), "{frame}");
            assert_eq!(owned_messages(live.messages()), messages, "{frame}");
        }
    }
}

/// An end no update built whose `content` is a string reads as that text, as the pi
/// reader reads such a stored message (OpenClaw's UI shows it so), not refused.
#[test]
fn an_end_read_whole_with_string_content_is_its_text() {
    let format = find("pi-events").unwrap();
    let end = r#"{"type":"message_end","message":{"role":"assistant","content":"plain words"}}"#;
    let read = fold_stream(format, &ndjson(&[USER, end]), true).unwrap();
    assert_eq!(
        read.messages[1].chunks,
        [agent_chunks::Chunk::Text {
            text: "plain words".into()
        }]
    );
}

/// With its resume state, a conversation that goes on between an execution and the late
/// message announcing it does not add the call again: the executed ids are kept.
#[test]
fn resumed_with_its_state_between_an_execution_and_its_announcement() {
    let format = find("pi-events").unwrap();
    let frames = [
        USER,
        START_A,
        END_A,
        MESSAGE_START,
        TEXT,
        ANNOUNCE_A,
        END_WITH_A,
        RESULT_A,
    ];
    let whole = fold_stream(format, &ndjson(&frames), true).unwrap().messages;
    for cut in 0..=frames.len() {
        let loaded = fold_stream(format, &ndjson(&frames[..cut]), true).unwrap();
        let mut live =
            Conversation::resume(format, Default::default(), loaded.messages, Some(&loaded.resume)).unwrap();
        live.push_bytes(&ndjson(&frames[cut..])).unwrap();
        live.end().unwrap();
        assert_eq!(
            owned_messages(live.messages()),
            whole,
            "going on after frame {cut}"
        );
    }
}
