//! The timeline view of one assistant message: its process (reasoning and tool calls) as
//! items with derived statuses, grouped by delegation span.
//!
//! - Each thinking chunk is a reasoning item `reasoning-<chunk index>`; it is `running`
//!   only while it is the message's last chunk, unsealed, and the message is not finished.
//! - Each tool call is a tool-call item: `error` or `completed` once it has a result
//!   (by `isError`), else `cancelled` when the message is finished, else `running`. Its
//!   title is its tool name, except a `task` call, titled by `args.subagent_type`
//!   title-cased (`notion_agent` → `Notion Agent`), or `Task` without one.
//! - A call's `spanId` groups items of a delegation: in a span that holds a `task` call
//!   (wherever it comes in the span), the span's first item is the parent and its later
//!   items (the `task` call among them when it is not first) are its children. A span
//!   without any `task` call has no owner: each of its items is a group of its own, as is
//!   every item without a span.
//!
//! The texts, arguments and results are generic so that the binding can hand back the
//! caller's own JavaScript values.

use std::collections::{HashMap, HashSet};

use crate::model::Chunk;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemStatus {
    Running,
    Completed,
    Cancelled,
    Error,
}

impl ItemStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::Running => "running",
            ItemStatus::Completed => "completed",
            ItemStatus::Cancelled => "cancelled",
            ItemStatus::Error => "error",
        }
    }
}

/// A tool call as the timeline reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSource<T, V> {
    pub id: T,
    pub name: Wtf8,
    pub args: V,
    /// `args.subagent_type`, when it is a string.
    pub subagent_type: Option<Wtf8>,
    /// `Some((result, isError is truthy))` once the call has a result.
    pub result: Option<(V, bool)>,
    pub span_id: Option<Wtf8>,
}

/// One thing the timeline shows, in chunk order.
#[derive(Debug, Clone, PartialEq)]
pub enum Source<T, V> {
    Reasoning { chunk: usize, text: T, sealed: bool },
    Call(CallSource<T, V>),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimelineOptions {
    /// The message is complete: nothing is still running.
    pub finished: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TimelineItem<T, V> {
    Reasoning {
        id: String,
        text: T,
        status: ItemStatus,
    },
    ToolCall {
        id: T,
        tool_name: Wtf8,
        title: Wtf8,
        args: V,
        /// The call's result, as given; `None` when it has none.
        result: Option<V>,
        status: ItemStatus,
        span_id: Option<Wtf8>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimelineGroup<T, V> {
    pub parent: TimelineItem<T, V>,
    pub children: Vec<TimelineItem<T, V>>,
}

/// `notion_agent` → `Notion Agent`: words split at `_`, `-` and whitespace, each with its
/// first letter upper-cased; `Task` when there are no words.
pub fn task_title(subagent_type: Option<&Wtf8>) -> Wtf8 {
    let mut title = Wtf8::new();
    let mut at_word_start = true;
    for cp in subagent_type.into_iter().flat_map(Wtf8::code_points) {
        let separator =
            cp == '_' as u32 || cp == '-' as u32 || char::from_u32(cp).is_some_and(char::is_whitespace);
        if separator {
            at_word_start = true;
            continue;
        }
        if at_word_start && !title.is_empty() {
            title.push_code_point(' ' as u32);
        }
        match char::from_u32(cp).filter(|_| at_word_start) {
            Some(c) => c.to_uppercase().for_each(|u| title.push_code_point(u as u32)),
            None => title.push_code_point(cp),
        }
        at_word_start = false;
    }
    if title.is_empty() {
        Wtf8::from("Task")
    } else {
        title
    }
}

fn item<T, V>(
    source: Source<T, V>,
    last_chunk: Option<usize>,
    options: TimelineOptions,
) -> TimelineItem<T, V> {
    match source {
        Source::Reasoning { chunk, text, sealed } => TimelineItem::Reasoning {
            id: format!("reasoning-{chunk}"),
            text,
            status: if Some(chunk) == last_chunk && !sealed && !options.finished {
                ItemStatus::Running
            } else {
                ItemStatus::Completed
            },
        },
        Source::Call(call) => {
            let title = if call.name == "task" {
                task_title(call.subagent_type.as_ref())
            } else {
                call.name.clone()
            };
            let (result, status) = match call.result {
                Some((result, true)) => (Some(result), ItemStatus::Error),
                Some((result, false)) => (Some(result), ItemStatus::Completed),
                None if options.finished => (None, ItemStatus::Cancelled),
                None => (None, ItemStatus::Running),
            };
            TimelineItem::ToolCall {
                id: call.id,
                tool_name: call.name,
                title,
                args: call.args,
                result,
                status,
                span_id: call.span_id,
            }
        }
    }
}

/// The timeline of a message whose chunks the `sources` were read from (`chunk_count`
/// of them).
pub fn build_timeline<T, V>(
    sources: Vec<Source<T, V>>,
    chunk_count: usize,
    options: TimelineOptions,
) -> Vec<TimelineGroup<T, V>> {
    let last_chunk = chunk_count.checked_sub(1);
    // The spans a task call owns: their items are grouped, under the span's first item.
    let owned: HashSet<Wtf8> = sources
        .iter()
        .filter_map(|source| match source {
            Source::Call(call) if call.name == "task" => call.span_id.clone(),
            _ => None,
        })
        .collect();
    let mut groups: Vec<TimelineGroup<T, V>> = Vec::new();
    // The group of each owned span seen so far.
    let mut parents: HashMap<Wtf8, usize> = HashMap::new();
    for source in sources {
        let span = match &source {
            Source::Call(call) => call.span_id.clone().filter(|span| owned.contains(span)),
            Source::Reasoning { .. } => None,
        };
        let item = item(source, last_chunk, options);
        match span {
            Some(span) if parents.contains_key(&span) => groups[parents[&span]].children.push(item),
            span => {
                if let Some(span) = span {
                    parents.insert(span, groups.len());
                }
                groups.push(TimelineGroup {
                    parent: item,
                    children: Vec::new(),
                });
            }
        }
    }
    groups
}

/// JavaScript truthiness of a JSON value.
pub fn truthy(value: &Json) -> bool {
    match value {
        Json::Undefined | Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.parse::<f64>().is_ok_and(|n| n != 0.0 && !n.is_nan()),
        Json::String(s) => !s.is_empty(),
        Json::Array(_) | Json::Object(_) => true,
    }
}

/// The sources of Rust-owned chunks (which carry no span ids).
pub fn sources_from_chunks(chunks: &[Chunk<Wtf8, Json>]) -> Vec<Source<Wtf8, Json>> {
    let mut sources = Vec::new();
    for (index, chunk) in chunks.iter().enumerate() {
        match chunk {
            Chunk::Thinking { text, metadata } => sources.push(Source::Reasoning {
                chunk: index,
                text: text.clone(),
                sealed: metadata.is_some(),
            }),
            Chunk::ToolBatch { calls } => sources.extend(calls.iter().map(|call| {
                Source::Call(CallSource {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    args: call.arguments.clone(),
                    subagent_type: call
                        .arguments
                        .get("subagent_type")
                        .and_then(Json::as_str)
                        .cloned(),
                    result: call
                        .result
                        .as_ref()
                        .map(|(result, is_error)| (result.clone(), truthy(is_error))),
                    span_id: None,
                })
            })),
            _ => {}
        }
    }
    sources
}
