//! History loading: every format read message by message, and the slices the binding
//! builds objects from, which must put together exactly the unsliced messages.

use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::formats::pi::session::read_session;
use agent_chunks::history::batch::{Slice, Slicer};
use agent_chunks::history::{read, read_with, HistoryError, HistoryFormat, Message};
use agent_chunks::reading::check::{Skips, CUT_SHORT, NOT_JSON, TORN};
use agent_chunks::reading::format::{Input, ReadOptions, View};
use agent_chunks::reading::model_json::write_messages;
use serde_json::Value;

fn example(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// All slices of `bytes`, cut at about `limit` bytes.
fn slices(bytes: &[u8], format: HistoryFormat, limit: usize) -> Result<Vec<Slice>, HistoryError> {
    let mut slices = Vec::new();
    let mut slicer = Slicer::new(limit, |slice| {
        slices.push(slice);
        true
    });
    read(bytes, format, |message| {
        slicer.message(&message);
        true
    })?;
    slicer.finish();
    Ok(slices)
}

/// Puts slices together as the binding does: items appended to the array at their
/// depth; an open item's `chunks` / `calls` is where deeper slices go.
fn assemble(slices: &[Slice]) -> Json {
    let mut root = Json::Array(Vec::new());
    // Indexes of the open message and open chunk.
    let mut path: Vec<usize> = Vec::new();
    for slice in slices {
        assert!(slice.json.is_ascii(), "slices are ASCII");
        let Json::Array(items) = parse(&slice.json).unwrap() else {
            panic!("a slice is an array")
        };
        let depth = slice.depth as usize;
        assert!(
            path.len() >= depth,
            "a slice at depth {depth} with {} open",
            path.len()
        );
        path.truncate(depth);
        let mut target = &mut root;
        for (level, &index) in path.iter().enumerate() {
            let key = if level == 0 { "chunks" } else { "calls" };
            let Json::Array(items) = target else {
                unreachable!()
            };
            let Json::Object(fields) = &mut items[index] else {
                panic!("an open item is an object")
            };
            target = &mut fields.iter_mut().find(|(k, _)| *k == key).unwrap().1;
        }
        let Json::Array(target) = target else {
            panic!("slices go into arrays")
        };
        if let Some(index) = slice.replaces {
            assert_eq!((depth, items.len()), (0, 1), "a replacement is one message");
            assert!(index < target.len(), "a replacement of a message handed on");
            target[index] = items.into_iter().next().unwrap();
            continue;
        }
        let count = items.len();
        target.extend(items);
        if slice.open {
            path.push(target.len() - 1);
            assert!(count > 0);
        }
    }
    root
}

fn whole_json(bytes: &[u8], format: HistoryFormat) -> Json {
    let slices = slices(bytes, format, usize::MAX).unwrap();
    assert!(slices.len() <= 1);
    slices
        .first()
        .map_or(Json::Array(vec![]), |s| parse(&s.json).unwrap())
}

/// The unsliced history, for inputs without lone surrogates (which serde_json refuses).
fn whole(bytes: &[u8], format: HistoryFormat) -> Value {
    serde_json::from_slice(&whole_json(bytes, format).to_json()).unwrap()
}

/// A Pi session with one long turn: many text chunks, and a tool batch of many calls.
fn long_pi_session() -> Vec<u8> {
    let mut lines = vec![r#"{"role":"user","content":"go 🚀"}"#.to_string()];
    for i in 0..40 {
        lines.push(format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"step {i} é😀 {}"}},{{"type":"thinking","thinking":"hm {i}","thinkingSignature":"s{i}"}}]}}"#,
            "x".repeat(300)
        ));
    }
    let calls: Vec<String> = (0..400)
        .map(|i| format!(r#"{{"type":"toolCall","id":"c{i}","name":"read","arguments":{{"path":"f{i}.rs","__proto__":{{"n":{i}}}}}}}"#))
        .collect();
    lines.push(format!(
        r#"{{"role":"assistant","content":[{}]}}"#,
        calls.join(",")
    ));
    for i in 0..400 {
        lines.push(format!(
            r#"{{"role":"toolResult","toolCallId":"c{i}","content":[{{"type":"text","text":"{}\ud83d"}}]}}"#,
            "y".repeat(i % 7 * 40)
        ));
    }
    lines.push(r#"{"role":"user","content":"thanks"}"#.to_string());
    lines.join("\n").into_bytes()
}

#[test]
fn slices_put_together_give_the_whole_history_at_any_size() {
    let inputs = [
        (long_pi_session(), HistoryFormat::Pi),
        (example("pi-session.jsonl"), HistoryFormat::Pi),
        (example("demo-stream.ndjson"), HistoryFormat::Events),
        (example("acp-session.ndjson"), HistoryFormat::Acp),
        (example("chatviewer.json"), HistoryFormat::ChatViewer),
        (example("sn-history.json"), HistoryFormat::Sn),
    ];
    for (bytes, format) in &inputs {
        let expected = whole_json(bytes, *format);
        for limit in [1, 10, 100, 1000, 4096, 64 * 1024] {
            let cut = slices(bytes, *format, limit).unwrap();
            assert_eq!(assemble(&cut), expected, "{format:?} at {limit}");
        }
    }
    // The long turn really is cut inside the message and inside its tool batch.
    let cut = slices(&inputs[0].0, HistoryFormat::Pi, 4096).unwrap();
    assert!(cut.iter().any(|s| s.depth == 1) && cut.iter().any(|s| s.depth == 2));
    assert!(cut.iter().all(|s| s.json.len() < 4096 * 2));
}

#[test]
fn pi_history_is_what_the_pi_reader_gives() {
    for bytes in [example("pi-session.jsonl"), long_pi_session()] {
        let mut text = Vec::new();
        write_messages(&mut text, &read_session(&bytes).unwrap());
        assert_eq!(whole_json(&bytes, HistoryFormat::Pi), parse(&text).unwrap());
    }
}

#[test]
fn each_message_is_handed_on_as_soon_as_it_is_complete() {
    // Stopping after the first message reads no further: the bad line is never seen.
    let bytes = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"b\"}\nnot json\n";
    let mut seen = 0;
    read(bytes, HistoryFormat::Pi, |_| {
        seen += 1;
        false
    })
    .unwrap();
    assert_eq!(seen, 1);
    assert!(strict_read(bytes, HistoryFormat::Pi).is_err());
}

fn strict_read(bytes: &[u8], format: HistoryFormat) -> Result<Skips, HistoryError> {
    let options = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    read_with(Input::Bytes(bytes), format, &options, &mut |_| true)
}

fn lenient_read(bytes: &[u8], format: HistoryFormat) -> (usize, Skips) {
    let mut messages = 0;
    let skips = read_with(Input::Bytes(bytes), format, &ReadOptions::default(), &mut |_| {
        messages += 1;
        true
    })
    .unwrap();
    (messages, skips)
}

#[test]
fn a_line_that_cannot_be_read_is_skipped_and_counted_and_values_back_to_back_are_each_read() {
    // An append cut short, the next entry written onto its line; two whole entries on
    // one line; a line that is no JSON; a last line cut short.
    let text = concat!(
        "{\"role\":\"user\",\"content\":\"a\"}\n",
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"cut sho",
        "{\"role\":\"user\",\"content\":\"b\"}\n",
        "{\"role\":\"user\",\"content\":\"c\"}{\"role\":\"user\",\"content\":\"d\"}\n",
        "not json\n",
        "{\"role\":\"user\",\"content\":\"e\"}\n",
        "{\"role\":\"user\",\"con",
    );
    for format in [HistoryFormat::Pi, HistoryFormat::Claude] {
        let skips = strict_read(text.as_bytes(), format).unwrap_err();
        assert_eq!(skips.line, Some(2), "{format:?}: strict refuses the first");
    }
    let (messages, skips) = lenient_read(text.as_bytes(), HistoryFormat::Pi);
    assert_eq!(messages, 5, "a, b, c, d, e");
    assert_eq!(skips.count, 3);
    assert_eq!(skips.kinds[TORN], 1);
    assert_eq!(skips.kinds[NOT_JSON], 1);
    assert_eq!(skips.kinds[CUT_SHORT], 1);
    assert!(skips.examples[0].starts_with("line 2: "), "{:?}", skips.examples);
    // The same from a file, as loadHistory reads it.
    let mut file = std::io::Cursor::new(text.as_bytes().to_vec());
    let mut from_file = 0;
    let again = read_with(
        Input::Reader(&mut file),
        HistoryFormat::Pi,
        &ReadOptions::default(),
        &mut |_| {
            from_file += 1;
            true
        },
    )
    .unwrap();
    assert_eq!((from_file, again.count), (5, 3));
}

#[test]
fn lines_that_are_no_json_before_the_first_value_are_looked_past_within_the_window() {
    // A note a tool wrote first, then a transcript whose last line was cut short, as a
    // session browser's test data holds it: the tool skips both bad lines and shows the
    // one entry.
    let text = concat!(
        "=== exported by a viewer ===\n",
        "{\"type\":\"user\",\"uuid\":\"q1\",\"sessionId\":\"s\",\"timestamp\":\"2025-03-01T10:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"left behind\"}}\n",
        "{\"type\":\"assist",
    );
    for format in [
        HistoryFormat::Claude,
        HistoryFormat::ChatViewer,
        HistoryFormat::Qwen,
    ] {
        let (messages, skips) = lenient_read(text.as_bytes(), format);
        assert_eq!((messages, skips.count), (1, 2), "{format:?}");
        assert!(skips.examples[0].starts_with("line 1: "), "{:?}", skips.examples);
        assert_eq!(strict_read(text.as_bytes(), format).unwrap_err().line, Some(1));
    }
    // The same from a file, as loadHistory reads it.
    let mut file = std::io::Cursor::new(text.as_bytes().to_vec());
    let mut from_file = 0;
    let again = read_with(
        Input::Reader(&mut file),
        HistoryFormat::Claude,
        &ReadOptions::default(),
        &mut |_| {
            from_file += 1;
            true
        },
    )
    .unwrap();
    assert_eq!((from_file, again.count), (1, 2));
    // No value at all, or lines that are no JSON past the first 64 before any value: no
    // history, refused at line 1.
    let nothing = "one note\nanother\n";
    let late = format!(
        "{}{{\"role\":\"user\",\"content\":\"a\"}}\n",
        "a note\n".repeat(65)
    );
    for text in [nothing, late.as_str()] {
        let refused = read(text.as_bytes(), HistoryFormat::Pi, |_| true).unwrap_err();
        assert_eq!(refused.line, Some(1), "{refused:?}");
    }
    // Within the window it is read.
    let within = format!(
        "{}{{\"role\":\"user\",\"content\":\"a\"}}\n",
        "a note\n".repeat(64)
    );
    let (messages, skips) = lenient_read(within.as_bytes(), HistoryFormat::Pi);
    assert_eq!((messages, skips.count), (1, 64));
    // A note, then bytes that are no text: refused at the note, the first bad line.
    let binary = b"a note\n\xff\xfe\n{\"type\":\"user\",\"uuid\":\"q1\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n";
    assert_eq!(
        read(binary, HistoryFormat::Claude, |_| true).unwrap_err().line,
        Some(1)
    );
    // A first line that is no text is no history either.
    assert_eq!(
        read(
            b"\xff\xfe\n{\"type\":\"user\",\"uuid\":\"q1\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
            HistoryFormat::Claude,
            |_| true
        )
        .unwrap_err()
        .line,
        Some(1)
    );
}

#[test]
fn events_are_cut_into_turns() {
    let stream = concat!(
        "{\"type\":\"status\"}\n",
        "{\"type\":\"text-delta\",\"delta\":\"before\"}\n",
        "{\"type\":\"turn-start\",\"turnId\":\"t-\\u00e9\"}\n",
        "{\"type\":\"text-delta\",\"delta\":\"one\"}\n",
        "{\"type\":\"turn-start\"}\n",
        "{\"type\":\"turn-start\",\"turnId\":7}\n",
        "{\"type\":\"reasoning-delta\",\"delta\":\"two\"}\n",
    );
    let got = whole(stream.as_bytes(), HistoryFormat::Events);
    let ids: Vec<&str> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["turn-1", "t-é", "turn-3", "turn-4"]);
    assert_eq!(got[0]["chunks"][0]["text"], "before");
    assert_eq!(got[1]["chunks"][0]["text"], "one");
    assert_eq!(got[2]["chunks"], serde_json::json!([]));
    assert_eq!(got[3]["chunks"][0]["type"], "thinking");
    assert!(got.as_array().unwrap().iter().all(|m| m["role"] == "assistant"));
    // Lifecycle events alone before the first turn make no message; SSE framing is found.
    let sse = "data: {\"type\":\"status\"}\n\ndata: {\"type\":\"turn-start\",\"turnId\":\"a\"}\n\ndata: {\"type\":\"text-delta\",\"delta\":\"x\"}\n\n";
    let got = whole(sse.as_bytes(), HistoryFormat::Events);
    assert_eq!(
        got,
        serde_json::json!([{"id":"a","role":"assistant","chunks":[{"type":"text","text":"x"}]}])
    );
}

#[test]
fn acp_updates_become_user_and_assistant_runs() {
    let updates = concat!(
        "{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"user_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"fix \"}}}\n",
        "{\"sessionUpdate\":\"user_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"it\"}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"agent_thought_chunk\",\"content\":{\"type\":\"text\",\"text\":\"hm\"}}}}\n",
        "{\"update\":{\"sessionUpdate\":\"plan\",\"entries\":[]}}\n",
        "{\"update\":{\"sessionUpdate\":\"tool_call\",\"toolCallId\":\"c1\",\"title\":\"Read\",\"kind\":\"read\",\"status\":\"pending\"}}\n",
        "{\"update\":{\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"c1\",\"status\":\"failed\",\"content\":[]}}\n",
        "{\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"done\"}}}\n",
        "{\"update\":{\"sessionUpdate\":\"user_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"thanks\"}}}\n",
    );
    let got = whole(updates.as_bytes(), HistoryFormat::Acp);
    assert_eq!(
        got,
        serde_json::json!([
            {"id":"line-1","role":"user","chunks":[{"type":"text","text":"fix it"}]},
            {"id":"line-3","role":"assistant","chunks":[
                {"type":"thinking","text":"hm"},
                {"type":"system","kind":"plan","text":""},
                // No rawInput: `arguments` is undefined, left out as JSON.stringify leaves it.
                // The name is the title, as ACP clients show it.
                {"type":"tool-batch","calls":[{"id":"c1","name":"Read","result":[],"isError":true}]},
                {"type":"text","text":"done"}]},
            {"id":"line-8","role":"user","chunks":[{"type":"text","text":"thanks"}]},
        ])
    );
    let error = read(
        b"{\"update\":{\"sessionUpdate\":\"tool_call\"}}\n",
        HistoryFormat::Acp,
        |_| true,
    )
    .unwrap_err();
    assert_eq!(error.line, Some(1));
    assert!(
        error.message.contains("update.toolCallId must be a string"),
        "{}",
        error.message
    );
}

#[test]
fn chatviewer_lines_are_ordered_by_time_each_one_message() {
    let got = whole(&example("chatviewer.json"), HistoryFormat::ChatViewer);
    let messages = got.as_array().unwrap();
    // The file lists the thought before the question; time puts the question first.
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["id"], "b2c1-0001");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["chunks"][0]["type"], "thinking");
    // Each line is a stored message of its own: the tool call line too.
    assert_eq!(messages[1]["chunks"].as_array().unwrap().len(), 1);
    assert_eq!(messages[2]["role"], "assistant");
    let tool = &messages[2]["chunks"][0]["calls"][0];
    assert_eq!(tool["id"], "call_grep_1");
    assert_eq!(tool["name"], "grep");
    assert_eq!(tool["isError"], false);
    // JSONL reads the same as the array.
    let array: Vec<Value> = serde_json::from_slice(&example("chatviewer.json")).unwrap();
    let lines: Vec<String> = array.iter().map(|v| v.to_string()).collect();
    assert_eq!(whole(lines.join("\n").as_bytes(), HistoryFormat::ChatViewer), got);
    // A line of the wrong shape: refused when strict, else skipped and counted.
    let bad = b"{\"uuid\":1,\"timestamp\":0,\"type\":\"user\"}\n";
    let (messages, skips) = lenient_read(bad, HistoryFormat::ChatViewer);
    assert_eq!((messages, skips.count), (0, 1));
    assert!(skips.examples[0].contains("uuid must be a string, got number"));
    let error = strict_read(bad, HistoryFormat::ChatViewer).unwrap_err();
    assert_eq!(error.line, Some(1));
    assert!(
        error.message.contains("uuid must be a string, got number"),
        "{}",
        error.message
    );
}

