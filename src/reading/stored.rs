//! Messages built from a session file whose stored messages each stay one
//! [`ChatMessage`](crate::ChatMessage), and whose tool results arrive in later entries
//! (a `tool_result` line or record, a tool call's update) and land on their call
//! wherever it is.
//!
//! Messages are handed on in order as soon as they are closed and none of their calls
//! still waits for a result, so a reader keeps only the tail of a long file in memory.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::model::{ChatMessage, Chunk, MessageRole, ToolCallEntry};
use crate::reducer::append_event;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::model_json::{FormatChunk, FormatEvent, FormatMessage};

/// Where a call is: the message (counted from the first ever opened), chunk and call.
#[derive(Debug, Clone, Copy)]
struct Place {
    message: usize,
    chunk: usize,
    call: usize,
}

#[derive(Debug, Default)]
pub struct StoredMessages {
    /// Messages not handed on yet; the first is message number `handed`.
    held: VecDeque<FormatMessage>,
    handed: usize,
    /// Whether the newest held message takes more chunks.
    open: bool,
    calls: HashMap<Wtf8, Place>,
    /// Calls without a result, per held message number.
    waiting: HashMap<usize, usize>,
    ids: HashSet<String>,
    /// Per id given more than once, how many `'` its last copy needed.
    primes: HashMap<String, usize>,
}

impl StoredMessages {
    pub fn new() -> Self {
        Self::default()
    }

    /// The role of the open message, if one is open.
    pub fn open_role(&self) -> Option<MessageRole> {
        self.held.back().filter(|_| self.open).map(|m| m.role)
    }

    /// The id of the open message, if one is open.
    pub fn open_id(&self) -> Option<&str> {
        self.held.back().filter(|_| self.open).map(|m| m.id.as_str())
    }

    /// Closes the open message and starts another. `id` is kept when no earlier message
    /// of this reading has it; otherwise (and when absent) the message is named `fallback`.
    pub fn start(&mut self, role: MessageRole, id: Option<&str>, fallback: impl FnOnce() -> String) {
        let id = match id {
            Some(id) if !self.ids.contains(id) => id.to_string(),
            _ => {
                // The fewest `'` that make the id new. Ids are never given back, so the
                // count found last for this base is where the search goes on: a file
                // repeating one id k times costs k steps, not k² (each step hashing an
                // id k long).
                let base = fallback();
                let primes = self.primes.entry(base.clone()).or_insert(0);
                let mut id = base;
                id.extend(std::iter::repeat_n('\'', *primes));
                while self.ids.contains(&id) {
                    id.push('\'');
                    *primes += 1;
                }
                id
            }
        };
        self.ids.insert(id.clone());
        self.held.push_back(ChatMessage {
            id,
            role,
            chunks: Vec::new(),
        });
        self.open = true;
    }

    /// Keeps the open message open when it has `role`, else starts one.
    pub fn ensure(&mut self, role: MessageRole, fallback: impl FnOnce() -> String) {
        if self.open_role() != Some(role) {
            self.start(role, None, fallback);
        }
    }

    pub fn close(&mut self) {
        self.open = false;
    }

    fn chunks(&mut self) -> &mut Vec<FormatChunk> {
        &mut self.held.back_mut().expect("a message is open").chunks
    }

    /// Folds an event into the open message (the rules every stream goes through).
    pub fn event(&mut self, event: FormatEvent) {
        let Ok(()) = append_event(self.chunks(), event);
    }

    pub fn push(&mut self, chunk: FormatChunk) {
        self.chunks().push(chunk);
    }

    /// Adds a call to the open message as `tool-call` adds it: to the last chunk when it
    /// is a tool batch, else in a new one. A call whose id was seen before is not added
    /// again while its message is held; its entry is returned. One whose message was
    /// handed on already is added anew (tools reuse ids such as `call_0`), never dropped.
    pub fn call(&mut self, id: Wtf8, name: Wtf8, arguments: Json) -> &mut ToolCallEntry<Wtf8, Json> {
        if self.call_mut(&id).is_some() {
            return self.call_mut(&id).expect("a held call");
        }
        self.new_call(id, name, arguments)
    }

