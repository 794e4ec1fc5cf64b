//! `codex app-server` traffic: folded live, re-read (`thread/read`, `thread/resume`), and
//! compared with the rollout of the same thread.

use agent_chunks::bytes::value::Json;
use agent_chunks::formats::{detect, find};
use agent_chunks::live::fold_stream;
use agent_chunks::reading::model_json::{message_json, FormatMessage};
use agent_chunks::{Chunk, MessageRole};

fn fold(lines: &[&str]) -> agent_chunks::live::FoldedStream {
    let bytes = lines.join("\n").into_bytes();
    fold_stream(find("codex-app-server").unwrap(), &bytes, false).unwrap()
}

fn texts(messages: &[FormatMessage]) -> Vec<String> {
    messages
        .iter()
        .map(|m| String::from_utf8(message_json(m).to_json()).unwrap())
        .collect()
}

/// A session as a client logs it: both directions, requests numbered per side.
const SESSION: &[&str] = &[
    r#"{"id":1,"method":"initialize","params":{"clientInfo":{"name":"gui","title":"gui","version":"1"},"capabilities":null}}"#,
    r#"{"id":1,"result":{"userAgent":"codex/0.171.0"}}"#,
    r#"{"method":"initialized"}"#,
    r#"{"id":2,"method":"thread/start","params":{"cwd":"/w","approvalPolicy":"untrusted"}}"#,
    r#"{"id":2,"result":{"thread":{"id":"th","turns":[]}}}"#,
    r#"{"method":"thread/started","params":{"thread":{"id":"th","turns":[]}}}"#,
    r#"{"id":3,"method":"turn/start","params":{"threadId":"th","input":[{"type":"text","text":"List the files.","text_elements":[]}]}}"#,
    r#"{"method":"turn/started","params":{"threadId":"th","turn":{"id":"t1","items":[],"status":"inProgress","error":null}}}"#,
    r#"{"id":3,"result":{"turn":{"id":"t1","items":[],"status":"inProgress","error":null}}}"#,
    r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"userMessage","id":"u1","content":[{"type":"text","text":"List the files.","text_elements":[]}]}}}"#,
    r#"{"method":"item/completed","params":{"threadId":"th","turnId":"t1","item":{"type":"userMessage","id":"u1","content":[{"type":"text","text":"List the files.","text_elements":[]}]}}}"#,
    r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"reasoning","id":"rs_1","summary":[],"content":[]}}}"#,
    r#"{"method":"item/reasoning/summaryPartAdded","params":{"threadId":"th","turnId":"t1","itemId":"rs_1","summaryIndex":0}}"#,
    r#"{"method":"item/reasoning/summaryTextDelta","params":{"threadId":"th","turnId":"t1","itemId":"rs_1","delta":"I should ","summaryIndex":0}}"#,
    r#"{"method":"item/reasoning/summaryTextDelta","params":{"threadId":"th","turnId":"t1","itemId":"rs_1","delta":"run ls.","summaryIndex":0}}"#,
    r#"{"method":"item/completed","params":{"threadId":"th","turnId":"t1","item":{"type":"reasoning","id":"rs_1","summary":["I should run ls."],"content":[]}}}"#,
    r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"agentMessage","id":"msg_1","text":"","phase":null}}}"#,
    r#"{"method":"item/agentMessage/delta","params":{"threadId":"th","turnId":"t1","itemId":"msg_1","delta":"I will "}}"#,
    r#"{"method":"item/agentMessage/delta","params":{"threadId":"th","turnId":"t1","itemId":"msg_1","delta":"list them."}}"#,
    r#"{"method":"item/completed","params":{"threadId":"th","turnId":"t1","item":{"type":"agentMessage","id":"msg_1","text":"I will list them.","phase":null}}}"#,
    r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"commandExecution","id":"call_1","command":"/bin/bash -lc ls","cwd":"/w","status":"inProgress","aggregatedOutput":null,"exitCode":null}}}"#,
    // The server's first request is id 0; the client answers it.
    r#"{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th","turnId":"t1","itemId":"call_1","reason":"not trusted"}}"#,
    r#"{"id":0,"result":{"decision":"accept"}}"#,
    r#"{"method":"serverRequest/resolved","params":{"threadId":"th","requestId":0}}"#,
    r#"{"method":"item/commandExecution/outputDelta","params":{"threadId":"th","turnId":"t1","itemId":"call_1","delta":"b\n"}}"#,
    r#"{"method":"item/completed","params":{"threadId":"th","turnId":"t1","item":{"type":"commandExecution","id":"call_1","command":"/bin/bash -lc ls","cwd":"/w","status":"completed","aggregatedOutput":"a\nb\n","exitCode":0}}}"#,
    r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"someFutureItem","id":"x_1"}}}"#,
    r#"{"method":"item/completed","params":{"threadId":"th","turnId":"t1","item":{"type":"agentMessage","id":"msg_2","text":"Two files.","phase":"final_answer"}}}"#,
    r#"{"method":"thread/tokenUsage/updated","params":{"threadId":"th","turnId":"t1","tokenUsage":{}}}"#,
    r#"{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"t1","items":[{"type":"agentMessage","id":"msg_2","text":"Two files.","phase":"final_answer"}],"itemsView":"summary","status":"completed","error":null}}}"#,
    r#"{"id":4,"method":"turn/start","params":{"threadId":"th","input":[{"type":"text","text":"Again.","text_elements":[]}]}}"#,
    r#"{"method":"turn/started","params":{"threadId":"th","turn":{"id":"t2","items":[],"status":"inProgress","error":null}}}"#,
    r#"{"method":"item/completed","params":{"threadId":"th","turnId":"t2","item":{"type":"userMessage","id":"u2","content":[{"type":"text","text":"Again.","text_elements":[]}]}}}"#,
    r#"{"method":"error","params":{"threadId":"th","turnId":"t2","error":{"message":"stream disconnected","codexErrorInfo":"other"},"willRetry":true}}"#,
    r#"{"method":"error","params":{"threadId":"th","turnId":"t2","error":{"message":"unexpected status 500","codexErrorInfo":"internalServerError"},"willRetry":false}}"#,
    r#"{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"t2","items":[],"itemsView":"summary","status":"failed","error":{"message":"unexpected status 500","codexErrorInfo":"internalServerError"}}}}"#,
];