#[test]
fn sn_thoughts_read_from_an_array_or_lines() {
    let got = whole(&example("sn-history.json"), HistoryFormat::Sn);
    let array: Vec<Value> = serde_json::from_slice(&example("sn-history.json")).unwrap();
    let lines: Vec<String> = array.iter().map(|v| v.to_string()).collect();
    assert_eq!(whole(lines.join("\n").as_bytes(), HistoryFormat::Sn), got);
    assert_eq!(got.as_array().unwrap().len(), array.len());
    let error = read(
        b"{\"id\":\"a\",\"parts\":[],\"role\":1}\n{\"id\":2}\n",
        HistoryFormat::Sn,
        |_| true,
    )
    .unwrap_err();
    assert_eq!(error.line, Some(2));
}

#[test]
fn bad_bytes_are_placed() {
    let error = strict_read(
        b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"us\xFFer\"}\n",
        HistoryFormat::Pi,
    )
    .unwrap_err();
    assert_eq!((error.line, error.offset), (Some(2), Some(41)));
    assert!(error.message.contains("invalid UTF-8"));
    let error = strict_read(
        b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"us",
        HistoryFormat::Pi,
    )
    .unwrap_err();
    assert_eq!(error.line, Some(2));
    assert!(error.message.contains("truncated"), "{}", error.message);
    let error = read(
        b"{\"type\":\"text-delta\",\"delta\":1}\n",
        HistoryFormat::Events,
        |_| true,
    )
    .unwrap_err();
    assert_eq!((error.line, error.offset), (Some(1), Some(0)));
    let error = read(
        b"[{\"id\":\"a\",\"parts\":[],\"role\":1},\n  {oops}]",
        HistoryFormat::Sn,
        |_| true,
    )
    .unwrap_err();
    assert_eq!(error.line, Some(2));
    assert!(read(b"", HistoryFormat::ChatViewer, |_| panic!()).is_ok());
    for format in HistoryFormat::all() {
        assert_eq!(HistoryFormat::from_name(format.name()), Some(format));
        assert!(read(b"\n\n", format, |_: Message| panic!("no messages")).is_ok());
    }
}

