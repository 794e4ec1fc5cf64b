//! Copilot CLI session events: detected by content (not as an AI SDK stream), the live
//! stream folding to what events.jsonl holds, read as Copilot shows a session.

mod common;

use agent_chunks::formats::{detect, find};
use agent_chunks::live::fold_stream;
use agent_chunks::MessageRole;
use common::{fold, json_texts, lines};

const LIVE: &[u8] = include_bytes!("../examples/copilot-session.stream.ndjson");
const FILE: &[u8] = include_bytes!("../examples/copilot-session.events.jsonl");

#[test]
fn events_jsonl_and_the_live_stream_are_told_as_copilot() {
    assert_eq!(detect(FILE).unwrap().name, "copilot");
    assert_eq!(detect(LIVE).unwrap().name, "copilot");
    assert_eq!(
        detect(include_bytes!("../examples/ai-sdk-stream.sse"))
            .unwrap()
            .name,
        "ai-sdk"
    );
}

#[test]
fn the_live_stream_ends_as_the_file_it_leaves() {
    let live = fold("copilot", LIVE);
    let file = fold("copilot", FILE);
    assert_eq!(live.messages, file.messages);
    assert_eq!(live.skips.count, 0);
    assert_eq!(file.skips.count, 0);
    let shown = json_texts(&file.messages);
    // The prompt as typed, reasoning sealed with its opaque part, calls with their
    // results (a failed one as an error), the answer that ended (not the retried one).
    assert_eq!(
        shown[0],
        r#"{"id":"e0030000-7c1d-4f2a-9b3e-5a6b7c8d9e0f","role":"user","chunks":[{"type":"text","text":"Why do the checkout tests fail on Mondays? 🗓️"}]}"#
    );
    assert!(shown[1].starts_with(
        r#"{"id":"m-1","role":"assistant","chunks":[{"type":"thinking","text":"Mondays suggest a week boundary; look for date arithmetic.","metadata":{"copilot":{"reasoningOpaque":"c2lnbmF0dXJlLW9mLW91ci1vd24="}}},{"type":"text","text":"Let me find the date handling."},{"type":"tool-batch""#
    ));
    assert!(shown[1].contains(r#""result":"Path does not exist: src/holidays.json","isError":true"#));
    assert!(shown[2].starts_with(
        r#"{"id":"m-2","role":"assistant","chunks":[{"type":"text","text":"The Monday discount"#
    ));
}

#[test]
fn a_failed_call_s_streamed_text_is_taken_back_and_an_error_takes_its_place() {
    let ev = |id: &str, ty: &str, data: &str, ephemeral: bool| {
        format!(
            r#"{{"type":"{ty}","data":{data},"id":"{id}","timestamp":"t","parentId":null{}}}"#,
            if ephemeral { r#","ephemeral":true"# } else { "" }
        )
    };
    let live = lines(&[
        &ev("u", "user.message", r#"{"content":"go"}"#, false),
        &ev(
            "a",
            "assistant.message_delta",
            r#"{"messageId":"x","deltaContent":"Hal"}"#,
            true,
        ),
        &ev("b", "model.call_failure", r#"{}"#, true),
        &ev("c", "assistant.turn_retry", r#"{}"#, true),
        &ev(
            "d",
            "assistant.message_delta",
            r#"{"messageId":"y","deltaContent":"Hal"}"#,
            true,
        ),
        &ev("e", "model.call_failure", r#"{}"#, true),
        &ev(
            "f",
            "session.error",
            r#"{"errorType":"query","message":"retried 5 times"}"#,
            false,
        ),
    ]);
    let file = lines(&[
        &ev("u", "user.message", r#"{"content":"go"}"#, false),
        &ev(
            "f",
            "session.error",
            r#"{"errorType":"query","message":"retried 5 times"}"#,
            false,
        ),
    ]);
    assert_eq!(fold("copilot", &live).messages, fold("copilot", &file).messages);
    assert_eq!(
        json_texts(&fold("copilot", &file).messages)[1],
        r#"{"id":"f","role":"assistant","chunks":[{"type":"error","message":"retried 5 times"}]}"#
    );
}

#[test]
fn sub_agent_events_are_left_out_and_encrypted_reasoning_is_kept_sealed() {
    let file = lines(&[
        r#"{"type":"assistant.message","data":{"messageId":"m","content":"","toolRequests":[{"toolCallId":"t","name":"task","arguments":{}}],"encryptedContent":"ZW5j"},"id":"1","timestamp":"t","parentId":null}"#,
        r#"{"type":"assistant.message","data":{"messageId":"s","content":"inside","parentToolCallId":"t"},"id":"2","timestamp":"t","parentId":"1","agentId":"agent-1"}"#,
        r#"{"type":"user.message","data":{"content":"sub prompt"},"id":"3","timestamp":"t","parentId":"2","agentId":"agent-1"}"#,
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"t","success":true,"result":{"content":"42"}},"id":"4","timestamp":"t","parentId":"3"}"#,
    ]);
    let folded = fold("copilot", &file);
    assert_eq!(folded.messages.len(), 1);
    assert_eq!(folded.messages[0].role, MessageRole::Assistant);
    assert_eq!(
        json_texts(&folded.messages)[0],
        r#"{"id":"m","role":"assistant","chunks":[{"type":"thinking","text":"","metadata":{"copilot":{"encryptedContent":"ZW5j"}}},{"type":"tool-batch","calls":[{"id":"t","name":"task","arguments":{},"result":"42","isError":false}]}]}"#
    );
    assert_eq!(folded.skips.left_out.count, 2);
    assert!(folded
        .skips
        .left_out
        .reasons
        .contains_key(agent_chunks::formats::copilot::events::SUB_AGENT));
}

#[test]
fn a_compaction_s_summary_is_shown_and_unknown_events_are_counted() {
    let file = lines(&[
        r#"{"type":"session.compaction_complete","data":{"success":true,"summaryContent":"<summary>done</summary>"},"id":"1","timestamp":"t","parentId":null}"#,
        r#"{"type":"session.hologram","data":{},"id":"2","timestamp":"t","parentId":"1"}"#,
    ]);
    let folded = fold("copilot", &file);
    assert_eq!(
        json_texts(&folded.messages),
        [
            r#"{"id":"1","role":"system","chunks":[{"type":"system","kind":"compaction","text":"<summary>done</summary>"}]}"#
        ]
    );
    assert_eq!(folded.skips.count, 1);
    assert!(fold_stream(find("copilot").unwrap(), &file, true).is_err());
}
