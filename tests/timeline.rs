//! The timeline rules on Rust-owned chunks and sources.

use agent_chunks::bytes::value::Json;
use agent_chunks::bytes::wtf8::Wtf8;
use agent_chunks::views::timeline::{
    build_timeline, sources_from_chunks, task_title, CallSource, ItemStatus, Source, TimelineItem,
    TimelineOptions,
};
use agent_chunks::{Chunk, ToolCallEntry};

fn call(id: &str, name: &str, span: Option<&str>) -> Source<Wtf8, Json> {
    Source::Call(CallSource {
        id: id.into(),
        name: name.into(),
        args: Json::Null,
        subagent_type: None,
        result: None,
        span_id: span.map(Wtf8::from),
    })
}

fn status(item: &TimelineItem<Wtf8, Json>) -> ItemStatus {
    match item {
        TimelineItem::Reasoning { status, .. } | TimelineItem::ToolCall { status, .. } => *status,
    }
}

#[test]
fn statuses_follow_results_and_finish() {
    let mut done = ToolCallEntry::new(Wtf8::from("a"), Wtf8::from("x"), Json::Null);
    done.result = Some((Json::string("r"), Json::Bool(true)));
    let chunks = vec![
        Chunk::ToolBatch {
            calls: vec![done, ToolCallEntry::new("b".into(), "x".into(), Json::Null)],
        },
        Chunk::Thinking {
            text: "t".into(),
            metadata: None,
        },
    ];
    let open = build_timeline(sources_from_chunks(&chunks), 2, TimelineOptions::default());
    assert_eq!(
        open.iter().map(|g| status(&g.parent)).collect::<Vec<_>>(),
        [ItemStatus::Error, ItemStatus::Running, ItemStatus::Running]
    );
    let finished = build_timeline(
        sources_from_chunks(&chunks),
        2,
        TimelineOptions { finished: true },
    );
    assert_eq!(
        finished.iter().map(|g| status(&g.parent)).collect::<Vec<_>>(),
        [ItemStatus::Error, ItemStatus::Cancelled, ItemStatus::Completed]
    );
}

#[test]
fn spans_group_under_a_task_and_orphans_are_promoted() {
    let sources = vec![
        call("t", "task", Some("s")),
        call("c", "read", Some("s")),
        call("o", "read", Some("z")),
        call("p", "task", Some("z")),
    ];
    let groups = build_timeline(sources, 1, TimelineOptions::default());
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[0].children.len(), 1);
    assert!(groups[1].children.is_empty() && groups[2].children.is_empty());
}

#[test]
fn task_titles() {
    assert_eq!(task_title(Some(&"notion_agent".into())), "Notion Agent");
    assert_eq!(task_title(None), "Task");
    assert_eq!(task_title(Some(&"".into())), "Task");
}
