//! Pi's `message_end` holds the whole assistant message, and pi shows it: its screen
//! redraws the message from it and its session file stores it. Whatever updates were
//! lost (a text, a thought, a signature, a call), the message ends as the end holds it,
//! its calls keeping the results executions gave them; an end that contradicts its
//! updates wins too, counted (refused under `strict`). Live, whole and resumed agree, and
//! the UI message stream never contradicts what it wrote without saying so.

use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::formats::ai_sdk::chunks::write_messages;
use agent_chunks::formats::ai_sdk::AI_SDK;
use agent_chunks::formats::find;
use agent_chunks::formats::pi::session::read_session;
use agent_chunks::live::conversation::{Conversation, LiveOptions};
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::FormatMessage;
use agent_chunks::{Chunk, MessageRole};

mod pi_events_common;
use pi_events_common::{ndjson, read};

const LOST: &[u8] = include_bytes!("../__test__/fixtures/pi-lost-updates.events.ndjson");

fn text(text: &str) -> Chunk<agent_chunks::bytes::wtf8::Wtf8, Json> {
    Chunk::Text { text: text.into() }
}

fn sealed(text: &str, signature: &str) -> Chunk<agent_chunks::bytes::wtf8::Wtf8, Json> {
    Chunk::Thinking {
        text: text.into(),
        metadata: Some(Json::object([(
            "anthropic",
            Json::object([("signature", Json::string(signature))]),
        )])),
    }
}

const START: &str =
    r#"{"type":"message_start","message":{"role":"assistant","content":[],"provider":"anthropic"}}"#;
const TEXT: &str = r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"Reading."}}"#;
const CALL_A: &str = r#"{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","contentIndex":2,"toolCall":{"type":"toolCall","id":"a","name":"read","arguments":{"path":"x"}}}}"#;
const END: &str = r#"{"type":"message_end","message":{"role":"assistant","provider":"anthropic","stopReason":"toolUse","content":[{"type":"thinking","thinking":"Look first.","thinkingSignature":"s1"},{"type":"text","text":"Reading."},{"type":"toolCall","id":"a","name":"read","arguments":{"path":"x"}}]}}"#;

#[test]
fn a_thought_whose_updates_were_lost_is_taken_from_the_end() {
    let messages = read(&[START, TEXT, CALL_A, END]);
    assert_eq!(messages.len(), 1);
    let chunks = &messages[0].chunks;
    assert_eq!(chunks[..2], [sealed("Look first.", "s1"), text("Reading.")]);
    assert!(matches!(&chunks[2], Chunk::ToolBatch { calls } if calls.len() == 1));
}

#[test]
fn a_text_whose_updates_were_lost_is_taken_from_the_end_and_the_call_keeps_its_result() {
    // The execution of `a` ended before the message did (out of order): its result stays.
    let executed = r#"{"type":"tool_execution_end","toolCallId":"a","toolName":"read","result":{"content":[{"type":"text","text":"body"}]},"isError":false}"#;
    let thought = r#"{"type":"message_update","assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"Look first."}}"#;
    let seal = r#"{"type":"message_update","assistantMessageEvent":{"type":"thinking_end","contentIndex":0,"partial":{"content":[{"type":"thinking","thinking":"Look first.","thinkingSignature":"s1"}]}}}"#;
    let messages = read(&[START, thought, seal, CALL_A, executed, END]);
    let chunks = &messages[0].chunks;
    assert_eq!(chunks[..2], [sealed("Look first.", "s1"), text("Reading.")]);
    let Chunk::ToolBatch { calls } = &chunks[2] else {
        panic!("{chunks:?}")
    };
    assert_eq!(calls[0].result, Some((Json::string("body"), Json::Bool(false))));
}

/// A call an execution made while the message streamed, which the end does not hold,
/// stays in the message, after the end's content.
#[test]
fn a_call_made_by_an_execution_the_end_does_not_hold_stays() {
    let start_b =
        r#"{"type":"tool_execution_start","toolCallId":"b","toolName":"bash","args":{"command":"ls"}}"#;
    let messages = read(&[START, TEXT, start_b, CALL_A, END]);
    let Chunk::ToolBatch { calls } = &messages[0].chunks[2] else {
        panic!()
    };
    let ids: Vec<_> = calls.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(ids, ["a", "b"]);
}