#[test]
fn pi_resumed_is_the_summary_then_what_the_compaction_kept() {
    let text = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n",
        "{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"one\"}}\n",
        "{\"type\":\"message\",\"id\":\"a1\",\"parentId\":\"u1\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"two\"}]}}\n",
        "{\"type\":\"message\",\"id\":\"u2\",\"parentId\":\"a1\",\"message\":{\"role\":\"user\",\"content\":\"three\"}}\n",
        "{\"type\":\"compaction\",\"id\":\"c1\",\"parentId\":\"u2\",\"summary\":\"so far\",\"firstKeptEntryId\":\"u2\"}\n",
        "{\"type\":\"message\",\"id\":\"u3\",\"parentId\":\"c1\",\"message\":{\"role\":\"user\",\"content\":\"four\"}}\n",
    );
    let ids = |view: View| {
        let mut ids = Vec::new();
        let options = ReadOptions {
            view,
            ..ReadOptions::default()
        };
        let skips = read_with(
            Input::Bytes(text.as_bytes()),
            HistoryFormat::Pi,
            &options,
            &mut |m| {
                if let Message::Format(m) = m {
                    ids.push(m.id);
                }
                true
            },
        )
        .unwrap();
        (ids, skips.left_out.count)
    };
    assert_eq!(
        ids(View::Resumed),
        (vec!["c1".into(), "u2".into(), "u3".into()], 2)
    );
    assert_eq!(
        ids(View::Transcript),
        (
            vec!["u1".into(), "a1".into(), "u2".into(), "c1".into(), "u3".into()],
            0
        )
    );
}

