//! The rules over arbitrary event sequences, folded into `Vec<Chunk>`, checked event by
//! event against the invariants the rules promise; `IndexedChunks` (from an empty list
//! and from the chunks after the first few events) must give the very same chunks.

#![no_main]

use agent_chunks::owned::IndexedChunks;
use agent_chunks::{append_event, AgentEvent, Chunk, LifecycleKind, ShellStream};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

type Event = AgentEvent<String, Value>;

/// Ids and texts from small alphabets, so that results find calls and texts join.
#[derive(Debug, Arbitrary)]
enum Step {
    Text(u8),
    Reasoning(u8),
    End(Option<u8>),
    Call(u8),
    Result(u8, bool),
    Shell(u8, u8),
    Error(Option<u16>),
    Notice,
    ModelChanged,
    ConfigReload,
    Lifecycle,
    Unknown,
}

fn text(n: u8) -> String {
    ["a", "bc", "", "😀", "\u{0}", "é"][n as usize % 6].repeat(1 + n as usize / 6 % 3)
}

fn id(n: u8) -> String {
    format!("t{}", n % 5)
}

fn event(step: &Step, serial: usize) -> Event {
    match *step {
        Step::Text(n) => AgentEvent::TextDelta { delta: text(n) },
        Step::Reasoning(n) => AgentEvent::ReasoningDelta { delta: text(n) },
        Step::End(n) => AgentEvent::ReasoningEnd {
            metadata: n.map(|n| json!({ "p": { "signature": n } })),
        },
        Step::Call(n) => AgentEvent::ToolCall {
            id: id(n),
            name: "bash".into(),
            arguments: json!(serial),
        },
        Step::Result(n, is_error) => AgentEvent::ToolResult {
            tool_call_id: id(n),
            result: json!(serial),
            is_error: json!(is_error),
        },
        Step::Shell(stream, n) => AgentEvent::ShellOutput {
            stream: [ShellStream::Stdout, ShellStream::Stderr, ShellStream::Other][stream as usize % 3],
            data: text(n),
        },
        Step::Error(code) => AgentEvent::Error {
            error: "e".into(),
            status_code: code.map(f64::from),
        },
        Step::Notice => AgentEvent::Notice { message: "n".into() },
        Step::ModelChanged => AgentEvent::ModelChanged {
            model_id: "m".into(),
            key_id: "k".into(),
        },
        Step::ConfigReload => AgentEvent::ConfigReload,
        Step::Lifecycle => AgentEvent::Lifecycle(LifecycleKind::Done),
        Step::Unknown => AgentEvent::Unknown,
    }
}

/// The newest batch holding a call with `id`, and the first such call in it.
fn result_target(chunks: &[Chunk<String, Value>], id: &str) -> Option<(usize, usize)> {
    chunks
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, chunk)| match chunk {
            Chunk::ToolBatch { calls } => calls.iter().position(|c| c.id == id).map(|call| (index, call)),
            _ => None,
        })
}

fn texts(chunks: &[Chunk<String, Value>], thinking: bool) -> String {
    chunks
        .iter()
        .filter_map(|chunk| match (chunk, thinking) {
            (Chunk::Text { text }, false) | (Chunk::Thinking { text, .. }, true) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fuzz_target!(|input: (u8, Vec<Step>)| {
    let (indexed_from, steps) = input;
    let mut chunks: Vec<Chunk<String, Value>> = Vec::new();
    let mut indexed: IndexedChunks<String, Value> = IndexedChunks::new();
    let mut indexed_later: Option<IndexedChunks<String, Value>> = None;
    let (mut text_deltas, mut reasoning_deltas) = (String::new(), String::new());
    for (serial, step) in steps.iter().enumerate() {
        let event = event(step, serial);
        let before = chunks.clone();
        match &event {
            AgentEvent::TextDelta { delta } => text_deltas.push_str(delta),
            AgentEvent::ReasoningDelta { delta } => reasoning_deltas.push_str(delta),
            _ => {}
        }
        if serial == indexed_from as usize {
            indexed_later = Some(IndexedChunks::from(chunks.clone()));
        }
        let Ok(()) = append_event(&mut chunks, event.clone());
        let Ok(()) = append_event(&mut indexed, event.clone());
        assert_eq!(indexed.chunks(), &chunks[..], "the indexed store differs");
        if let Some(later) = &mut indexed_later {
            let Ok(()) = append_event(later, event.clone());
            assert_eq!(later.chunks(), &chunks[..], "the store indexed later differs");
        }

        // Chunks are only ever added or extended: none removed, none changes type.
        assert!(chunks.len() >= before.len());
        for (old, new) in before.iter().zip(&chunks) {
            assert_eq!(std::mem::discriminant(old), std::mem::discriminant(new));
            if let (
                Chunk::Thinking {
                    metadata: Some(_), ..
                },
                _,
            ) = (old, new)
            {
                assert_eq!(old, new, "a sealed thinking chunk changed");
            }
        }
        // Text chunks never touch; every delta is in the text, in order.
        assert!(!chunks
            .windows(2)
            .any(|w| matches!(w, [Chunk::Text { .. }, Chunk::Text { .. }])));
        assert_eq!(texts(&chunks, false), text_deltas);
        assert_eq!(texts(&chunks, true), reasoning_deltas);

        match event {
            AgentEvent::ToolResult {
                tool_call_id,
                result,
                is_error,
            } => {
                let mut expected = before.clone();
                if let Some((index, call)) = result_target(&before, &tool_call_id) {
                    if let Chunk::ToolBatch { calls } = &mut expected[index] {
                        calls[call].result = Some((result, is_error));
                    }
                }
                assert_eq!(
                    chunks, expected,
                    "the result did not land on the newest matching call"
                );
            }
            AgentEvent::Error { .. }
            | AgentEvent::Notice { .. }
            | AgentEvent::ModelChanged { .. }
            | AgentEvent::ConfigReload => {
                assert_eq!(chunks.len(), before.len() + 1);
                assert_eq!(chunks[..before.len()], before[..]);
            }
            AgentEvent::Lifecycle(_) | AgentEvent::Unknown => assert_eq!(chunks, before),
            _ => {}
        }
    }
});
