//! The webui's `UnifiedMessage` (seed `000`) and the chunk model rendered in it.
//!
//! A `UnifiedMessage` is one row of a chat timeline: a user prompt, an assistant answer,
//! a thinking block or a tool call, plus (from the chunk model) `system` notices and
//! `error`s. `isFirst` / `isLast` mark where a run of non-user rows starts and ends, so
//! the webui can draw the connector line; a user row breaks the run.
//!
//! Everything here is generic over `V`, a handle to a value of the caller's (a JavaScript
//! value in the binding): strings and payloads are passed on, never copied.

use crate::reading::source::{Expect, Key, Reader, Source, Step, ValueType};

/// The row types. `Given` is a `type` passed through from the input as it was.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnifiedType<V> {
    User,
    Assistant,
    Thinking,
    ToolCall,
    System,
    Error,
    Given(V),
}

impl<V> UnifiedType<V> {
    pub fn literal(&self) -> Option<&'static str> {
        Some(match self {
            UnifiedType::User => "user",
            UnifiedType::Assistant => "assistant",
            UnifiedType::Thinking => "thinking",
            UnifiedType::ToolCall => "tool_call",
            UnifiedType::System => "system",
            UnifiedType::Error => "error",
            UnifiedType::Given(_) => return None,
        })
    }
}

/// How a row's `id` is made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnifiedId<V> {
    /// An id from the input, as it was (a JSONL `uuid`).
    Given(V),
    /// `msg-${index}`.
    Message(usize),
    /// `tool-${toolCallId}`.
    Tool(V),
    /// `${messageId}-${chunkIndex}`.
    Chunk(V, usize),
}

/// How a row's `timestamp` is made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Timestamp<V> {
    /// The clock at the time of the call (`Date.now()`, or the caller's `options.now`).
    Now,
    /// A value from the input, as it was.
    Given(V),
    /// Milliseconds since the epoch (`NaN` for an invalid date).
    Millis(f64),
}

/// A row's `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum Content<V> {
    /// A value from the input, as it was (whatever it is).
    Given(V),
    /// These strings joined.
    Joined(Vec<V>),
    /// `''`.
    Empty,
}

/// The status of a tool call, as the webui shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

impl ToolStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Pending => "pending",
            ToolStatus::InProgress => "in_progress",
            ToolStatus::Completed => "completed",
            ToolStatus::Failed => "failed",
        }
    }

    pub fn from_tag(tag: &[u8]) -> Option<Self> {
        Some(match tag {
            b"pending" => ToolStatus::Pending,
            b"in_progress" => ToolStatus::InProgress,
            b"completed" => ToolStatus::Completed,
            b"failed" => ToolStatus::Failed,
            _ => return None,
        })
    }

    /// Whether the call has finished, one way or the other.
    pub fn is_final(self) -> bool {
        matches!(self, ToolStatus::Completed | ToolStatus::Failed)
    }
}

/// A tool call's output as `ToolCallContent[]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ToolOutput<V> {
    /// The result already is a `ToolCallContent[]`: passed on as it is.
    Given(V),
    /// A text result: one `{ type: 'content', content: { type: 'text', text } }` block.
    Text(V),
}

/// A `ToolCallData` made from a call of the chunk model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolCallView<V> {
    /// `toolCallId`.
    pub id: V,
    /// Both `kind` and `title`: the chunk model knows the tool only by name.
    pub name: V,
    pub status: ToolStatus,
    /// `rawInput`: the call's `arguments`, as they were.
    pub raw_input: V,
    /// `content`, when the result has a form the webui renders.
    pub output: Option<ToolOutput<V>>,
}

/// A row's `toolCall`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ToolCallSlot<V> {
    /// The input's own object, passed on by reference (possibly `undefined`).
    Given(V),
    Built(ToolCallView<V>),
}

/// One row. `content` / `tool_call` are `None` when the row has no such key at all.
#[derive(Debug, Clone, PartialEq)]
pub struct UnifiedMessage<V> {
    pub id: UnifiedId<V>,
    pub kind: UnifiedType<V>,
    pub timestamp: Timestamp<V>,
    pub content: Option<Content<V>>,
    pub tool_call: Option<ToolCallSlot<V>>,
    pub is_first: bool,
    pub is_last: bool,
}

/// `(isFirst, isLast)` for each row, given which rows break the sequence: a row is first
/// when there is no row before it or that row breaks; last likewise with the next row.
pub fn timeline_positions(breaks: &[bool]) -> Vec<(bool, bool)> {
    (0..breaks.len())
        .map(|i| {
            let first = i == 0 || breaks[i - 1];
            let last = i + 1 == breaks.len() || breaks[i + 1];
            (first, last)
        })
        .collect()
}

/// Sets `is_first` / `is_last` on rows, a row breaking the sequence when `breaks` says so.
pub fn place_on_timeline<V>(rows: &mut [UnifiedMessage<V>], breaks: &[bool]) {
    for (row, (first, last)) in rows.iter_mut().zip(timeline_positions(breaks)) {
        row.is_first = first;
        row.is_last = last;
    }
}