#[test]
fn a_chatviewer_line_of_the_wrong_shape_is_skipped_and_counted_as_the_chatviewer_passes_it_over() {
    // A session browser's fixture of damaged lines: one without a type, one whose
    // message is a string. The ChatViewer renders the others.
    let text = concat!(
        "{\"uuid\":\"d1\",\"timestamp\":\"2025-05-01T09:00:00Z\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"first\"}}\n",
        "{\"uuid\":\"d2\",\"timestamp\":\"2025-05-01T09:00:05Z\",\"message\":{\"role\":\"user\",\"content\":\"no type\"}}\n",
        "{\"uuid\":\"d3\",\"timestamp\":\"2025-05-01T09:00:10Z\",\"type\":\"assistant\",\"message\":\"flat\"}\n",
        "{\"uuid\":\"d4\",\"timestamp\":\"2025-05-01T09:00:15Z\",\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":\"second\"}}\n",
    );
    let (messages, skips) = lenient_read(text.as_bytes(), HistoryFormat::ChatViewer);
    assert_eq!((messages, skips.count), (2, 2));
    assert_eq!(
        skips.kinds[agent_chunks::formats::chatviewer::adapter::NOT_A_ROW],
        2
    );
    assert_eq!(
        skips.examples[0],
        "line 2: a line the ChatViewer cannot show (type must be a string, got undefined)"
    );
    let refused = strict_read(text.as_bytes(), HistoryFormat::ChatViewer).unwrap_err();
    assert_eq!(refused.line, Some(2));
    // One JSON document is read whole or refused.
    let array = format!("[{}]", text.trim_end().replace('\n', ","));
    assert!(read(array.as_bytes(), HistoryFormat::ChatViewer, |_| true).is_err());
}