/// The same thread as `thread/read` answers it.
const READ: &str = r#"{"id":2,"result":{"thread":{"id":"th","turns":[
 {"id":"t1","itemsView":"full","status":"completed","error":null,"items":[
  {"type":"userMessage","id":"u1","content":[{"type":"text","text":"List the files.","text_elements":[]}]},
  {"type":"reasoning","id":"rs_1","summary":["I should run ls."],"content":[]},
  {"type":"agentMessage","id":"msg_1","text":"I will list them.","phase":null},
  {"type":"commandExecution","id":"call_1","command":"/bin/bash -lc ls","cwd":"/w","status":"completed","aggregatedOutput":"a\nb\n","exitCode":0},
  {"type":"agentMessage","id":"msg_2","text":"Two files.","phase":"final_answer"}]},
 {"id":"t2","itemsView":"full","status":"failed","error":{"message":"unexpected status 500"},"items":[
  {"type":"userMessage","id":"u2","content":[{"type":"text","text":"Again.","text_elements":[]}]}]}]}}}"#;

#[test]
fn a_session_folds_into_turns_with_its_items_whole() {
    let folded = fold(SESSION);
    let m = &folded.messages;
    let roles: Vec<_> = m.iter().map(|m| (m.id.as_str(), m.role)).collect();
    assert_eq!(
        roles,
        [
            ("u1", MessageRole::User),
            ("t1", MessageRole::Assistant),
            ("u2", MessageRole::User),
            ("t2", MessageRole::Assistant)
        ]
    );
    let chunks = &m[1].chunks;
    assert!(matches!(&chunks[0], Chunk::Thinking { text, .. } if *text == *"I should run ls."));
    assert!(matches!(&chunks[1], Chunk::Text { text } if *text == *"I will list them."));
    let Chunk::ToolBatch { calls } = &chunks[2] else {
        panic!("{chunks:?}")
    };
    assert_eq!(calls[0].name, *"command_execution");
    // The whole output, not only what the deltas carried.
    assert_eq!(calls[0].result.as_ref().unwrap().0, Json::string("a\nb\n"));
    let meta = String::from_utf8(calls[0].meta.as_ref().unwrap().to_json()).unwrap();
    assert_eq!(
        meta,
        r#"{"approval":{"method":"item/commandExecution/requestApproval","reason":"not trusted","decision":"accept"}}"#
    );
    // The final message once: turn/completed's summary repeats it.
    assert!(matches!(&chunks[3], Chunk::Text { text } if *text == *"Two files."));
    assert_eq!(chunks.len(), 4);
    // The failure told twice (`error`, then the turn's `error`) is one error; a retried
    // one shows nothing.
    assert_eq!(m[3].chunks.len(), 1, "{:?}", m[3].chunks);
    assert!(matches!(&m[3].chunks[0], Chunk::Error { message, .. } if *message == *"unexpected status 500"));
    // The item this version does not know is counted, not refused.
    assert_eq!(
        folded.skips.kinds.get("unknown item type \"someFutureItem\""),
        Some(&1)
    );
    assert!(folded.skips.kinds.contains_key("thread/tokenUsage/updated"));
}

