//! OpenCode and Kilo CLI: a stored session (`opencode export`, `GET /session/:id/message`)
//! read as OpenCode shows it, and its three live streams (`run --format json`, `/event`,
//! `/global/event`, Kilo's `/api/event`) folded into the same messages. The examples are
//! runs of OpenCode 1.18.33 and Kilo CLI 7.7.7 against a scripted model, reduced (paths
//! replaced, noise events cut to one of each kind).

use agent_chunks::bytes::value::{self, Json};
use agent_chunks::formats::opencode::lockstep::lockstep;
use agent_chunks::formats::{detect, find};
use agent_chunks::history::{read_with, HistoryFormat, Message};
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::check::Skips;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::format::{Input, ReadOptions};
use agent_chunks::reading::model_json::{message_json, FormatMessage};
use agent_chunks::{Chunk, MessageRole, SystemChunkKind};

const EVENTS: &[u8] = include_bytes!("../examples/opencode-events.sse");
const GLOBAL: &[u8] = include_bytes!("../examples/opencode-global.sse");
const EVENTS_RELOAD: &[u8] = include_bytes!("../examples/opencode-events.messages.json");
const SESSION: &[u8] = include_bytes!("../examples/opencode-session.json");
const RUN: &[u8] = include_bytes!("../examples/opencode-run.jsonl");
const RUN_SESSION: &[u8] = include_bytes!("../examples/opencode-run.session.json");
const KILO_EVENTS: &[u8] = include_bytes!("../__test__/fixtures/opencode/kilo-7.7.7-event.sse");
const KILO_API: &[u8] = include_bytes!("../__test__/fixtures/opencode/kilo-7.7.7-api-event.sse");
const KILO_RELOAD: &[u8] = include_bytes!("../__test__/fixtures/opencode/kilo-7.7.7-event.messages.json");

fn read_opts(bytes: &[u8], options: &ReadOptions) -> Result<(Vec<FormatMessage>, Skips), String> {
    let mut out = Vec::new();
    let skips = read_with(Input::Bytes(bytes), HistoryFormat::OpenCode, options, &mut |m| {
        if let Message::Format(m) = m {
            out.push(m);
        }
        true
    })
    .map_err(|e| e.message)?;
    Ok((out, skips))
}

fn read(bytes: &[u8]) -> Vec<FormatMessage> {
    read_opts(bytes, &ReadOptions::default()).unwrap().0
}

fn fold(format: &str, bytes: &[u8]) -> (Vec<FormatMessage>, Skips) {
    let folded = fold_stream(find(format).unwrap(), bytes, false).unwrap();
    (folded.messages, folded.skips)
}

fn json_of(messages: &[FormatMessage]) -> String {
    let all = Json::Array(messages.iter().map(message_json).collect());
    String::from_utf8(all.to_json()).unwrap()
}

/// An SSE capture of `events` (JSON texts), as the server writes them.
fn sse(events: &[&str]) -> Vec<u8> {
    events
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect::<String>()
        .into_bytes()
}