/// An `events` recording of `turns` turns of a text and a call with its result, each about
/// 1 KB; the call of turn `late` (if any) has its result at the very end.
fn events_recording(turns: usize, late: Option<usize>) -> Vec<u8> {
    let mut out = String::new();
    let pad = "x".repeat(900);
    let result = |t: usize| {
        format!("{{\"type\":\"tool-result\",\"toolResult\":{{\"toolCallId\":\"c{t}\",\"result\":\"r{t}\",\"isError\":false}}}}\n")
    };
    for t in 0..turns {
        out += &format!("{{\"type\":\"turn-start\",\"turnId\":\"t{t}\"}}\n");
        out += &format!("{{\"type\":\"text-delta\",\"delta\":\"{pad} {t}\"}}\n");
        out += &format!(
            "{{\"type\":\"tool-call\",\"toolCall\":{{\"id\":\"c{t}\",\"name\":\"read\",\"arguments\":{{\"n\":{t}}}}}}}\n"
        );
        if late != Some(t) {
            out += &result(t);
        }
    }
    if let Some(t) = late {
        out += &result(t);
    }
    out.into_bytes()
}

/// A reader that counts what was read of it.
struct Counting<'a> {
    bytes: &'a [u8],
    read: std::rc::Rc<std::cell::Cell<usize>>,
}

