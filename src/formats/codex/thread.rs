//! A Codex thread as Codex rebuilds it from a rollout: turns of items, the way its own
//! reducer of persisted rollouts (`ThreadHistoryBuilder` in its app server) replays them
//! when a thread is resumed, then written as messages.
//!
//! Turns: `task_started` opens one (explicitly, by its `turn_id`) and `task_complete`
//! closes it; a user's input outside an explicitly opened turn closes the turn before it
//! and opens one (older rollouts open no turns); a turn that holds nothing and was not
//! opened explicitly is dropped. Items land in the open turn, or in the turn their
//! `turn_id` names; tool calls are upserted by `call_id`. `thread_rolled_back` drops the
//! last N turns ([`View::All`] keeps them); `turn_aborted` marks a turn interrupted; an
//! `error` marks it failed.
//!
//! A turn is written as its user messages (one per input) and, after each, an assistant
//! message of the items that follow (named by the turn's id); an interrupted turn ends in a
//! `cancelled` system chunk naming why, a failed one in an `error` chunk.

use std::collections::{HashMap, HashSet};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::model::{ChatMessage, Chunk, MessageRole, SystemChunkKind, ToolCallEntry};
use crate::reading::check::Skips;
use crate::reading::format::View;
use crate::reading::model_json::{FormatChunk, FormatMessage};

use super::items::{Reasoning, Shown};

/// Why a turn is left out: the thread was rolled back past it.
pub const ROLLED_BACK: &str = "rolled back: a later thread_rolled_back undid this turn";

/// A tool call of a turn: the model's call and its output, and the item Codex shows for
/// it, whichever the rollout holds.
#[derive(Debug, Clone)]
pub struct Call {
    pub id: Wtf8,
    /// The function the model called and its arguments.
    pub model: Option<(Wtf8, Json)>,
    /// The output the model was given, and whether it says the call failed.
    pub output: Option<(Json, bool)>,
    /// The item Codex shows for the call.
    pub shown: Option<Shown>,
}

impl Call {
    fn entry(&self) -> ToolCallEntry<Wtf8, Json> {
        let (name, arguments, outcome) = match (&self.shown, &self.model) {
            (Some(shown), _) => (
                shown.name.clone(),
                shown.arguments.clone(),
                shown.outcome.clone().or_else(|| self.output.clone()),
            ),
            (None, Some((name, arguments))) => (name.clone(), arguments.clone(), self.output.clone()),
            (None, None) => (Wtf8::from("unknown"), Json::Undefined, self.output.clone()),
        };
        let mut entry = ToolCallEntry::new(self.id.clone(), name, arguments);
        entry.result = outcome.map(|(result, error)| (result, Json::Bool(error)));
        entry
    }
}

#[derive(Debug, Clone)]
pub enum Item {
    /// A user's input: its id when the rollout gives one, and its chunks.
    User(Option<Wtf8>, Vec<FormatChunk>),
    Text(Wtf8),
    /// The model's copy of an agent message (read from the events, the message is
    /// [`Item::Text`]): shown only in a turn whose events hold no agent message.
    Copy(Wtf8),
    /// A reasoning item, and whether the model's copy of it (`response_item`) was read.
    Reasoning(Reasoning, bool),
    Call(Call),
    /// A compaction's summary, and whether Codex's event for it was read.
    Compaction(Wtf8, bool),
    Chunk(FormatChunk),
}

#[derive(Debug, Clone)]
pub struct Turn {
    pub id: Option<Wtf8>,
    /// The line that opened it.
    pub line: usize,
    pub items: Vec<Item>,
    explicit: bool,
    saw_compaction: bool,
    /// Why it was interrupted.
    interrupted: Option<Wtf8>,
    /// Why it failed, when its end says so.
    failed: Option<Wtf8>,
    rolled_back: bool,
}

/// The thread being rebuilt.
#[derive(Debug, Default)]
pub struct Thread {
    pub turns: Vec<Turn>,
    /// The last turn is open.
    open: bool,
    /// The turn each call is in (the newest, for an id given again), so that finding a
    /// call costs a look through one turn, not the thread.
    calls: HashMap<Wtf8, usize>,
}

