//! OpenClaw's webchat as its own UI runs it (`ui/src/ui/controllers/chat.ts` and its
//! tests): a `final` frame's message is what the reply ends as, live and on a reload of
//! the session, never glued onto what streamed.

use agent_chunks::bytes::value::Json;
use agent_chunks::bytes::wtf8::Wtf8;
use agent_chunks::formats::find;
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::FormatMessage;
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

fn fold(
    frames: &[String],
    strict: bool,
) -> agent_chunks::reading::check::FormatResult<agent_chunks::live::FoldedStream> {
    fold_stream(find("pi-stream").unwrap(), &lines(frames), strict)
}

fn user(text: &str) -> String {
    format!(
        r#"{{"role":"user","content":[{{"type":"text","text":{}}}]}}"#,
        Json::string(text).to_json_string()
    )
}

#[test]
fn an_aborted_or_final_frame_carrying_another_roles_message_is_not_the_reply() {
    for state in ["aborted", "final"] {
        let frames = [
            chat("r1", "delta", Some(&reply("Partial reply"))),
            chat("r1", state, Some(&user("unexpected"))),
        ];
        let read = fold(&frames, false).unwrap();
        assert_eq!(read.messages.len(), 1, "{state}: {:?}", read.messages);
        assert_eq!(read.messages[0].chunks[0], text("Partial reply"), "{state}");
        if state == "aborted" {
            assert!(
                matches!(&read.messages[0].chunks[1], Chunk::Error { message, .. } if *message == "Operation aborted")
            );
        } else {
            assert_eq!(read.messages[0].chunks.len(), 1);
        }
        assert_eq!(read.skips.count, 1, "{state}: {:?}", read.skips.examples);
        assert!(
            read.skips.examples[0].starts_with("line 2: "),
            "{:?}",
            read.skips.examples
        );
        let refused = fold(&frames, true).unwrap_err();
        assert_eq!(refused.line, Some(2), "{state}: {refused:?}");
    }
    // An aborted frame's message must name the assistant exactly and hold blocks.
    let frames = [
        chat("r1", "delta", Some(&reply("Partial reply"))),
        chat("r1", "aborted", Some(r#""not-an-assistant-message""#)),
    ];
    assert_eq!(
        fold(&frames, false).unwrap().messages[0].chunks[0],
        text("Partial reply")
    );
}

#[test]
fn frames_of_another_run_while_one_is_active_are_not_merged_into_it() {
    let frames = [
        chat("r1", "delta", Some(&reply("Working"))),
        chat("r2", "delta", Some(&reply("Sub-agent findings"))),
        chat("r2", "final", Some(&reply("Sub-agent findings"))),
        chat("r1", "delta", Some(&reply("Working on it"))),
        chat("r1", "final", Some(&reply("Working on it."))),
        // A run that begins after the first ended is the next reply.
        chat("r3", "delta", Some(&reply("Next"))),
        chat("r3", "final", Some(&reply("Next one."))),
    ];
    let read = fold(&frames, false).unwrap();
    let texts: Vec<_> = read.messages.iter().map(|m| m.chunks.clone()).collect();
    assert_eq!(texts, [vec![text("Working on it.")], vec![text("Next one.")]]);
    assert_eq!(read.skips.count, 2, "{:?}", read.skips.examples);
    assert_eq!(fold(&frames, true).unwrap_err().line, Some(2));
}

#[test]
fn a_silent_reply_and_a_reply_of_white_space_show_nothing() {
    let silent = [
        chat("r1", "delta", Some(&reply("NO_"))),
        chat("r1", "delta", Some(&reply("NO_REPLY"))),
        chat("r1", "final", Some(&reply(" NO_REPLY\n"))),
    ];
    for strict in [false, true] {
        let read = fold(&silent, strict).unwrap();
        // The lead fragment streamed shows, as in OpenClaw's UI; the silent token does not.
        assert_eq!(read.messages.len(), 1);
        assert_eq!(read.messages[0].chunks, [text("NO_")]);
        assert_eq!(read.skips.count, 0);
        assert_eq!(
            read.skips
                .kinds
                .get("a silent reply (NO_REPLY), which OpenClaw's UI does not show"),
            Some(&2)
        );
    }
    let only_silent = [
        chat("r1", "delta", Some(&reply("NO_REPLY"))),
        chat("r1", "final", Some(&reply("NO_REPLY"))),
    ];
    assert!(fold(&only_silent, false).unwrap().messages.is_empty());
    let blank = [
        chat("r1", "delta", Some(&reply("  "))),
        chat("r1", "delta", Some(&reply("  \n"))),
        chat("r1", "final", None),
    ];
    let read = fold(&blank, true).unwrap();
    assert!(read.messages.is_empty(), "{:?}", read.messages);
    // White space before the first words comes with them.
    let then_words = [
        chat("r1", "delta", Some(&reply("\n\n"))),
        chat("r1", "delta", Some(&reply("\n\nHi"))),
    ];
    assert_eq!(
        fold(&then_words, false).unwrap().messages[0].chunks,
        [text("\n\nHi")]
    );
}

/// A recording of every case above in one stream (written for these tests), which the
/// live conversation tests also push a line at a time, in random pieces and resumed.
#[test]
fn the_edge_recording_reads_as_openclaws_ui_shows_it() {
    const EDGES: &[u8] = include_bytes!("../__test__/fixtures/openclaw-webchat-edges.ndjson");
    let read = fold_stream(find("pi-stream").unwrap(), EDGES, false).unwrap();
    let shown: Vec<String> = read
        .messages
        .iter()
        .map(|m| String::from_utf8(agent_chunks::reading::model_json::message_json(m).to_json()).unwrap())
        .collect();
    let chunks: Vec<&str> = shown
        .iter()
        .map(|m| &m[m.find("\"chunks\"").unwrap()..])
        .collect();
    assert_eq!(
        chunks,
        [
            r#""chunks":[{"type":"thinking","text":"Weather for Porto, then Braga."},{"type":"text","text":"Checking Porto first."},{"type":"tool-batch","calls":[{"id":"call-1","name":"weather","arguments":{"city":"Porto"},"result":"17 C, cloudy","isError":false}]}]}"#,
            r#""chunks":[{"type":"text","text":"It is 17 °C and cloudy in Porto."}]}"#,
            r#""chunks":[{"type":"text","text":"NO_"}]}"#,
            r#""chunks":[{"type":"text","text":"Complete reply"}]}"#,
            r#""chunks":[{"type":"text","text":"Fetching the 5-day"},{"type":"error","message":"Operation aborted"}]}"#,
            r#""chunks":[{"type":"text","text":"A string reply, whole."}]}"#,
        ]
    );
    assert_eq!(read.skips.count, 3, "{:?}", read.skips.kinds);
}