impl std::io::Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (&self.bytes[self.read.get()..]).read(buf)?;
        self.read.set(self.read.get() + n);
        Ok(n)
    }
}

impl std::io::Seek for Counting<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let at = match to {
            std::io::SeekFrom::Start(at) => at as usize,
            std::io::SeekFrom::Current(by) => (self.read.get() as i64 + by) as usize,
            std::io::SeekFrom::End(by) => (self.bytes.len() as i64 + by) as usize,
        };
        self.read.set(at.min(self.bytes.len()));
        Ok(self.read.get() as u64)
    }
}

/// The slices of a history read with `settle`, and how much of the input had been read when
/// each message was handed on (index, bytes read).
fn settled(bytes: &[u8], format: HistoryFormat) -> (Vec<Slice>, Vec<(usize, usize)>) {
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut reader = Counting {
        bytes,
        read: read.clone(),
    };
    let mut slices = Vec::new();
    let mut handed = Vec::new();
    let mut count = 0;
    let mut slicer = Slicer::new(64 << 10, |slice| {
        slices.push(slice);
        true
    });
    let options = ReadOptions {
        settle: true,
        ..ReadOptions::default()
    };
    read_with(Input::Reader(&mut reader), format, &options, &mut |message| {
        let index = match &message {
            Message::Settled { index, .. } => *index,
            _ => count,
        };
        count = count.max(index + 1);
        handed.push((index, read.get()));
        slicer.message(&message);
        true
    })
    .unwrap();
    slicer.finish();
    (slices, handed)
}