/// pi's Anthropic provider gives a redacted thought its text when the block starts and
/// sends no delta: the block's end shows it, sealed, before the message ends.
#[test]
fn a_redacted_thought_shows_when_its_block_ends() {
    let format = find("pi-events").unwrap();
    let redacted = r#"{"type":"message_update","assistantMessageEvent":{"type":"thinking_end","contentIndex":0,"content":"[Reasoning redacted]","partial":{"content":[{"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"opaque","redacted":true}]}}}"#;
    let end = r#"{"type":"message_end","message":{"role":"assistant","provider":"anthropic","content":[{"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"opaque","redacted":true},{"type":"text","text":"Reading."}]}}"#;
    let mut live = Conversation::new(format, Default::default()).unwrap();
    live.push_bytes(&ndjson(&[START, redacted])).unwrap();
    assert_eq!(
        owned_messages(live.messages())[0].chunks,
        [sealed("[Reasoning redacted]", "opaque")]
    );
    live.push_bytes(&ndjson(&[TEXT])).unwrap();
    let changes = live.push_bytes(&ndjson(&[end])).unwrap();
    assert!(changes.is_empty(), "the end holds what streamed: {changes:?}");
}

const DIFFERENT: &str = r#"{"type":"message_end","message":{"role":"assistant","provider":"anthropic","content":[{"type":"text","text":"Written."}]}}"#;

#[test]
fn an_end_that_contradicts_its_updates_is_kept_and_counted() {
    let format = find("pi-events").unwrap();
    let folded = fold_stream(format, &ndjson(&[START, TEXT, CALL_A, DIFFERENT]), false).unwrap();
    assert_eq!(folded.messages[0].chunks, [text("Written.")]);
    assert_eq!(folded.skips.count, 1);
    assert_eq!(
        folded.skips.examples,
        ["line 4: a message_end that differs from what its updates built (the end's message is kept)"]
    );
    // Lost updates are not a contradiction: a text missing pieces is within the end's.
    let partly = r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Now Reading.."}]}}"#;
    let folded = fold_stream(format, &ndjson(&[START, TEXT, partly]), true).unwrap();
    assert_eq!(folded.messages[0].chunks, [text("Now Reading..")]);
}

#[test]
fn strict_refuses_an_end_that_contradicts_its_updates_and_changes_nothing() {
    let format = find("pi-events").unwrap();
    let error = fold_stream(format, &ndjson(&[START, TEXT, DIFFERENT]), true).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 3: message.content differs from what the message's updates built (strict: a message_end that contradicts its updates is refused)"
    );
    let options = LiveOptions {
        strict: true,
        ..LiveOptions::default()
    };
    let mut live = Conversation::new(format, options).unwrap();
    live.push_bytes(&ndjson(&[START, TEXT])).unwrap();
    let before = owned_messages(live.messages());
    assert!(live.push_bytes(&ndjson(&[DIFFERENT])).is_err());
    assert_eq!(owned_messages(live.messages()), before);
}

/// One push that grows a message and then ends it with fewer chunks than it had: the
/// report names the message as replaced, and nothing out of it.
#[test]
fn an_end_with_fewer_chunks_in_the_same_push_is_reported_replaced() {
    let format = find("pi-events").unwrap();
    let user = r#"{"type":"message_end","message":{"role":"user","content":"go"}}"#;
    let mut live = Conversation::new(format, Default::default()).unwrap();
    live.push_bytes(&ndjson(&[user, START, TEXT])).unwrap();
    let changes = live.push_bytes(&ndjson(&[CALL_A, DIFFERENT])).unwrap();
    assert_eq!(changes.changed.len(), 1);
    assert_eq!(changes.changed[0].index, 1);
    assert_eq!(changes.changed[0].replaced, Some(0));
    assert_eq!(changes.changed[0].chunks, [0]);
    assert_eq!(owned_messages(live.messages())[1].chunks, [text("Written.")]);
}

/// The recording with lost updates ends as the session its message ends make: read as
/// bare message lines, the pi reader gives the same messages (ids aside).
#[test]
fn a_recording_with_lost_updates_ends_as_the_session_it_stores() {
    let format = find("pi-events").unwrap();
    let folded = fold_stream(format, LOST, false).unwrap();
    let mut session = Vec::new();
    for line in LOST.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut value = parse(line).unwrap();
        if value
            .get("type")
            .and_then(Json::as_str)
            .is_some_and(|t| *t == "message_end")
        {
            session.extend(value.take("message").unwrap().to_json());
            session.push(b'\n');
        }
    }
    let stored = read_session(&session).unwrap();
    let shown = |messages: &[FormatMessage]| -> Vec<(MessageRole, Vec<Chunk<_, _>>)> {
        messages.iter().map(|m| (m.role, m.chunks.clone())).collect()
    };
    assert_eq!(shown(&folded.messages), shown(&stored));
    assert_eq!(folded.skips.count, 1, "the one end that contradicts its updates");
}

