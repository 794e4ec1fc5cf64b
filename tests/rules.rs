//! Each open/close rule, on Rust-owned chunks.

use agent_chunks::{
    append_event, AgentEvent, Chunk, ShellOutput, ShellStream, SystemChunkKind, ToolCallEntry,
};
use serde_json::{json, Value};

type Event = AgentEvent<String, Value>;

fn fold(chunks: &mut Vec<Chunk>, events: Vec<Event>) {
    for event in events {
        append_event(chunks, event).unwrap();
    }
}

fn text(delta: &str) -> Event {
    AgentEvent::TextDelta { delta: delta.into() }
}
fn reasoning(delta: &str) -> Event {
    AgentEvent::ReasoningDelta { delta: delta.into() }
}
fn seal(metadata: Option<Value>) -> Event {
    AgentEvent::ReasoningEnd { metadata }
}
fn call(id: &str) -> Event {
    AgentEvent::ToolCall {
        id: id.into(),
        name: "bash".into(),
        arguments: json!({ "id": id }),
    }
}
fn result(id: &str, value: Value) -> Event {
    AgentEvent::ToolResult {
        tool_call_id: id.into(),
        result: value,
        is_error: json!(false),
    }
}
fn shell(stream: ShellStream, data: &str) -> Event {
    AgentEvent::ShellOutput {
        stream,
        data: data.into(),
    }
}
fn thinking(text: &str, metadata: Option<Value>) -> Chunk {
    Chunk::Thinking {
        text: text.into(),
        metadata,
    }
}
fn calls(chunk: &Chunk) -> &[ToolCallEntry] {
    match chunk {
        Chunk::ToolBatch { calls } => calls,
        other => panic!("not a tool batch: {other:?}"),
    }
}

#[test]
fn text_deltas_coalesce_until_another_chunk_opens() {
    let mut chunks = Vec::new();
    fold(
        &mut chunks,
        vec![text("Hel"), text("lo"), reasoning("hm"), text("again")],
    );
    assert_eq!(
        chunks,
        vec![
            Chunk::Text { text: "Hello".into() },
            thinking("hm", None),
            Chunk::Text { text: "again".into() }
        ]
    );
}

#[test]
fn reasoning_deltas_extend_only_an_unsealed_thinking_chunk() {
    let mut chunks = Vec::new();
    let signature = json!({ "anthropic": { "signature": "sig" } });
    fold(
        &mut chunks,
        vec![
            reasoning("a"),
            reasoning("b"),
            seal(Some(signature.clone())),
            reasoning("c"),
        ],
    );
    assert_eq!(chunks, vec![thinking("ab", Some(signature)), thinking("c", None)]);
}

#[test]
fn reasoning_end_walks_back_to_the_newest_thinking_chunk() {
    let mut chunks = Vec::new();
    fold(
        &mut chunks,
        vec![
            reasoning("a"),
            text("t"),
            call("1"),
            seal(Some(json!({ "p": {} }))),
        ],
    );
    assert_eq!(chunks[0], thinking("a", Some(json!({ "p": {} }))));
}

#[test]
fn reasoning_end_without_metadata_or_home_does_nothing() {
    let mut chunks = Vec::new();
    fold(&mut chunks, vec![seal(Some(json!({})))]);
    assert!(chunks.is_empty(), "an orphan seal creates nothing");

    fold(&mut chunks, vec![reasoning("a"), seal(None)]);
    assert_eq!(chunks, vec![thinking("a", None)], "absent metadata does not seal");

    fold(
        &mut chunks,
        vec![
            seal(Some(json!(1))),
            reasoning("b"),
            text("x"),
            seal(Some(json!(2))),
        ],
    );
    // The newest thinking chunk ("b") takes the second seal; the first stays as it was.
    assert_eq!(chunks[0], thinking("a", Some(json!(1))));
    assert_eq!(chunks[1], thinking("b", Some(json!(2))));
}

#[test]
fn sealed_newest_thinking_chunk_drops_the_metadata_even_if_an_older_one_is_open() {
    let mut chunks = vec![
        thinking("old", None),
        Chunk::Text { text: "x".into() },
        thinking("new", Some(json!(1))),
    ];
    fold(&mut chunks, vec![seal(Some(json!(2)))]);
    assert_eq!(chunks[0], thinking("old", None));
    assert_eq!(chunks[2], thinking("new", Some(json!(1))));
}

#[test]
fn null_metadata_seals() {
    let mut chunks = Vec::new();
    fold(
        &mut chunks,
        vec![reasoning("a"), seal(Some(Value::Null)), reasoning("b")],
    );
    assert_eq!(
        chunks,
        vec![thinking("a", Some(Value::Null)), thinking("b", None)]
    );
}