    /// Adds a call to the open message as `tool-call` adds it, whatever calls with its id
    /// came before (the caller has decided that it is a call of its own); later updates
    /// by id go to it.
    pub fn new_call(&mut self, id: Wtf8, name: Wtf8, arguments: Json) -> &mut ToolCallEntry<Wtf8, Json> {
        let message = self.handed + self.held.len() - 1;
        let chunks = self.chunks();
        if !matches!(chunks.last(), Some(Chunk::ToolBatch { .. })) {
            chunks.push(Chunk::ToolBatch { calls: Vec::new() });
        }
        let chunk = chunks.len() - 1;
        let Some(Chunk::ToolBatch { calls }) = chunks.last_mut() else {
            unreachable!("the last chunk is a tool batch")
        };
        calls.push(ToolCallEntry::new(id.clone(), name, arguments));
        let call = calls.len() - 1;
        self.calls.insert(id.clone(), Place { message, chunk, call });
        *self.waiting.entry(message).or_default() += 1;
        self.call_mut(&id).expect("the call just added")
    }

    /// A call still held, by id.
    pub fn call_mut(&mut self, id: &Wtf8) -> Option<&mut ToolCallEntry<Wtf8, Json>> {
        let place = *self.calls.get(id)?;
        let message = self.held.get_mut(place.message.checked_sub(self.handed)?)?;
        match message.chunks.get_mut(place.chunk)? {
            Chunk::ToolBatch { calls } => calls.get_mut(place.call),
            _ => None,
        }
    }

    /// Whether a call with this id was read (held or handed on).
    pub fn has_call(&self, id: &Wtf8) -> bool {
        self.calls.contains_key(id)
    }

    /// Sets (or, with `None`, removes) a call's result. `false` when the call is not
    /// held any more or was never read.
    pub fn set_result(&mut self, id: &Wtf8, result: Option<(Json, Json)>) -> bool {
        let Some(place) = self.calls.get(id).copied() else {
            return false;
        };
        let Some(entry) = self.call_mut(id) else {
            return false;
        };
        let had = entry.result.is_some();
        let has = result.is_some();
        entry.result = result;
        if had != has {
            let waiting = self.waiting.entry(place.message).or_default();
            if has {
                *waiting = waiting.saturating_sub(1);
            } else {
                *waiting += 1;
            }
        }
        true
    }

    /// Hands on the messages that are complete, in order; `false` when `emit` asked to
    /// stop.
    pub fn hand_on(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        while self.held.len() > usize::from(self.open) {
            if self.waiting.get(&self.handed).copied().unwrap_or(0) > 0 {
                return true;
            }
            if !self.give_front(emit) {
                return false;
            }
        }
        true
    }

    /// Hands on everything held, calls without results as they are.
    pub fn finish(mut self, emit: &mut impl FnMut(FormatMessage) -> bool) {
        while !self.held.is_empty() {
            if !self.give_front(emit) {
                return;
            }
        }
    }

    /// All messages, for readers that return a list.
    pub fn into_messages(self) -> Vec<FormatMessage> {
        let mut out = Vec::new();
        self.finish(&mut |m| {
            out.push(m);
            true
        });
        out
    }

    fn give_front(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        let Some(message) = self.held.pop_front() else {
            return true;
        };
        self.waiting.remove(&self.handed);
        self.handed += 1;
        if self.held.is_empty() {
            self.open = false;
        }
        emit(message)
    }
}

/// Where a fold puts what it reads: the messages of a history being read
/// ([`StoredMessages`]), or of a live stream ([`Folded`](crate::reading::fold::Folded)), so one set
/// of rules serves both.
pub trait Sink {
    fn open_role(&self) -> Option<MessageRole>;
    /// Starts a message named `id` (unique: the fold names it).
    fn start(&mut self, role: MessageRole, id: String);
    fn event(&mut self, event: FormatEvent);
    fn push(&mut self, chunk: FormatChunk);
    fn add_call(&mut self, id: Wtf8, name: Wtf8, arguments: Json);
    /// Sets a call's name, arguments and result; `false` when the call is not held.
    fn update_call(&mut self, id: &Wtf8, name: Wtf8, arguments: Json, result: Option<(Json, Json)>) -> bool;
}