/// `toUnifiedMessages`: each message's chunks as rows, in order.
///
/// - a `text` chunk is an `assistant` row (a `user` row in a `user` message);
/// - a `thinking` chunk is a `thinking` row;
/// - each call of a `tool-batch` is a `tool_call` row whose `toolCall` is a
///   [`ToolCallView`]: `in_progress` until a result arrives, then `completed`, or
///   `failed` when `isError` is truthy;
/// - `system` and `error` chunks are rows of those types;
/// - holes, non-objects and chunk types this version does not know are skipped.
///
/// Rows get `timestamp: Now` (the chunk model has no times); only user rows break the
/// timeline, as in the seed's adapters.
pub fn to_unified_messages<S: Source>(
    source: &S,
    messages: S::Value,
) -> Result<Vec<UnifiedMessage<S::Value>>, S::Error> {
    let reader = Reader {
        source,
        root: "messages",
    };
    let (messages, count) = reader.array(messages, &[])?;
    let mut rows = Vec::new();
    for m in 0..count {
        let at = [Step::Index(m)];
        let message = source.element(messages, m)?;
        reader.check(message, Expect::Object, &at)?;
        let id = reader.required(message, Key::Id, Expect::String, &at)?;
        let role = reader.required(message, Key::Role, Expect::String, &at)?;
        let from_user = reader.is_tag(role, b"user")?;
        let chunks = source.get(message, Key::Chunks)?;
        let (chunks, chunk_count) = reader.array(chunks, &[Step::Index(m), Step::Field("chunks")])?;
        for c in 0..chunk_count {
            let at = [Step::Index(m), Step::Field("chunks"), Step::Index(c)];
            let chunk = source.element(chunks, c)?;
            if !is_object(source, chunk)? {
                continue;
            }
            let ty = source.get(chunk, Key::Type)?;
            let mut buf = [0u8; 32];
            let (kind, text_key) = match source.tag(ty, &mut buf)? {
                Some(b"text") if from_user => (UnifiedType::User, Key::Text),
                Some(b"text") => (UnifiedType::Assistant, Key::Text),
                Some(b"thinking") => (UnifiedType::Thinking, Key::Text),
                Some(b"system") => (UnifiedType::System, Key::Text),
                Some(b"error") => (UnifiedType::Error, Key::Message),
                Some(b"tool-batch") => {
                    push_calls(&reader, chunk, &at, &mut rows)?;
                    continue;
                }
                _ => continue,
            };
            let text = reader.required(chunk, text_key, Expect::String, &at)?;
            rows.push(row(
                UnifiedId::Chunk(id, c),
                kind,
                Some(Content::Given(text)),
                None,
            ));
        }
    }
    let breaks: Vec<bool> = rows.iter().map(|r| matches!(r.kind, UnifiedType::User)).collect();
    place_on_timeline(&mut rows, &breaks);
    Ok(rows)
}

fn row<V>(
    id: UnifiedId<V>,
    kind: UnifiedType<V>,
    content: Option<Content<V>>,
    tool_call: Option<ToolCallSlot<V>>,
) -> UnifiedMessage<V> {
    UnifiedMessage {
        id,
        kind,
        timestamp: Timestamp::Now,
        content,
        tool_call,
        is_first: false,
        is_last: false,
    }
}

fn is_object<S: Source>(source: &S, value: S::Value) -> Result<bool, S::Error> {
    Ok(matches!(
        source.value_type(value)?,
        ValueType::Object | ValueType::Array | ValueType::Function
    ))
}

fn push_calls<S: Source>(
    reader: &Reader<'_, S>,
    chunk: S::Value,
    at: &[Step],
    rows: &mut Vec<UnifiedMessage<S::Value>>,
) -> Result<(), S::Error> {
    let source = reader.source;
    let mut steps = at.to_vec();
    steps.push(Step::Field("calls"));
    let (calls, count) = reader.array(source.get(chunk, Key::Calls)?, &steps)?;
    for i in 0..count {
        let call = source.element(calls, i)?;
        if !is_object(source, call)? {
            continue;
        }
        steps.push(Step::Index(i));
        let id = reader.required(call, Key::Id, Expect::String, &steps)?;
        let name = reader.required(call, Key::Name, Expect::String, &steps)?;
        steps.pop();
        let raw_input = source.get(call, Key::Arguments)?;
        let (status, output) = if source.has(call, Key::Result)? {
            let failed = source.truthy(source.get(call, Key::IsError)?)?;
            let status = if failed {
                ToolStatus::Failed
            } else {
                ToolStatus::Completed
            };
            (status, tool_output(source, source.get(call, Key::Result)?)?)
        } else {
            (ToolStatus::InProgress, None)
        };
        let view = ToolCallView {
            id,
            name,
            status,
            raw_input,
            output,
        };
        rows.push(row(
            UnifiedId::Tool(id),
            UnifiedType::ToolCall,
            None,
            Some(ToolCallSlot::Built(view)),
        ));
    }
    Ok(())
}

/// A result the webui can render: a string (as one text block), or an array that already
/// is `ToolCallContent[]` (every item a `content`, `diff` or `terminal` block).
fn tool_output<S: Source>(source: &S, result: S::Value) -> Result<Option<ToolOutput<S::Value>>, S::Error> {
    if source.value_type(result)? == ValueType::String {
        return Ok(Some(ToolOutput::Text(result)));
    }
    let Some(len) = source.array_len(result)? else {
        return Ok(None);
    };
    for i in 0..len {
        let block = source.element(result, i)?;
        if !is_object(source, block)? {
            return Ok(None);
        }
        let mut buf = [0u8; 32];
        match source.tag(source.get(block, Key::Type)?, &mut buf)? {
            Some(b"content" | b"diff" | b"terminal") => {}
            _ => return Ok(None),
        }
    }
    Ok(Some(ToolOutput::Given(result)))
}