/// Going on from every line with the resume state gives the whole recording; so does
/// a recording read with lines dropped at random (lost updates) from every cut.
#[test]
fn resumed_from_every_line_it_ends_as_the_whole() {
    let format = find("pi-events").unwrap();
    let lines: Vec<&[u8]> = LOST.split_inclusive(|&b| b == b'\n').collect();
    let whole = fold_stream(format, LOST, false).unwrap();
    for cut in 0..=lines.len() {
        let loaded = fold_stream(format, &lines[..cut].concat(), false).unwrap();
        let state = parse(&loaded.resume.to_json()).unwrap();
        let mut live =
            Conversation::resume(format, Default::default(), loaded.messages, Some(&state)).unwrap();
        live.push_bytes(&lines[cut..].concat()).unwrap();
        live.end().unwrap();
        assert_eq!(owned_messages(live.messages()), whole.messages, "from line {cut}");
        assert_eq!(live.skips(), &whole.skips, "from line {cut}");
    }
}

fn kind(chunk: &Json) -> String {
    chunk.get("type").and_then(Json::as_str).unwrap().to_string()
}

fn field(chunk: &Json, key: &str) -> String {
    chunk
        .get(key)
        .and_then(Json::as_str)
        .map(|s| s.to_string())
        .unwrap_or_default()
}

/// The UI stream written after every line: every part begun is ended once, before its
/// message's `finish`; every output follows its call's input; a message whose end
/// contradicts what was written of it goes out whole, as the history has it.
#[test]
fn the_ui_stream_says_when_an_end_contradicts_what_it_wrote() {
    let format = find("pi-events").unwrap();
    let mut live = Conversation::new(format, Default::default()).unwrap();
    let mut written = Vec::new();
    for line in LOST.split_inclusive(|&b| b == b'\n') {
        live.push_bytes(line).unwrap();
        written.extend(live.serve(&AI_SDK));
    }
    live.end().unwrap();
    written.extend(live.serve(&AI_SDK));
    let messages = owned_messages(live.messages());
    let mut open = std::collections::HashSet::new();
    let mut inputs = std::collections::HashSet::new();
    let mut replaced = Vec::new();
    for chunk in &written {
        let kind = kind(chunk);
        match kind.as_str() {
            "text-start" | "reasoning-start" => assert!(open.insert(field(chunk, "id")), "{kind} twice"),
            "text-end" | "reasoning-end" => {
                assert!(open.remove(&field(chunk, "id")), "{kind} of no open part")
            }
            "text-delta" | "reasoning-delta" => {
                assert!(open.contains(&field(chunk, "id")), "{kind} of no open part")
            }
            "tool-input-available" => assert!(inputs.insert(field(chunk, "toolCallId"))),
            "tool-output-available" | "tool-output-error" => {
                assert!(inputs.contains(&field(chunk, "toolCallId")))
            }
            "finish" => assert!(open.is_empty(), "parts left open: {open:?}"),
            "data-message-replaced" => {
                assert_eq!(chunk.get("transient"), Some(&Json::Bool(true)));
                replaced.push((field(chunk, "id"), chunk.get("data").unwrap().clone()));
            }
            _ => {}
        }
    }
    // The response of both assistant messages (one UI message, a step each): the first
    // lost a seal and a call after its text was written, the second's end has another
    // text. It goes out whole once, before its `finish`.
    let expected: Vec<_> = write_messages(&messages)
        .into_iter()
        .filter(|m| {
            m.get("role")
                .and_then(Json::as_str)
                .is_some_and(|r| *r == "assistant")
        })
        .map(|m| (field(&m, "id"), m))
        .collect();
    assert_eq!(replaced, expected);
}

/// An end that only adds to what was written (the message's last text, lost) is written
/// as the rest of it, with nothing replaced.
#[test]
fn an_end_that_only_adds_is_written_as_more_of_the_message() {
    let format = find("pi-events").unwrap();
    let more = r#"{"type":"message_end","message":{"role":"assistant","provider":"anthropic","content":[{"type":"text","text":"Reading. Then writing."}]}}"#;
    let text_only = r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Reading."}}"#;
    let mut live = Conversation::new(format, Default::default()).unwrap();
    live.push_bytes(&ndjson(&[START, text_only])).unwrap();
    let mut written = live.serve(&AI_SDK);
    live.push_bytes(&ndjson(&[more])).unwrap();
    live.end().unwrap();
    written.extend(live.serve(&AI_SDK));
    let kinds: Vec<_> = written.iter().map(kind).collect();
    assert_eq!(
        kinds,
        [
            "start",
            "start-step",
            "text-start",
            "text-delta",
            "text-delta",
            "text-end",
            "finish-step",
            "finish"
        ]
    );
    assert_eq!(field(&written[4], "delta"), " Then writing.");
}