impl Sink for StoredMessages {
    fn open_role(&self) -> Option<MessageRole> {
        StoredMessages::open_role(self)
    }

    fn start(&mut self, role: MessageRole, id: String) {
        StoredMessages::start(self, role, Some(&id), || id.clone());
    }

    fn event(&mut self, event: FormatEvent) {
        StoredMessages::event(self, event);
    }

    fn push(&mut self, chunk: FormatChunk) {
        StoredMessages::push(self, chunk);
    }

    fn add_call(&mut self, id: Wtf8, name: Wtf8, arguments: Json) {
        // The rules add a call only for an id their turn has not seen, as the live fold
        // does, whether or not an earlier call with the id is still held.
        self.new_call(id, name, arguments);
    }

    fn update_call(&mut self, id: &Wtf8, name: Wtf8, arguments: Json, result: Option<(Json, Json)>) -> bool {
        let Some(entry) = self.call_mut(id) else {
            return false;
        };
        entry.name = name;
        entry.arguments = arguments;
        self.set_result(id, result)
    }
}

impl Sink for crate::reading::fold::Folded {
    fn open_role(&self) -> Option<MessageRole> {
        crate::reading::fold::Folded::open_role(self)
    }

    fn start(&mut self, role: MessageRole, id: String) {
        self.begin(role, Some(id));
    }

    fn event(&mut self, event: FormatEvent) {
        self.apply(event);
    }

    fn push(&mut self, chunk: FormatChunk) {
        self.push_chunk(chunk);
    }

    fn add_call(&mut self, id: Wtf8, name: Wtf8, arguments: Json) {
        self.apply(FormatEvent::ToolCall { id, name, arguments });
    }

    fn update_call(&mut self, id: &Wtf8, name: Wtf8, arguments: Json, result: Option<(Json, Json)>) -> bool {
        let Some(entry) = self.call_mut(id) else {
            return false;
        };
        entry.name = name;
        entry.arguments = arguments;
        entry.result = result;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_id_reused_after_its_message_was_handed_on_is_added_again() {
        let id = || Wtf8::from("call_0");
        let mut stored = StoredMessages::new();
        stored.start(MessageRole::Assistant, Some("a"), || "x".into());
        stored.call(id(), "bash".into(), Json::Null);
        assert!(stored.set_result(&id(), Some((Json::Null, Json::Bool(false)))));
        stored.start(MessageRole::Assistant, Some("b"), || "y".into());
        let mut handed = Vec::new();
        assert!(stored.hand_on(&mut |m| {
            handed.push(m);
            true
        }));
        assert_eq!(handed.len(), 1);
        stored.call(id(), "read".into(), Json::Null);
        let rest = stored.into_messages();
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].id, "b");
        match &rest[0].chunks[..] {
            [Chunk::ToolBatch { calls }] => assert_eq!(calls[0].name, Wtf8::from("read")),
            other => panic!("expected one tool batch, got {other:?}"),
        }
    }

    /// A message id given again gets the fewest `'` that make it new, also when an id
    /// with `'`s was given as such; the search goes on from the count found last.
    #[test]
    fn an_id_given_again_gets_the_fewest_primes_that_make_it_new() {
        let mut stored = StoredMessages::new();
        for id in ["a", "a", "a''", "a", "a", "b", "a'''''", "a", "a"] {
            stored.start(MessageRole::User, Some(id), || id.to_string());
        }
        let ids: Vec<String> = stored.into_messages().into_iter().map(|m| m.id).collect();
        assert_eq!(
            ids,
            ["a", "a'", "a''", "a'''", "a''''", "b", "a'''''", "a''''''", "a'''''''"]
        );
    }
}
