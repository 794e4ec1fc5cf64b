//! Where each AG-UI message and tool call of a conversation lives among its messages: the
//! index the fold looks events up in, so that an event costs the same however long the
//! conversation has grown (the client searches its whole list for every delta).
//!
//! Every lookup is the client's: by id, the *first* message holding it (`messages.find`);
//! a call, the first message holding a call with that id.

use std::collections::HashMap;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::messages::{self, ReadPiece, ReadResult};
use crate::formats::ag_ui::pieces::{self, Piece};
use crate::model::{ChatMessage, Chunk, MessageRole};
use crate::reading::fold::Folded;
use crate::reading::model_json::{FormatChunk, FormatMessage};

/// What an AG-UI id names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Piece `piece` of message `message`.
    Piece { message: usize, piece: usize },
    /// The result of call `call`: the `tool` message holding it.
    Result { call: Wtf8 },
}

/// A call's place: its message, its batch's chunk, its index in the batch.
pub type CallPlace = (usize, usize, usize);

#[derive(Debug, Default)]
pub struct Places {
    /// The pieces of each message.
    pieces: Vec<Vec<Piece>>,
    ids: HashMap<Wtf8, Place>,
    calls: HashMap<Wtf8, CallPlace>,
}

impl Places {
    /// The places of `messages` (a conversation given, or restated whole).
    pub fn of(messages: &Folded) -> Self {
        let mut places = Places::default();
        for m in 0..messages.len() {
            places.note(messages, m);
        }
        places
    }

    /// Notes message `m`, just added.
    pub fn note(&mut self, messages: &Folded, m: usize) {
        let (id, role, chunks) = messages.message(m);
        let cut = pieces::cut(role, chunks);
        for k in 0..cut.len() {
            self.ids
                .entry(pieces::piece_id(id, k))
                .or_insert(Place::Piece { message: m, piece: k });
        }
        self.pieces.push(cut);
        self.note_calls(m, chunks);
    }

    /// Notes the calls and results of message `m`.
    fn note_calls(&mut self, m: usize, chunks: &[FormatChunk]) {
        let mut seen = std::collections::HashSet::new();
        for (j, chunk) in chunks.iter().enumerate() {
            let Chunk::ToolBatch { calls } = chunk else {
                continue;
            };
            for (i, call) in calls.iter().enumerate() {
                if !seen.insert(&call.id) {
                    continue;
                }
                let place = self.calls.entry(call.id.clone()).or_insert((m, j, i));
                // The chunks of the first holder moved: it is still the first.
                if place.0 == m {
                    *place = (m, j, i);
                }
                if place.0 == m && call.result.is_some() {
                    self.note_result(messages::result_id(call), &call.id);
                }
            }
        }
    }

    /// Message `m` changed in a way that moves its chunks: its pieces and calls again.
    pub fn recut(&mut self, messages: &Folded, m: usize) {
        let (id, role, chunks) = messages.message(m);
        let cut = pieces::cut(role, chunks);
        for k in self.pieces[m].len()..cut.len() {
            self.ids
                .entry(pieces::piece_id(id, k))
                .or_insert(Place::Piece { message: m, piece: k });
        }
        self.pieces[m] = cut;
        self.note_calls(m, chunks);
    }

    /// What `id` names.
    pub fn get(&self, id: &Wtf8) -> Option<&Place> {
        self.ids.get(id)
    }

    /// Piece `k` of message `m`.
    pub fn piece(&self, m: usize, k: usize) -> Piece {
        self.pieces[m][k]
    }

    /// The pieces of message `m`.
    pub fn pieces(&self, m: usize) -> &[Piece] {
        &self.pieces[m]
    }

    /// Where the call `id` is.
    pub fn call(&self, id: &Wtf8) -> Option<CallPlace> {
        self.calls.get(id).copied()
    }

    /// Notes a result's id: it names the result unless a message before it in the
    /// client's list has the id (a result is right after the piece holding its call).
    pub fn note_result(&mut self, id: Wtf8, call: &Wtf8) {
        let Some((m, j, _)) = self.call(call) else {
            return;
        };
        let k = self.pieces[m]
            .iter()
            .position(|p| p.calls() == Some(j))
            .unwrap_or(0);
        let later = match self.ids.get(&id) {
            None => true,
            Some(Place::Piece { message, piece }) => (*message, *piece) > (m, k),
            Some(Place::Result { .. }) => false,
        };
        if later {
            self.ids.insert(id, Place::Result { call: call.clone() });
        }
    }

    /// Notes a call added to the batch at chunk `j` of message `m`, as its `i`-th.
    pub fn add_call(&mut self, id: &Wtf8, place: CallPlace) {
        self.calls.entry(id.clone()).or_insert(place);
    }

    /// A piece read: joined to the last message when its marker says it is that message's
    /// next piece, else a message of its own. Returns the message it is in.
    pub fn add_piece(&mut self, messages: &mut Folded, piece: ReadPiece) -> usize {
        let last = messages.len().checked_sub(1);
        let joined = last.is_some_and(|m| {
            let (id, role, _) = messages.message(m);
            messages::joins(&piece, id, role, &self.pieces[m])
        });
        if let (true, Some(m)) = (joined, last) {
            for chunk in piece.chunks {
                messages.push_chunk_at(m, chunk);
            }
            self.recut(messages, m);
            return m;
        }
        let role = messages::role_of(&piece);
        self.add_message(
            messages,
            ChatMessage {
                id: piece.id.to_string_lossy().into_owned(),
                role,
                chunks: piece.chunks,
            },
        )
    }

    /// A whole message added.
    pub fn add_message(&mut self, messages: &mut Folded, message: FormatMessage) -> usize {
        messages.add(message);
        messages.set_open(true);
        let m = messages.len() - 1;
        self.note(messages, m);
        m
    }

    /// Lands a result on the call at `place`; whether it replaced one.
    pub fn land(&mut self, messages: &mut Folded, (m, j, i): CallPlace, result: &ReadResult) -> bool {
        let after = match messages.message(m).2.get(j) {
            Some(Chunk::ToolBatch { calls }) => messages::last_rank(calls, i),
            _ => return false,
        };
        let Some(call) = messages.call_at_mut(m, j, i) else {
            return false;
        };
        let replaces = call.result.is_some();
        messages::land(call, result, after, i, replaces);
        let call_id = call.id.clone();
        self.note_result(result.id.clone(), &call_id);
        replaces
    }

    /// The role of message `m`.
    pub fn role(messages: &Folded, m: usize) -> MessageRole {
        messages.message(m).1
    }

    /// Sets the thinking chunk of a reasoning piece's seal.
    pub fn seal(&self, messages: &mut Folded, m: usize, k: usize, seal: Json) {
        if let Some(j) = self.pieces[m][k].content() {
            messages.seal_at(m, j, seal);
        }
    }
}