impl Thread {
    fn new_turn(&mut self, id: Option<Wtf8>, line: usize, explicit: bool) {
        self.turns.push(Turn {
            id,
            line,
            items: Vec::new(),
            explicit,
            saw_compaction: false,
            interrupted: None,
            failed: None,
            rolled_back: false,
        });
        self.open = true;
    }

    /// Closes the open turn; one that holds nothing and was not opened explicitly goes.
    pub fn finish(&mut self) {
        if !self.open {
            return;
        }
        self.open = false;
        if let Some(turn) = self.turns.last() {
            if turn.items.is_empty() && !turn.explicit && !turn.saw_compaction && turn.interrupted.is_none() {
                self.turns.pop();
            }
        }
    }

    pub fn current(&mut self) -> Option<&mut Turn> {
        if self.open {
            self.turns.last_mut()
        } else {
            None
        }
    }

    /// The open turn, opened implicitly when none is.
    pub fn ensure(&mut self, line: usize) -> &mut Turn {
        if !self.open {
            self.new_turn(None, line, false);
        }
        self.turns.last_mut().expect("a turn is open")
    }

    /// `task_started`: a turn of its own.
    pub fn start(&mut self, id: Option<Wtf8>, line: usize) {
        self.finish();
        self.new_turn(id, line, true);
    }

    /// `task_complete`: closes the turn it names (the open one when it names none or one
    /// not seen). `error`: the turn failed.
    pub fn complete(&mut self, id: Option<&Wtf8>, error: Option<Wtf8>) {
        let open = self.open.then(|| self.turns.len() - 1);
        let named = id.and_then(|id| self.turns.iter().rposition(|t| t.id.as_ref() == Some(id)));
        let target = match (named, open) {
            (Some(n), _) => Some(n),
            (None, Some(o)) => Some(o),
            _ => None,
        };
        if let (Some(t), Some(error)) = (target, error) {
            self.turns[t].failed = Some(error);
        }
        if target.is_some() && target == open {
            self.finish();
        }
    }

    /// A user's input: it opens a turn unless one was opened explicitly for it.
    pub fn user(&mut self, id: Option<Wtf8>, chunks: Vec<FormatChunk>, line: usize) {
        if let Some(turn) = self.current() {
            let kept = turn.explicit || (turn.saw_compaction && turn.items.is_empty());
            if !kept {
                self.finish();
            }
        }
        self.ensure(line).items.push(Item::User(id, chunks));
    }

    pub fn push(&mut self, item: Item, line: usize) {
        self.ensure(line).items.push(item);
    }

    /// The turn `id` names (the open one when it names none or one not seen).
    fn turn_index(&mut self, id: Option<&Wtf8>, line: usize) -> usize {
        if let Some(at) = id.and_then(|id| self.turns.iter().rposition(|t| t.id.as_ref() == Some(id))) {
            return at;
        }
        self.ensure(line);
        self.turns.len() - 1
    }

    /// The turn and place of the call `id`, newest first.
    fn find_call(&self, id: &Wtf8) -> Option<(usize, usize)> {
        let &t = self.calls.get(id)?;
        self.turns
            .get(t)?
            .items
            .iter()
            .rposition(|item| matches!(item, Item::Call(call) if call.id == *id))
            .map(|i| (t, i))
    }

    /// The name the model called the call `id` by.
    pub fn call_name(&self, id: &Wtf8) -> Option<Wtf8> {
        let (t, i) = self.find_call(id)?;
        match &self.turns[t].items[i] {
            Item::Call(call) => call.model.as_ref().map(|(name, _)| name.clone()),
            _ => None,
        }
    }

    /// Adds a call to the turn at `t`.
    fn add_call(&mut self, t: usize, call: Call) {
        self.calls.insert(call.id.clone(), t);
        self.turns[t].items.push(Item::Call(call));
    }

    fn call_at(&mut self, (t, i): (usize, usize)) -> &mut Call {
        match &mut self.turns[t].items[i] {
            Item::Call(call) => call,
            _ => unreachable!("found as a call"),
        }
    }