fn lines(values: &[&str]) -> Vec<u8> {
    values
        .iter()
        .map(|e| format!("{e}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn every_file_is_told_by_its_content() {
    for (bytes, name) in [
        (EVENTS, "opencode-events"),
        (GLOBAL, "opencode-global"),
        (EVENTS_RELOAD, "opencode"),
        (SESSION, "opencode"),
        (RUN, "opencode-run"),
        (RUN_SESSION, "opencode"),
        (KILO_EVENTS, "opencode-events"),
        (KILO_API, "opencode-events"),
        (KILO_RELOAD, "opencode"),
    ] {
        assert_eq!(detect(bytes).map(|f| f.name), Ok(name));
    }
    // An export and the reload on one line each, as an application would keep them.
    let one_line = value::parse(SESSION).unwrap().to_json();
    assert_eq!(detect(&one_line).map(|f| f.name), Ok("opencode"));
    let one_line = value::parse(EVENTS_RELOAD).unwrap().to_json();
    assert_eq!(detect(&one_line).map(|f| f.name), Ok("opencode"));
}

#[test]
fn the_reload_is_the_export_and_shows_the_turn_as_opencode_does() {
    let reload = read(EVENTS_RELOAD);
    assert_eq!(
        reload,
        read(SESSION),
        "GET /session/:id/message and export hold the same"
    );
    // One user message, one assistant message per model step.
    let roles: Vec<_> = reload.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [MessageRole::User, MessageRole::Assistant, MessageRole::Assistant]
    );
    let step = &reload[1].chunks;
    assert!(
        matches!(
            &step[0],
            Chunk::Thinking {
                metadata: Some(_),
                ..
            }
        ),
        "{step:?}"
    );
    assert!(matches!(&step[1], Chunk::Text { .. }));
    let Chunk::ToolBatch { calls } = &step[2] else {
        panic!("{step:?}")
    };
    assert_eq!(calls[0].name, "bash");
    let (output, error) = calls[0].result.clone().unwrap();
    assert_eq!(output, Json::string("lab-tool-output\nnotes.txt\n"));
    assert_eq!(error, Json::Bool(false));
    assert!(json_of(&reload).contains("\"title\":\"echo lab-tool-output; ls -1\""));
    // The step parts are counted, never shown.
    let (_, skips) = read_opts(EVENTS_RELOAD, &ReadOptions::default()).unwrap();
    assert_eq!(skips.kinds.get("step-start part"), Some(&2));
    assert_eq!(skips.kinds.get("step-finish part"), Some(&2));
}

#[test]
fn each_live_stream_folds_into_the_reload_of_its_session() {
    let reload = read(EVENTS_RELOAD);
    let (events, skips) = fold("opencode-events", EVENTS);
    assert_eq!(events, reload);
    assert_eq!(skips.count, 0, "{skips:?}");
    assert!(skips.kinds.contains_key("plugin.added"));
    let (global, skips) = fold("opencode-global", GLOBAL);
    assert_eq!(global, reload);
    // Every durable event came twice: the copies are counted, not read again.
    assert_eq!(
        skips
            .kinds
            .get("sync (a copy of a durable event, read once as itself)"),
        Some(&33)
    );
    // Kilo's /event carries the sync copies too, and its /api/event the whole turn.
    let kilo = read(KILO_RELOAD);
    assert_eq!(fold("opencode-events", KILO_EVENTS).0, kilo);
    assert_eq!(fold("opencode-events", KILO_API).0, kilo);
}

#[test]
fn run_output_is_the_stored_session_less_what_it_does_not_print() {
    let (mut stream, _) = fold("opencode-run", RUN);
    let mut history = read(RUN_SESSION);
    // The stored prompt is quoted by `opencode run`.
    assert!(
        matches!(&history[0].chunks[0], Chunk::Text { text } if text.as_bytes().starts_with(b"\"[lab:tool]"))
    );
    let notes = lockstep(&mut stream, &mut history);
    assert_eq!(stream, history);
    assert_eq!(
        notes,
        ["1 × user messages: run --format json prints none (the prompt is stored as run quoted it)"]
    );
    // Without --thinking the stream has no reasoning: set aside, and named.
    let without: Vec<u8> = RUN
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| !line.starts_with(b"{\"type\":\"reasoning\""))
        .flatten()
        .copied()
        .collect();
    let (mut stream, _) = fold("opencode-run", &without);
    let mut history = read(RUN_SESSION);
    let notes = lockstep(&mut stream, &mut history);
    assert_eq!(stream, history);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[1].contains("only with --thinking"));
}

const USER: &str = r#"{"id":"msg_01","sessionID":"ses_a","role":"user","time":{"created":1}}"#;

fn assistant(id: &str, extra: &str) -> String {
    format!(
        r#"{{"id":"{id}","sessionID":"ses_a","role":"assistant","parentID":"msg_01","time":{{"created":2{extra}}}}}"#
    )
}