#[test]
fn the_servers_output_alone_folds_the_same() {
    // What the server wrote: its notifications, its requests and its answers.
    let server: Vec<&str> = SESSION
        .iter()
        .copied()
        .filter(|l| !l.contains(r#""method":"initialize""#))
        .filter(|l| !l.contains(r#""method":"initialized""#))
        .filter(|l| !l.contains(r#""method":"thread/start""#))
        .filter(|l| !l.contains(r#""method":"turn/start""#))
        .filter(|l| !l.contains(r#""decision":"accept""#))
        .collect();
    let both = fold(SESSION).messages;
    let alone = fold(&server).messages;
    // Without the client's answer, the approval has no decision.
    let strip = |ms: Vec<FormatMessage>| texts(&ms).join("\n").replace(r#","decision":"accept""#, "");
    assert_eq!(strip(alone), strip(both));
}

#[test]
fn a_thread_read_answer_reads_as_the_live_fold_did() {
    let live = fold(SESSION).messages;
    let read = fold(&[READ.replace('\n', "").as_str()]).messages;
    let mut live_text = texts(&live);
    // Only the live traffic carries the approval.
    live_text[1] = live_text[1].replace(
        r#","meta":{"approval":{"method":"item/commandExecution/requestApproval","reason":"not trusted","decision":"accept"}}"#,
        "",
    );
    assert_eq!(texts(&read), live_text);
    // …and lockstep says so, bringing the re-read to what the traffic carries.
    let lockstep = find("codex-app-server").unwrap().lockstep.unwrap();
    let mut stream = live.clone();
    let mut history = read.clone();
    let notes = lockstep(&mut stream, &mut history);
    assert_eq!(texts(&history), texts(&live));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("1 × approvals"), "{notes:?}");
}

#[test]
fn traffic_and_re_reads_are_told_by_content() {
    for bytes in [
        SESSION.join("\n"),
        READ.replace('\n', ""),
        SESSION[5..].join("\n"),
    ] {
        assert_eq!(detect(bytes.as_bytes()).unwrap().name, "codex-app-server");
    }
}

#[test]
fn a_delta_for_every_part_grows_the_item_it_names() {
    let folded = fold(&[
        r#"{"method":"turn/started","params":{"threadId":"th","turn":{"id":"t1"}}}"#,
        r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"reasoning","id":"r","summary":[],"content":[]}}}"#,
        r#"{"method":"item/reasoning/textDelta","params":{"threadId":"th","turnId":"t1","itemId":"r","delta":"raw ","contentIndex":0}}"#,
        r#"{"method":"item/reasoning/textDelta","params":{"threadId":"th","turnId":"t1","itemId":"r","delta":"text","contentIndex":0}}"#,
        r#"{"method":"item/reasoning/summaryTextDelta","params":{"threadId":"th","turnId":"t1","itemId":"r","delta":"one","summaryIndex":0}}"#,
        r#"{"method":"item/reasoning/summaryPartAdded","params":{"threadId":"th","turnId":"t1","itemId":"r","summaryIndex":1}}"#,
        r#"{"method":"item/reasoning/summaryTextDelta","params":{"threadId":"th","turnId":"t1","itemId":"r","delta":"two","summaryIndex":1}}"#,
        r#"{"method":"item/started","params":{"threadId":"th","turnId":"t1","item":{"type":"plan","id":"p","text":""}}}"#,
        r#"{"method":"item/plan/delta","params":{"threadId":"th","turnId":"t1","itemId":"p","delta":"1. read"}}"#,
    ]);
    let chunks = &folded.messages[0].chunks;
    assert!(
        matches!(&chunks[0], Chunk::Thinking { text, .. } if *text == *"one\ntwo"),
        "{chunks:?}"
    );
    assert!(matches!(&chunks[1], Chunk::Thinking { text, .. } if *text == *"raw text"));
    assert!(matches!(&chunks[2], Chunk::System { text, .. } if *text == *"1. read"));
}

#[test]
fn lockstep_names_what_the_rollout_keeps_otherwise() {
    use agent_chunks::bytes::value;
    use agent_chunks::reading::model_json::messages_from_json;
    let messages = |text: &str| messages_from_json(&value::parse_str(text).unwrap(), "messages").unwrap();
    let mut stream = messages(
        r#"[{"id":"t","role":"assistant","chunks":[
          {"type":"thinking","text":"plan"},
          {"type":"tool-batch","calls":[{"id":"call_1","name":"command_execution","arguments":{"command":"seq 3"},"result":"1\n2\n3\n","isError":false}]},
          {"type":"system","kind":"compaction","text":""}]}]"#,
    );
    let mut history = messages(
        r#"[{"id":"t","role":"assistant","chunks":[
          {"type":"thinking","text":"plan","metadata":{"openai":{"reasoningEncryptedContent":"x"}}},
          {"type":"thinking","text":"raw"},
          {"type":"tool-batch","calls":[
            {"id":"call_1","name":"command_execution","arguments":{"command":"seq 3"},"result":"1\n\n... command output truncated for persistence ...\n3\n","isError":false},
            {"id":"call_2","name":"no_such_tool","arguments":{},"result":"unsupported call: no_such_tool","isError":true}]},
          {"type":"system","kind":"compaction","text":"summary"}]}]"#,
    );
    let notes = (find("codex-app-server").unwrap().lockstep.unwrap())(&mut stream, &mut history);
    assert_eq!(texts(&history), texts(&stream));
    assert_eq!(notes.len(), 5, "{notes:?}");
    for why in [
        "seals",
        "raw reasoning",
        "long outputs",
        "calls Codex shows no item for",
        "compaction summaries",
    ] {
        assert!(notes.iter().any(|n| n.contains(why)), "{why}: {notes:?}");
    }
}

#[test]
fn another_threads_notifications_are_counted_not_shown() {
    let mut lines: Vec<String> = SESSION.iter().map(|l| l.to_string()).collect();
    // A sub-agent's thread, its notifications among the main thread's.
    let at = lines
        .iter()
        .position(|l| l.contains(r#""itemId":"msg_1","delta":"I will ""#))
        .unwrap();
    lines.insert(
        at,
        r#"{"method":"item/completed","params":{"threadId":"sub","turnId":"s1","item":{"type":"agentMessage","id":"sub_msg","text":"from the sub-agent","phase":null}}}"#.into(),
    );
    let with: Vec<&str> = lines.iter().map(String::as_str).collect();
    let folded = fold(&with);
    assert_eq!(texts(&folded.messages), texts(&fold(SESSION).messages));
    assert_eq!(
        folded.skips.kinds.get("item/completed (another thread)"),
        Some(&1)
    );
}