    /// The model calls a tool: the call is added where it is made, unless it is known.
    pub fn model_call(&mut self, id: Wtf8, name: Wtf8, arguments: Json, line: usize) {
        if let Some(at) = self.find_call(&id) {
            self.call_at(at).model = Some((name, arguments));
            return;
        }
        let call = Call {
            id,
            model: Some((name, arguments)),
            output: None,
            shown: None,
        };
        self.ensure(line);
        self.add_call(self.turns.len() - 1, call);
    }

    /// A tool's output for the model; `false` when no call has its id.
    pub fn output(&mut self, id: &Wtf8, output: Json, failed: bool) -> bool {
        match self.find_call(id) {
            Some(at) => {
                self.call_at(at).output = Some((output, failed));
                true
            }
            None => false,
        }
    }

    /// The item Codex shows for a call (in the turn `turn` names). Codex places a call where
    /// its item first shows: a call the model made and nothing showed yet moves there (in
    /// parallel calls, the order they ran in), unless it already has its output.
    pub fn shown(&mut self, id: Wtf8, turn: Option<&Wtf8>, shown: Shown, line: usize) {
        if let Some((t, i)) = self.find_call(&id) {
            let call = self.call_at((t, i));
            let first = call.shown.is_none() && call.output.is_none();
            let mut shown = shown;
            if let (Json::Undefined, Some(before)) = (&shown.arguments, &call.shown) {
                shown.arguments = before.arguments.clone();
            }
            call.shown = Some(shown);
            let open = self.open && t + 1 == self.turns.len();
            if first && open {
                let item = self.turns[t].items.remove(i);
                self.turns[t].items.push(item);
            }
            return;
        }
        let call = Call {
            id,
            model: None,
            output: None,
            shown: Some(shown),
        };
        let t = self.turn_index(turn, line);
        self.add_call(t, call);
    }

    /// The model's copy of a reasoning item: it seals the item Codex showed for it (by id,
    /// else the first of the open turn not sealed yet with the same summary), or is an item
    /// of its own (encrypted only, or never shown).
    pub fn reasoning_copy(&mut self, copy: Reasoning, line: usize) {
        if let Some(turn) = self.current() {
            let summary = copy.summary_text();
            let found = turn.items.iter().position(|item| match item {
                Item::Reasoning(shown, false) => match (&shown.id, &copy.id) {
                    (Some(a), Some(b)) => a == b,
                    _ => shown.summary_text() == summary,
                },
                _ => false,
            });
            if let Some(at) = found {
                if let Item::Reasoning(shown, matched) = &mut turn.items[at] {
                    shown.encrypted = copy.encrypted;
                    if shown.id.is_none() {
                        shown.id = copy.id;
                    }
                    if shown.raw.is_empty() {
                        shown.raw = copy.raw;
                    }
                    *matched = true;
                }
                return;
            }
        }
        if !copy.is_empty() {
            self.push(Item::Reasoning(copy, true), line);
        }
    }

    /// A `compacted` line: the compaction and its summary.
    pub fn compacted(&mut self, summary: Wtf8, line: usize) {
        let turn = self.ensure(line);
        turn.saw_compaction = true;
        turn.items.push(Item::Compaction(summary, false));
    }

    /// Codex's event for a compaction: the one a `compacted` line made, or one of its own.
    pub fn compaction_event(&mut self, line: usize) {
        let turn = self.ensure(line);
        if let Some(Item::Compaction(_, event)) = turn
            .items
            .iter_mut()
            .rev()
            .find(|i| matches!(i, Item::Compaction(_, false)))
        {
            *event = true;
            return;
        }
        turn.items.push(Item::Compaction(Wtf8::new(), true));
    }

    /// `turn_aborted`: the turn it names (or the open one) was interrupted.
    pub fn aborted(&mut self, id: Option<&Wtf8>, reason: Wtf8) {
        let named = id.and_then(|id| self.turns.iter().rposition(|t| t.id.as_ref() == Some(id)));
        let target = named.or(self.open.then(|| self.turns.len() - 1));
        if let Some(t) = target {
            self.turns[t].interrupted = Some(reason);
        }
    }