#[test]
fn a_recorded_stream_is_handed_on_as_its_messages_settle_and_assembles_to_the_same_history() {
    // 3,000 turns (3 MB, several blocks); turn 5's result comes last, after every other
    // turn was read: turn 5 and those after it wait for it.
    let bytes = events_recording(3000, Some(5));
    let (slices, handed) = settled(&bytes, HistoryFormat::Events);
    assert_eq!(assemble(&slices), whole_json(&bytes, HistoryFormat::Events));
    let early: Vec<_> = handed.iter().filter(|&&(_, read)| read < bytes.len()).collect();
    assert_eq!(
        early.iter().map(|&&(index, _)| index).collect::<Vec<_>>(),
        (0..5).collect::<Vec<_>>(),
        "the turns before the one waiting are handed on while the stream is read"
    );

    // Every result in its turn: all but the last turns are handed on before the end.
    let bytes = events_recording(3000, None);
    let (slices, handed) = settled(&bytes, HistoryFormat::Events);
    assert_eq!(assemble(&slices), whole_json(&bytes, HistoryFormat::Events));
    let early = handed.iter().filter(|&&(_, read)| read < bytes.len()).count();
    assert!(early > 2000, "{early} of 3000 handed on before the end");
    assert_eq!(handed.len(), 3000, "each once");
}

/// `copies` AI SDK responses (the example's, ids made unique per copy).
fn ai_sdk_recording(copies: usize) -> String {
    let one = String::from_utf8(example("ai-sdk-stream.sse")).unwrap();
    let mut text = String::new();
    for copy in 0..copies {
        text += &one
            .replace("msg_7Qx2", &format!("msg_{copy}"))
            .replace("toolu_0", &format!("toolu_{copy}_"));
    }
    text
}