fn item(info: &str, parts: &[&str]) -> String {
    format!(r#"{{"info":{info},"parts":[{}]}}"#, parts.join(","))
}

fn part(message: &str, id: &str, body: &str) -> String {
    format!(r#"{{"id":"{id}","sessionID":"ses_a","messageID":"{message}",{body}}}"#)
}

#[test]
fn user_texts_opencode_made_are_left_out_and_files_shown() {
    let doc = format!(
        "[{}]",
        item(
            USER,
            &[
                &part("msg_01", "prt_1", r#""type":"text","text":"read this""#),
                &part(
                    "msg_01",
                    "prt_2",
                    r#""type":"text","text":"Called the Read tool","synthetic":true"#
                ),
                &part(
                    "msg_01",
                    "prt_3",
                    r#""type":"text","text":"kept out","ignored":true"#
                ),
                &part(
                    "msg_01",
                    "prt_4",
                    r#""type":"file","mime":"text/plain","filename":"a.txt","url":"file:///a.txt""#
                ),
                &part("msg_01", "prt_5", r#""type":"agent","name":"build""#),
            ]
        )
    );
    let (messages, skips) = read_opts(doc.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].chunks.len(), 2, "{:?}", messages[0].chunks);
    assert!(matches!(&messages[0].chunks[1], Chunk::File { filename: Some(f), .. } if f == "a.txt"));
    assert_eq!(skips.left_out.count, 2);
    assert_eq!(skips.kinds.get("agent part"), Some(&1));
}

#[test]
fn calls_say_how_they_ended() {
    let tool = |id: &str, state: &str| {
        part(
            "msg_02",
            id,
            &format!(r#""type":"tool","callID":"c{id}","tool":"bash","state":{state}"#),
        )
    };
    let parts = [
        tool(
            "prt_1",
            r#"{"status":"completed","input":{"command":"exit 3"},"output":"oops\n","title":"exit 3","metadata":{"exit":3}}"#,
        ),
        tool(
            "prt_2",
            r#"{"status":"error","input":{},"error":"File not found: /x"}"#,
        ),
        tool(
            "prt_3",
            r#"{"status":"error","input":{},"error":"Tool execution aborted","metadata":{"interrupted":true,"output":"par"}}"#,
        ),
        tool(
            "prt_4",
            r#"{"status":"running","input":{"command":"sleep 9"},"time":{"start":1}}"#,
        ),
    ];
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    let done = format!(
        "[{},{}]",
        item(USER, &[]),
        item(&assistant("msg_02", r#","completed":3"#), &refs)
    );
    let messages = read(done.as_bytes());
    let Chunk::ToolBatch { calls } = &messages[0].chunks[0] else {
        panic!()
    };
    assert_eq!(calls.len(), 4, "consecutive calls are one batch");
    assert_eq!(
        calls[0].result,
        Some((Json::string("oops\n"), Json::Bool(false))),
        "a non-zero exit is no error"
    );
    assert_eq!(
        calls[1].result,
        Some((Json::string("File not found: /x"), Json::Bool(true)))
    );
    assert_eq!(calls[2].result.as_ref().unwrap().1, Json::Bool(true));
    assert_eq!(
        calls[2].meta.as_ref().unwrap().get("interrupted"),
        Some(&Json::Bool(true))
    );
    assert_eq!(
        calls[3].result,
        Some((Json::string("[Tool execution was interrupted]"), Json::Bool(true)))
    );
    assert_eq!(
        calls[3].meta.as_ref().unwrap().get("interrupted"),
        Some(&Json::Bool(true))
    );
    // While the step runs, the running call is running.
    let running = format!("[{},{}]", item(USER, &[]), item(&assistant("msg_02", ""), &refs));
    let messages = read(running.as_bytes());
    let Chunk::ToolBatch { calls } = &messages[0].chunks[0] else {
        panic!()
    };
    assert_eq!(calls[3].result, None);
    assert_eq!(
        calls[3].meta.as_ref().unwrap().get("status"),
        Some(&Json::string("running"))
    );
}

#[test]
fn an_assistant_error_an_abort_and_a_summary_are_shown() {
    let error = assistant(
        "msg_02",
        r#"},"error":{"name":"APIError","data":{"message":"overloaded","statusCode":529,"isRetryable":true}},"x":{"#,
    );
    let aborted = assistant(
        "msg_03",
        r#"},"error":{"name":"MessageAbortedError","data":{"message":"Aborted"}},"x":{"#,
    );
    let summary = assistant("msg_04", r#","completed":5},"summary":true,"x":{"#);
    let doc = format!(
        "[{},{},{},{}]",
        item(
            USER,
            &[&part("msg_01", "prt_1", r#""type":"compaction","auto":true"#)]
        ),
        item(
            &error,
            &[&part(
                "msg_02",
                "prt_2",
                r#""type":"retry","attempt":1,"error":{}"#
            )]
        ),
        item(&aborted, &[]),
        item(
            &summary,
            &[&part(
                "msg_04",
                "prt_4",
                r#""type":"text","text":"What happened so far""#
            )]
        ),
    );
    let (messages, skips) = read_opts(doc.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(
        messages.len(),
        3,
        "the compaction request alone shows nothing: {messages:?}"
    );
    assert_eq!(
        messages[0].chunks,
        [Chunk::Error {
            message: "overloaded".into(),
            status_code: Some(529.0)
        }]
    );
    assert!(matches!(
        &messages[1].chunks[0],
        Chunk::System {
            kind: SystemChunkKind::Cancelled,
            ..
        }
    ));
    assert!(
        matches!(&messages[2].chunks[0], Chunk::System { kind: SystemChunkKind::Compaction, text } if text == "What happened so far")
    );
    assert_eq!(skips.kinds.get("retry part (a model call retried)"), Some(&1));
    assert_eq!(
        skips.left_out.count, 1,
        "the compaction request's message: {skips:?}"
    );
}

#[test]
fn a_message_that_cannot_be_read_is_skipped_naming_the_field_and_refused_under_strict() {
    let doc = format!(
        r#"[{},{{"info":{{"role":"user"}},"parts":[]}}]"#,
        item(USER, &[&part("msg_01", "prt_1", r#""type":"text","text":"hi""#)])
    );
    let (messages, skips) = read_opts(doc.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(skips.count, 1);
    assert!(
        skips.examples[0].contains("[1].info.id must be a string"),
        "{:?}",
        skips.examples
    );
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let error = read_opts(doc.as_bytes(), &strict).unwrap_err();
    assert!(error.contains("[1].info.id must be a string"), "{error}");
    assert!(read_opts(b"{\"info\":{}}", &ReadOptions::default())
        .unwrap_err()
        .contains("messages must be an array"));
}

fn event(kind: &str, properties: &str) -> String {
    format!(r#"{{"type":"{kind}","properties":{properties}}}"#)
}

fn updated(part: &str) -> String {
    event(
        "message.part.updated",
        &format!(r#"{{"sessionID":"ses_a","part":{part}}}"#),
    )
}

#[test]
fn deltas_of_any_version_parts_replaced_and_removed_by_id() {
    let info = |m: &str| {
        event(
            "message.updated",
            &format!(r#"{{"sessionID":"ses_a","info":{m}}}"#),
        )
    };
    let events = [
        info(USER),
        updated(&part("msg_01", "prt_1", r#""type":"text","text":"hi""#)),
        info(&assistant("msg_02", "")),
        // OpenCode 1.x: an empty part, then its deltas, then the part whole.
        updated(&part("msg_02", "prt_2", r#""type":"text","text":"""#)),
        event(
            "message.part.delta",
            r#"{"sessionID":"ses_a","messageID":"msg_02","partID":"prt_2","field":"text","delta":"Hel"}"#,
        ),
        event(
            "message.part.delta",
            r#"{"sessionID":"ses_a","messageID":"msg_02","partID":"prt_2","field":"text","delta":"lo"}"#,
        ),
        // OpenCode 0.x: the part so far, with its delta beside it.
        updated(&part(
            "msg_02",
            "prt_3",
            r#""type":"reasoning","text":"Th","time":{"start":1}"#,
        ))
        .replace("}}}", "},\"delta\":\"Th\"}}"),
        updated(&part(
            "msg_02",
            "prt_3",
            r#""type":"reasoning","text":"Think","time":{"start":1}"#,
        )),
        updated(&part("msg_02", "prt_4", r#""type":"text","text":"gone""#)),
        event(
            "message.part.removed",
            r#"{"sessionID":"ses_a","messageID":"msg_02","partID":"prt_4"}"#,
        ),
        info(&assistant("msg_03", "")),
        updated(&part("msg_03", "prt_5", r#""type":"text","text":"removed""#)),
        event("message.removed", r#"{"sessionID":"ses_a","messageID":"msg_03"}"#),
        // A sub-agent's session, and another session's events, are not this conversation's.
        event(
            "session.created",
            r#"{"info":{"id":"ses_child","parentID":"ses_a"}}"#,
        ),
        updated(&part("msg_09", "prt_9", r#""type":"text","text":"child""#)).replace("ses_a", "ses_child"),
        updated(&part("msg_08", "prt_8", r#""type":"text","text":"other""#)).replace("ses_a", "ses_other"),
    ];
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    let (messages, skips) = fold("opencode-events", &sse(&refs));
    assert_eq!(messages.len(), 2, "{}", json_of(&messages));
    assert_eq!(
        messages[1].chunks,
        [
            Chunk::Text { text: "Hello".into() },
            Chunk::Thinking {
                text: "Think".into(),
                metadata: None
            }
        ]
    );
    assert_eq!(skips.left_out.count, 2, "{skips:?}");
    // The same events as /global/event, each durable one twice.
    let global: Vec<String> = refs
        .iter()
        .flat_map(|e| {
            let copy = format!(
                r#"{{"directory":"/p","payload":{{"type":"sync","syncEvent":{{"type":"x.1","data":{e}}}}}}}"#
            );
            [format!(r#"{{"directory":"/p","payload":{e}}}"#), copy]
        })
        .collect();
    let global: Vec<&str> = global.iter().map(String::as_str).collect();
    assert_eq!(fold("opencode-global", &sse(&global)).0, messages);
    // Kilo's /api/event: the properties under data, a location beside them.
    let api: Vec<String> = refs
        .iter()
        .map(|e| {
            e.replacen(
                "\"properties\":",
                "\"location\":{\"directory\":\"/p\"},\"data\":",
                1,
            )
        })
        .collect();
    let api: Vec<&str> = api.iter().map(String::as_str).collect();
    let mut bytes = b": heartbeat\n\n".to_vec();
    bytes.extend(sse(&api));
    assert_eq!(fold("opencode-events", &bytes).0, messages);
}

#[test]
fn a_run_error_lands_on_the_failed_step_as_the_reload_shows_it() {
    let run = lines(&[
        &format!(
            r#"{{"type":"step_start","timestamp":1,"sessionID":"ses_a","part":{}}}"#,
            part("msg_02", "prt_1", r#""type":"step-start""#)
        ),
        r#"{"type":"error","timestamp":2,"sessionID":"ses_a","error":{"name":"APIError","data":{"message":"overloaded","isRetryable":false}}}"#,
    ]);
    assert_eq!(detect(&run).map(|f| f.name), Ok("opencode-run"));
    let (messages, _) = fold("opencode-run", &run);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].id, "msg_02");
    assert_eq!(
        messages[0].chunks,
        [Chunk::Error {
            message: "overloaded".into(),
            status_code: None
        }]
    );
}

#[test]
fn a_bad_field_of_a_known_event_is_skipped_and_named_and_refused_under_strict() {
    let bytes = sse(&[&updated(r#"{"id":"prt_1","type":"text"}"#)]);
    let (messages, skips) = fold("opencode-events", &bytes);
    assert!(messages.is_empty());
    assert!(
        skips.examples[0].contains("part.messageID must be a string"),
        "{:?}",
        skips.examples
    );
    let error = fold_stream(find("opencode-events").unwrap(), &bytes, true).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("properties.part.messageID must be a string"),
        "{error}"
    );
}

#[test]
fn live_after_every_frame_is_the_reload_of_what_came_so_far() {
    // After each frame of /event, the live messages are what the events so far say,
    // whole: a stream read again from its start gives the same.
    let format = find("opencode-events").unwrap();
    let mut live = Conversation::new(format, Default::default()).unwrap();
    let mut at = 0;
    for frame in EVENTS.split_inclusive(|&b| b == b'\n').collect::<Vec<_>>() {
        live.push_bytes(frame).unwrap();
        at += frame.len();
        if frame == b"\n" {
            assert_eq!(
                owned_messages(live.messages()),
                fold_stream(format, &EVENTS[..at], false).unwrap().messages
            );
        }
    }
}

#[test]
fn sn_no_longer_takes_opencode_messages() {
    let sn = find("sn").unwrap();
    assert_ne!(detect(EVENTS_RELOAD).map(|f| f.name), Ok("sn"));
    // sn's own array still reads as sn.
    assert_eq!(detect(include_bytes!("../examples/sn-history.json")), Ok(sn));
}

#[test]
fn an_export_larger_than_detection_looks_at_is_told_and_read() {
    // A pretty-printed export of a few MiB (a long command output) has no whole value in
    // the first MiB detection looks at: it is told by its messages all the same.
    let mut document = value::parse(SESSION).unwrap();
    let big = "0123456789abcdef\n".repeat(200_000);
    let text = String::from_utf8(document.to_json())
        .unwrap()
        .replace("lab-tool-output\\nnotes.txt\\n", &big.replace('\n', "\\n"));
    document = value::parse(text.as_bytes()).unwrap();
    let mut pretty = Vec::new();
    pretty_print(&document, 0, &mut pretty);
    assert!(pretty.len() > 3 << 20 && pretty.starts_with(b"{\n"));
    assert_eq!(detect(&pretty).map(|f| f.name), Ok("opencode"));
    assert_eq!(read(&pretty).len(), 3);
}

/// `JSON.stringify(value, null, 2)`, as `opencode export` writes.
fn pretty_print(value: &Json, depth: usize, out: &mut Vec<u8>) {
    let pad = |out: &mut Vec<u8>, d: usize| out.extend(std::iter::repeat_n(b' ', d * 2));
    match value {
        Json::Object(fields) if !fields.is_empty() => {
            out.extend(b"{\n");
            for (i, (key, field)) in fields.iter().enumerate() {
                pad(out, depth + 1);
                out.extend(Json::String(key.clone()).to_json());
                out.extend(b": ");
                pretty_print(field, depth + 1, out);
                out.extend(if i + 1 < fields.len() { &b",\n"[..] } else { b"\n" });
            }
            pad(out, depth);
            out.push(b'}');
        }
        Json::Array(items) if !items.is_empty() => {
            out.extend(b"[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, depth + 1);
                pretty_print(item, depth + 1, out);
                out.extend(if i + 1 < items.len() { &b",\n"[..] } else { b"\n" });
            }
            pad(out, depth);
            out.push(b']');
        }
        other => out.extend(other.to_json()),
    }
}

#[test]
fn lockstep_names_summaries_printed_as_text_and_failed_calls_older_runs_did_not_print() {
    // The stored session: a failed call, then a compaction's summary.
    let failed = part(
        "msg_02",
        "prt_2",
        r#""type":"tool","callID":"c1","tool":"read","state":{"status":"error","input":{},"error":"ENOENT"}"#,
    );
    let summary = part("msg_03", "prt_3", r#""type":"text","text":"So far""#);
    let doc = format!(
        "[{},{},{}]",
        item(USER, &[&part("msg_01", "prt_1", r#""type":"text","text":"go""#)]),
        item(&assistant("msg_02", r#","completed":3"#), &[&failed]),
        item(
            &assistant("msg_03", r#","completed":4},"summary":true,"x":{"#),
            &[&summary]
        ),
    );
    let mut history = read(doc.as_bytes());
    // What OpenCode 1.1's run printed of it: the summary's text part alone.
    let run = lines(&[&format!(
        r#"{{"type":"text","timestamp":1,"sessionID":"ses_a","part":{}}}"#,
        part(
            "msg_03",
            "prt_3",
            r#""type":"text","text":"So far","time":{"start":1,"end":2}"#
        )
    )]);
    let (mut stream, _) = fold("opencode-run", &run);
    let notes = lockstep(&mut stream, &mut history);
    assert_eq!(stream, history);
    let reasons: Vec<_> = notes.iter().map(|n| n.split(':').next().unwrap()).collect();
    assert_eq!(
        reasons,
        [
            "1 × user messages",
            "1 × compaction summaries",
            "1 × failed calls",
            "1 × messages with nothing left to show (only reasoning without --thinking, or failed calls)"
        ]
    );
}

#[test]
fn a_loaded_history_goes_on_with_the_events_that_follow_it() {
    use agent_chunks::live::conversation::LiveOptions;
    // A client loads the session (GET /session/:id/message) after the first step, then
    // subscribes to /event: the user's message is sent again with its diffs, the next
    // step streams. The messages loaded stay as they were; the new step is added.
    let reload = read(EVENTS_RELOAD);
    let frames: Vec<&[u8]> = EVENTS.split_inclusive(|&b| b == b'\n').collect();
    let second = &reload[2].id;
    let mut at = 0;
    let mut cut = None;
    for line in &frames {
        let text = String::from_utf8_lossy(line);
        if text.contains("\"type\":\"message.updated\"") && text.contains(&format!("\"id\":\"{second}\"")) {
            cut = Some(at);
            break;
        }
        at += line.len();
    }
    let cut = cut.unwrap();
    let format = find("opencode-events").unwrap();
    let mut live = Conversation::resume(format, LiveOptions::default(), reload[..2].to_vec(), None).unwrap();
    live.push_bytes(&EVENTS[cut..]).unwrap();
    assert_eq!(owned_messages(live.messages()), reload);
    // A loaded message is known by its id: a revert removes it.
    let removed = event(
        "message.removed",
        &format!(
            r#"{{"sessionID":"ses_daf95ad31ffeYkLYULaI36yVaE","messageID":"{}"}}"#,
            reload[1].id
        ),
    );
    live.push_bytes(&sse(&[&removed])).unwrap();
    live.end().unwrap();
    let expected = vec![reload[0].clone(), reload[2].clone()];
    assert_eq!(owned_messages(live.messages()), expected);
    // And through a resume state, as an application keeps it between runs.
    let state = value::parse(&live.resume_state().to_json()).unwrap();
    let again = Conversation::resume(format, LiveOptions::default(), expected.clone(), Some(&state)).unwrap();
    assert_eq!(owned_messages(again.messages()), expected);
}