#[test]
fn tool_calls_batch_while_consecutive() {
    let mut chunks = Vec::new();
    fold(&mut chunks, vec![call("1"), call("2"), text("t"), call("3")]);
    assert_eq!(chunks.len(), 3);
    assert_eq!(
        calls(&chunks[0])
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>(),
        ["1", "2"]
    );
    assert_eq!(calls(&chunks[2])[0].id, "3");
    assert_eq!(calls(&chunks[0])[1].arguments, json!({ "id": "2" }));
}

#[test]
fn tool_results_land_on_the_first_match_of_the_newest_batch_that_has_it() {
    let mut chunks = Vec::new();
    fold(
        &mut chunks,
        vec![
            call("a"),
            call("a"),
            text("t"),
            call("b"),
            result("a", json!("A")),
            result("zz", json!("lost")),
        ],
    );
    let first = calls(&chunks[0]);
    assert_eq!(first[0].result, Some((json!("A"), json!(false))));
    assert_eq!(first[1].result, None, "only the first call with the id");
    assert_eq!(calls(&chunks[2])[0].result, None);

    fold(&mut chunks, vec![call("a"), result("a", json!("newest"))]);
    assert_eq!(calls(&chunks[2])[1].result, Some((json!("newest"), json!(false))));
    assert_eq!(calls(&chunks[0])[0].result, Some((json!("A"), json!(false))));
}

#[test]
fn shell_output_goes_to_the_last_call_of_the_newest_batch() {
    let mut chunks = Vec::new();
    fold(&mut chunks, vec![shell(ShellStream::Stdout, "orphan")]);
    assert!(chunks.is_empty());

    fold(
        &mut chunks,
        vec![
            call("1"),
            call("2"),
            text("streaming meanwhile"),
            shell(ShellStream::Stdout, "out1 "),
            shell(ShellStream::Stderr, "err"),
            shell(ShellStream::Other, "ignored"),
            shell(ShellStream::Stdout, "out2"),
        ],
    );
    let batch = calls(&chunks[0]);
    assert_eq!(batch[0].shell_output, None);
    assert_eq!(
        batch[1].shell_output,
        Some(ShellOutput {
            stdout: "out1 out2".into(),
            stderr: "err".into()
        })
    );
    assert!(batch[1].shell_output_first, "shellOutput came before any result");
}

#[test]
fn shell_output_with_an_unknown_stream_still_creates_the_record() {
    let mut chunks = Vec::new();
    fold(
        &mut chunks,
        vec![call("1"), result("1", json!(0)), shell(ShellStream::Other, "x")],
    );
    let entry = &calls(&chunks[0])[0];
    assert_eq!(
        entry.shell_output,
        Some(ShellOutput {
            stdout: String::new(),
            stderr: String::new()
        })
    );
    assert!(!entry.shell_output_first, "the result came first");
}

#[test]
fn errors_and_system_notices_never_coalesce() {
    let mut chunks = Vec::new();
    fold(
        &mut chunks,
        vec![
            AgentEvent::Error {
                error: "a".into(),
                status_code: None,
            },
            AgentEvent::Error {
                error: "b".into(),
                status_code: Some(429.0),
            },
            AgentEvent::Notice { message: "n".into() },
            AgentEvent::Notice { message: "n".into() },
            AgentEvent::ModelChanged {
                model_id: "m".into(),
                key_id: "k".into(),
            },
            AgentEvent::ConfigReload,
        ],
    );
    assert_eq!(
        chunks,
        vec![
            Chunk::Error {
                message: "a".into(),
                status_code: None
            },
            Chunk::Error {
                message: "b".into(),
                status_code: Some(429.0)
            },
            Chunk::System {
                kind: SystemChunkKind::Notice,
                text: "n".into()
            },
            Chunk::System {
                kind: SystemChunkKind::Notice,
                text: "n".into()
            },
            Chunk::System {
                kind: SystemChunkKind::ModelChanged,
                text: "Switched to m (k)".into()
            },
            Chunk::System {
                kind: SystemChunkKind::ConfigReload,
                text: "Configuration reloaded".into()
            },
        ]
    );
}

#[test]
fn lifecycle_and_unknown_events_change_nothing() {
    let mut chunks = vec![Chunk::Text { text: "x".into() }];
    fold(
        &mut chunks,
        vec![
            AgentEvent::Lifecycle(agent_chunks::LifecycleKind::Done),
            AgentEvent::Unknown,
        ],
    );
    assert_eq!(chunks, vec![Chunk::Text { text: "x".into() }]);
}

#[test]
fn a_million_deltas_stay_one_chunk() {
    let mut chunks = Vec::new();
    for _ in 0..1_000_000 {
        append_event(&mut chunks, text("ab")).unwrap();
    }
    assert_eq!(chunks.len(), 1);
    match &chunks[0] {
        Chunk::Text { text } => assert_eq!(text.len(), 2_000_000),
        other => panic!("{other:?}"),
    }
}