    /// `thread_rolled_back`: the last `n` turns are undone.
    pub fn roll_back(&mut self, n: usize) {
        self.finish();
        let mut left = n;
        for turn in self.turns.iter_mut().rev() {
            if left == 0 {
                break;
            }
            if !turn.rolled_back {
                turn.rolled_back = true;
                left -= 1;
            }
        }
    }

    /// The thread as messages; the turns rolled back are left out (but for
    /// [`View::All`]).
    pub fn messages(mut self, view: View, skips: &mut Skips) -> Vec<FormatMessage> {
        self.finish();
        let mut out = Vec::new();
        let mut ids = HashSet::new();
        for (n, turn) in self.turns.into_iter().enumerate() {
            let name = turn
                .id
                .as_ref()
                .map(|id| id.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("turn-{}", n + 1));
            if turn.rolled_back && view != View::All {
                skips.leave_out(|| format!("line {} (turn {name})", turn.line), ROLLED_BACK);
                continue;
            }
            write_turn(turn, &name, &mut ids, &mut out);
        }
        out
    }
}

/// `id`, or the fewest `'` after it that make it new.
fn unique(id: String, ids: &mut HashSet<String>) -> String {
    let mut id = id;
    while ids.contains(&id) {
        id.push('\'');
    }
    ids.insert(id.clone());
    id
}

/// The model's copies of agent messages a turn shows: none when its events showed any; else
/// all but a compaction's summary (the answer to Codex's request for one, which the
/// compaction that follows holds).
fn copies_shown(items: &[Item]) -> Vec<bool> {
    let texts = items.iter().any(|i| matches!(i, Item::Text(_)));
    items
        .iter()
        .enumerate()
        .map(|(at, item)| match item {
            Item::Copy(text) if !texts => !items[at + 1..].iter().any(|later| match later {
                Item::Compaction(summary, _) => {
                    summary.as_bytes().ends_with(text.as_bytes().trim_ascii_end())
                }
                _ => false,
            }),
            _ => false,
        })
        .collect()
}

fn write_turn(turn: Turn, name: &str, ids: &mut HashSet<String>, out: &mut Vec<FormatMessage>) {
    let mut assistant: Vec<FormatChunk> = Vec::new();
    let shown = copies_shown(&turn.items);
    let flush = |chunks: &mut Vec<FormatChunk>, ids: &mut HashSet<String>, out: &mut Vec<FormatMessage>| {
        if !chunks.is_empty() {
            out.push(ChatMessage {
                id: unique(name.to_string(), ids),
                role: MessageRole::Assistant,
                chunks: std::mem::take(chunks),
            });
        }
    };
    for (item, shown) in turn.items.into_iter().zip(shown) {
        match item {
            Item::Copy(text) if shown => assistant.push(Chunk::Text { text }),
            Item::Copy(_) => {}
            Item::User(id, chunks) => {
                flush(&mut assistant, ids, out);
                let id = id
                    .map(|id| id.to_string_lossy().into_owned())
                    .unwrap_or_else(|| format!("{name}-user"));
                out.push(ChatMessage {
                    id: unique(id, ids),
                    role: MessageRole::User,
                    chunks,
                });
            }
            Item::Text(text) => assistant.push(Chunk::Text { text }),
            Item::Reasoning(reasoning, _) => assistant.extend(reasoning.chunks()),
            Item::Call(call) => {
                let entry = call.entry();
                match assistant.last_mut() {
                    Some(Chunk::ToolBatch { calls }) => calls.push(entry),
                    _ => assistant.push(Chunk::ToolBatch { calls: vec![entry] }),
                }
            }
            Item::Compaction(summary, _) => assistant.push(Chunk::System {
                kind: SystemChunkKind::Compaction,
                text: summary,
            }),
            Item::Chunk(chunk) => assistant.push(chunk),
        }
    }
    if let Some(message) = turn.failed {
        assistant.push(Chunk::Error {
            message,
            status_code: None,
        });
    }
    if let Some(reason) = turn.interrupted {
        assistant.push(Chunk::System {
            kind: SystemChunkKind::Cancelled,
            text: reason,
        });
    }
    flush(&mut assistant, ids, out);
}
