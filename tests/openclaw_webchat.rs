//! OpenClaw's webchat as its own UI runs it (`ui/src/ui/controllers/chat.ts` and its
//! tests): a `final` frame's message is what the reply ends as, live and on a reload of
//! the session, never glued onto what streamed.

use agent_chunks::formats::conversation::{owned_messages, Conversation};
use agent_chunks::formats::live::fold_stream;
use agent_chunks::formats::model_json::FormatMessage;
use agent_chunks::formats::registry::find;
use agent_chunks::formats::value::Json;
use agent_chunks::formats::wtf8::Wtf8;
use agent_chunks::Chunk;

fn chat(run: &str, state: &str, message: Option<&str>) -> String {
    let message = message.map(|m| format!(r#","message":{m}"#)).unwrap_or_default();
    format!(
        r#"{{"type":"event","event":"chat","payload":{{"runId":"{run}","sessionKey":"agent:main:main","state":"{state}"{message}}}}}"#
    )
}

fn reply(text: &str) -> String {
    format!(
        r#"{{"role":"assistant","content":[{{"type":"text","text":{}}}]}}"#,
        Json::string(text).to_json_string()
    )
}

fn tool(phase: &str, id: &str) -> String {
    format!(
        r#"{{"type":"event","event":"agent","payload":{{"runId":"r1","stream":"tool","data":{{"phase":"{phase}","name":"weather","toolCallId":"{id}","args":{{"city":"Porto"}},"result":{{"content":[{{"type":"text","text":"17 C"}}]}}}}}}}}"#
    )
}

fn lines(frames: &[String]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| format!("{f}\n").into_bytes())
        .collect()
}

fn text(text: &str) -> Chunk<Wtf8, Json> {
    Chunk::Text { text: text.into() }
}

fn read(frames: &[String]) -> Vec<FormatMessage> {
    fold_stream(find("pi-stream").unwrap(), &lines(frames), false)
        .unwrap()
        .messages
}

trait JsonText {
    fn to_json_string(&self) -> String;
}

impl JsonText for Json {
    fn to_json_string(&self) -> String {
        String::from_utf8(self.to_json()).unwrap()
    }
}

#[test]
fn a_final_that_does_not_extend_what_streamed_replaces_it_and_says_so() {
    let delta = chat("r1", "delta", Some(&reply("Streamed partial")));
    let end = chat("r1", "final", Some(&reply("Complete reply")));
    // Whole.
    let messages = read(&[delta.clone(), end.clone()]);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].chunks, [text("Complete reply")]);
    // Live: the final's push reports the message's chunks as replaced, from the first.
    let mut live = Conversation::new(find("pi-stream").unwrap(), Default::default()).unwrap();
    live.push_bytes(&lines(&[delta])).unwrap();
    assert_eq!(
        owned_messages(live.messages())[0].chunks,
        [text("Streamed partial")]
    );
    let changes = live.push_bytes(&lines(&[end])).unwrap();
    assert_eq!(changes.changed.len(), 1);
    assert_eq!(changes.changed[0].replaced, Some(0));
    assert_eq!(owned_messages(live.messages()), messages);
}

#[test]
fn a_final_that_extends_or_only_trims_what_streamed_grows_it_or_keeps_it() {
    let grown = read(&[
        chat("r1", "delta", Some(&reply("Low tide at"))),
        chat("r1", "final", Some(&reply("Low tide at 06:12."))),
    ]);
    assert_eq!(grown[0].chunks, [text("Low tide at 06:12.")]);
    // The gateway trims the final reply: the text that streamed is the stored one.
    let trimmed = read(&[
        chat("r1", "delta", Some(&reply("Low tide at 06:12.\n"))),
        chat("r1", "final", Some(&reply("Low tide at 06:12."))),
    ]);
    assert_eq!(trimmed[0].chunks, [text("Low tide at 06:12.\n")]);
    let mut live = Conversation::new(find("pi-stream").unwrap(), Default::default()).unwrap();
    live.push_bytes(&lines(&[chat("r1", "delta", Some(&reply("Low tide at")))]))
        .unwrap();
    let changes = live
        .push_bytes(&lines(&[chat("r1", "final", Some(&reply("Low tide at 06:12.")))]))
        .unwrap();
    assert_eq!(changes.changed[0].replaced, None, "grown, not replaced");
}

#[test]
fn a_final_of_a_run_that_a_tool_split_rewrites_only_the_open_message() {
    // The run's chat frames carry all its text, across the messages a tool's result splits.
    let frames = [
        chat("r1", "delta", Some(&reply("Checking Porto."))),
        tool("start", "c1"),
        tool("result", "c1"),
        chat(
            "r1",
            "delta",
            Some(&reply("Checking Porto.It is 17 C and cloudy")),
        ),
        chat("r1", "final", Some(&reply("Checking Porto.It is 17 °C, cloudy."))),
    ];
    let messages = read(&frames);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0].chunks[0], text("Checking Porto."));
    assert_eq!(messages[1].chunks, [text("It is 17 °C, cloudy.")]);
}

#[test]
fn a_final_without_a_text_block_keeps_what_streamed() {
    let frames = [
        chat("r1", "delta", Some(&reply("Sure."))),
        chat(
            "r1",
            "final",
            Some(r#"{"role":"assistant","content":[{"type":"thinking","thinking":"short"}]}"#),
        ),
    ];
    let messages = read(&frames);
    assert!(messages[0].chunks.contains(&text("Sure.")), "{messages:?}");
}
