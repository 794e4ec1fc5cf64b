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
        call("q", "grep", Some("y")),
        call("r", "read", Some("y")),
    ];
    let groups = build_timeline(sources, 1, TimelineOptions::default());
    let ids = |items: &[TimelineItem<Wtf8, Json>]| -> Vec<String> {
        items
            .iter()
            .map(|item| match item {
                TimelineItem::ToolCall { id, .. } => id.to_string_lossy().into_owned(),
                TimelineItem::Reasoning { id, .. } => id.clone(),
            })
            .collect()
    };
    let parents: Vec<_> = groups.iter().map(|g| g.parent.clone()).collect();
    assert_eq!(ids(&parents), ["t", "o", "q", "r"]);
    assert_eq!(ids(&groups[0].children), ["c"]);
    // Spans no task call owns (`z`, `y`): each item is a group of its own.
    assert!(groups[1..].iter().all(|g| g.children.is_empty()));
}

#[test]
fn a_span_whose_task_call_is_not_its_first_item_groups_under_that_first_item() {
    // SurfSense's grouping (both versions that had `TimelineGroup`): the first item
    // carrying the span is its parent, the rest nest under it, the task call too.
    let sources = vec![
        call("free", "search", None),
        call("a", "search_workspace", Some("s")),
        call("t", "task", Some("s")),
        call("b", "update_page", Some("s")),
    ];
    let groups = build_timeline(sources, 1, TimelineOptions::default());
    assert_eq!(groups.len(), 2, "{groups:?}");
    let child_ids: Vec<_> = groups[1]
        .children
        .iter()
        .map(|item| match item {
            TimelineItem::ToolCall { id, .. } => id.to_string_lossy().into_owned(),
            TimelineItem::Reasoning { id, .. } => id.clone(),
        })
        .collect();
    assert!(matches!(&groups[1].parent, TimelineItem::ToolCall { id, .. } if *id == "a"));
    assert_eq!(child_ids, ["t", "b"]);
}

#[test]
fn task_titles() {
    assert_eq!(task_title(Some(&"notion_agent".into())), "Notion Agent");
    assert_eq!(task_title(None), "Task");
    assert_eq!(task_title(Some(&"".into())), "Task");
}