#[test]
fn a_message_handed_on_that_changes_later_is_handed_on_again() {
    // A last response gives another output for a call of response 2, whose call had its
    // output (so it was handed on): the output lands there, and response 2 is handed on
    // again, replacing what was handed on before.
    let mut text = ai_sdk_recording(600);
    text += "data: {\"type\":\"start\",\"messageId\":\"late\"}\n\n";
    text +=
        "data: {\"type\":\"tool-output-available\",\"toolCallId\":\"toolu_2_1Run\",\"output\":\"again\"}\n\n";
    let bytes = text.into_bytes();
    let format = HistoryFormat::from_name("ai-sdk").unwrap();
    let (slices, handed) = settled(&bytes, format);
    let whole = whole_json(&bytes, format);
    assert_eq!(assemble(&slices), whole);
    assert!(String::from_utf8(whole.to_json()).unwrap().contains("\"again\""));
    let again: Vec<_> = slices.iter().filter_map(|s| s.replaces).collect();
    assert_eq!(again, [2], "one replacement, of response 2");
    assert_eq!(handed.iter().filter(|&&(index, _)| index == 2).count(), 2);
}

#[test]
fn an_ai_sdk_recording_settles_too() {
    let bytes = ai_sdk_recording(600).into_bytes();
    let format = HistoryFormat::from_name("ai-sdk").unwrap();
    let (slices, handed) = settled(&bytes, format);
    assert_eq!(assemble(&slices), whole_json(&bytes, format));
    let early = handed.iter().filter(|&&(_, read)| read < bytes.len()).count();
    assert!(early > 300, "{early} of 600 handed on before the end");
}

/// The messages of a recorded stream read as a history, as JSON text.
fn recorded(bytes: &[u8], format: &str) -> Result<String, HistoryError> {
    let format = HistoryFormat(agent_chunks::formats::find(format).unwrap());
    let mut messages = Vec::new();
    read(bytes, format, |message| {
        if let Message::Format(m) = message {
            messages.push(m);
        }
        true
    })?;
    let mut text = Vec::new();
    write_messages(&mut text, &messages);
    Ok(String::from_utf8(text).unwrap())
}

#[test]
fn a_recorded_stream_kept_as_a_json_array_reads_as_its_lines() {
    // (the stream formats read as histories through their live fold)
    for (name, format) in [
        ("demo-stream.ndjson", "events"),
        ("claude-code-stream.partial.ndjson", "claude-stream"),
        ("copilot-session.stream.ndjson", "copilot"),
    ] {
        let lines = example(name);
        let values: Vec<&str> = std::str::from_utf8(&lines)
            .unwrap()
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        let whole = recorded(&lines, format).unwrap();
        // Compact, pretty-printed (elements over several lines), after a byte order mark.
        let compact = format!("[{}]", values.join(","));
        let pretty_values: Vec<String> = values
            .iter()
            // (a value serde cannot take, a lone surrogate escaped, stays as written)
            .map(|v| match serde_json::from_str::<Value>(v) {
                Ok(value) => serde_json::to_string_pretty(&value).unwrap(),
                Err(_) => v.to_string(),
            })
            .collect();
        let pretty = format!("\u{feff}[\n{}\n]\n", pretty_values.join(",\n"));
        assert_eq!(recorded(compact.as_bytes(), format).unwrap(), whole, "{name}");
        // (serde orders the keys of what it pretty-prints: compared as values)
        let read = recorded(pretty.as_bytes(), format).unwrap();
        match (
            serde_json::from_str::<Value>(&read),
            serde_json::from_str::<Value>(&whole),
        ) {
            (Ok(read), Ok(whole)) => assert_eq!(read, whole, "{name}"),
            _ => assert_eq!(read, whole, "{name}"),
        }
    }
}

#[test]
fn an_array_recording_refuses_a_value_by_its_index_and_a_cut_array_as_cut() {
    // A value the fold refuses is named by its place in the array.
    let error = recorded(
        br#"[{"type":"turn-start"}, {"type":"tool-call","toolCall":5}]"#,
        "events",
    )
    .unwrap_err();
    assert!(error.message.starts_with("[1]: "), "{}", error.message);
    // An array cut short is refused, not read to its last whole element.
    let cut = recorded(
        br#"[{"type":"turn-start","messageId":"m"}, {"type":"text-del"#,
        "events",
    )
    .unwrap_err();
    assert!(!cut.message.is_empty());
    // An empty array is an empty history.
    assert_eq!(recorded(b" [ ] ", "events").unwrap(), "[]");
}
