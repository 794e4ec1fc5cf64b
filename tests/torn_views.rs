//! What pi and Qwen Code show on reload, where it differs from the file: a pi session
//! with a torn line (read through pi.toMessages as through the history reader; a compaction
//! on such a line, which pi never parses, is never resumed from), and Qwen Code's
//! compressed chain, which its resume shows whole.

use agent_chunks::history::{read_with, HistoryFormat, Message};
use agent_chunks::reading::check::Skips;
use agent_chunks::reading::format::{Input, ReadOptions, View};
use agent_chunks::reading::model_json::write_messages;
use serde_json::{json, Value};

fn format(name: &str) -> HistoryFormat {
    HistoryFormat::from_name(name).unwrap()
}

/// The messages of `text` read as `format` in `view` (strict or not), and the report.
fn read_as(text: &str, format_name: &str, view: View, strict: bool) -> Result<(Value, Skips), String> {
    let mut messages = Vec::new();
    let options = ReadOptions {
        strict,
        view,
        ..ReadOptions::default()
    };
    let skips = read_with(
        Input::Bytes(text.as_bytes()),
        format(format_name),
        &options,
        &mut |m| {
            match m {
                Message::Format(m) => messages.push(m),
                _ => panic!("line formats hand on format messages"),
            }
            true
        },
    )
    .map_err(|e| e.message)?;
    let mut out = Vec::new();
    write_messages(&mut out, &messages);
    Ok((serde_json::from_slice(&out).unwrap(), skips))
}

fn read(text: &str, format_name: &str) -> (Value, Skips) {
    read_as(text, format_name, View::Resumed, false).unwrap()
}

// ---- pi: torn lines through pi.toMessages, and a compaction pi never parsed ----

fn pi_entry(id: &str, parent: Option<&str>, text: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "message": {"role": "user", "content": text}})
}

#[test]
fn pi_session_reader_reads_a_torn_line_as_the_history_reader_does() {
    let header = json!({"type": "session", "version": 3, "id": "s"});
    let e2 = pi_entry("e2", Some("e1"), "two").to_string();
    let text = format!(
        "{header}\n{}\n{}{}\n{}\n",
        pi_entry("e1", None, "one"),
        &e2[..e2.len() / 2],
        pi_entry("e3", Some("e1"), "three"),
        pi_entry("e4", Some("e3"), "four")
    );
    let session = agent_chunks::formats::pi::session::read_session(text.as_bytes()).unwrap();
    let ids: Vec<&str> = session.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["e1", "e3", "e4"]);
    let (history, skips) = read(&text, "pi");
    assert_eq!(history.as_array().unwrap().len(), 3);
    assert_eq!(skips.count, 1, "the torn part");
}

#[test]
fn pi_a_compaction_on_a_torn_line_is_read_but_never_resumed_from() {
    // pi cannot parse the line that holds it, so it never resumes from it: the entries
    // before it stay in the resumed view, its summary a message where it was made.
    let header = json!({"type": "session", "version": 3, "id": "s"});
    let compaction =
        json!({"type": "compaction", "id": "c1", "parentId": "e3", "summary": "S", "firstKeptEntryId": "e3"});
    let text = format!(
        "{header}\n{}\n{}\n{}{compaction}\n{}\n",
        pi_entry("e1", None, "one"),
        pi_entry("e2", Some("e1"), "two"),
        pi_entry("e3", Some("e2"), "three"),
        pi_entry("e4", Some("c1"), "four")
    );
    let (messages, _) = read(&text, "pi");
    let ids: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["e1", "e2", "e3", "c1", "e4"]);
    // The same compaction on a line of its own is resumed from.
    let whole = text.replace(&format!("}}{compaction}"), &format!("}}\n{compaction}"));
    assert_ne!(whole, text);
    let (messages, _) = read(&whole, "pi");
    let ids: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c1", "e3", "e4"]);
}

#[test]
fn qwen_resumed_is_the_whole_chain_as_its_resume_shows_it() {
    let text = std::fs::read_to_string(format!(
        "{}/examples/qwen-code-chat.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let (resumed, skips) = read(&text, "qwen");
    let (transcript, _) = read_as(&text, "qwen", View::Transcript, false).unwrap();
    assert_eq!(resumed, transcript);
    let kinds: Vec<&str> = resumed
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| m["chunks"][0]["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"compaction"), "the compression where it was made");
    assert_eq!(
        resumed[0]["role"], "user",
        "the records before the compression are shown"
    );
    assert!(!skips.left_out.reasons.keys().any(|r| r.starts_with("compacted")));
}
