//! One OpenCode session as its streams build it: the messages (info and parts) of the
//! session the stream is about, and the messages they show ([`super::parts`]) kept in a
//! [`Folded`] as they change. Every stream of OpenCode says what changed by id (a message,
//! a part, a part's field), never by place, so each change re-reads the one message it
//! touched: what a live view shows is at every moment what a reload of the same
//! messages shows.

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::Folded;

use super::parts::{message_of, note_part, Entry};

/// Why a stream's message is left out: it belongs to another session.
pub const OTHER_SESSION: &str = "another session's event (the stream carries every session of the server)";
/// A sub-agent's messages are a child session of their own.
pub const CHILD_SESSION: &str = "a sub-agent's event (its child session is a conversation of its own)";

/// The session's messages, and which of them show.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// The session the conversation is: the first one a message event names.
    pub id: Option<Wtf8>,
    /// Sessions known to be sub-agents' (`parentID`).
    pub children: Vec<Wtf8>,
    pub entries: Vec<Entry>,
    /// Whether each entry shows (has chunks): its place among the folded messages.
    shown: Vec<bool>,
    /// A message shows only once its info is known (the server's events, which send a
    /// message's info before its parts: a part seen first, its frame lost or late, would
    /// show a user's message as an assistant's until then). `opencode run` sends no info.
    pub needs_info: bool,
}

impl Session {
    /// A session not begun; `needs_info`: see [`Session::needs_info`].
    pub fn new(needs_info: bool) -> Self {
        Session {
            needs_info,
            ..Session::default()
        }
    }

    /// Whether events of `session` are the conversation's; a first session named becomes it.
    /// Those of other sessions are left out (counted).
    pub fn admit(&mut self, session: Option<&Wtf8>, skips: &mut Skips) -> bool {
        let Some(session) = session else { return true };
        if self.children.contains(session) {
            skips.leave_out(|| format!("session {session}"), CHILD_SESSION);
            return false;
        }
        match &self.id {
            None => {
                self.id = Some(session.clone());
                true
            }
            Some(id) if id == session => true,
            Some(_) => {
                skips.leave_out(|| format!("session {session}"), OTHER_SESSION);
                false
            }
        }
    }

    /// A session's info (`session.created` / `.updated`): a child session is noted.
    pub fn note_session(&mut self, info: &Json) {
        let (Some(id), Some(Json::String(_))) = (str_of(info, "id"), info.get("parentID")) else {
            return;
        };
        if !self.children.contains(id) && self.id.as_ref() != Some(id) {
            self.children.push(id.clone());
        }
    }

    fn entry_index(&self, id: &[u8]) -> Option<usize> {
        self.entries.iter().rposition(|e| e.id.as_bytes() == id)
    }

    /// The entry with this id, added in id order when new (OpenCode's ids grow with time,
    /// and a reload orders messages by them).
    fn entry(&mut self, id: &Wtf8, out: &mut Folded) -> usize {
        if let Some(at) = self.entry_index(id.as_bytes()) {
            return at;
        }
        let id = id.to_string_lossy().into_owned();
        let at = self
            .entries
            .iter()
            .rposition(|e| e.id.as_bytes() < id.as_bytes())
            .map_or(0, |i| i + 1);
        self.entries.insert(at, Entry::new(id));
        self.shown.insert(at, false);
        if at > 0 {
            // The message before it is followed now: a call it left open was interrupted.
            self.show(at - 1, out);
        }
        at
    }

    /// A message's info (`message.updated`).
    pub fn update_info(&mut self, info: Json, out: &mut Folded) -> FormatResult<()> {
        let id = str_of(&info, "id")
            .cloned()
            .ok_or_else(|| FormatError::new("info.id", "must be a string"))?;
        let at = self.entry(&id, out);
        self.entries[at].info = Some(info);
        self.show(at, out);
        Ok(())
    }

    /// A whole part (`message.part.updated`, a line of `run --format json`), put in place
    /// of the part with its id.
    pub fn update_part(&mut self, part: Json, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let message = str_of(&part, "messageID")
            .cloned()
            .ok_or_else(|| FormatError::new("part.messageID", "must be a string"))?;
        if str_of(&part, "id").is_none() {
            return Err(FormatError::new("part.id", "must be a string"));
        }
        let at = self.entry(&message, out);
        let note = part.clone();
        if self.entries[at].upsert_part(part) {
            note_part(&note, skips);
        }
        self.show(at, out);
        Ok(())
    }

    /// A piece of a part's field (`message.part.delta`): appended to it. A delta for a
    /// part not seen is skipped (counted): OpenCode sends the part before its deltas.
    /// `place`: the message, the part and the field.
    pub fn append(
        &mut self,
        place: [&Wtf8; 3],
        delta: &Wtf8,
        out: &mut Folded,
        skips: &mut Skips,
        line: usize,
    ) -> FormatResult<()> {
        let [message, part, field] = place;
        let Some(at) = self.entry_index(message.as_bytes()) else {
            return skips.skip(line, "a delta of a message not seen");
        };
        let Some(p) = self.entries[at].part_index(part) else {
            return skips.skip(line, "a delta of a part not seen");
        };
        let Json::Object(fields) = &mut self.entries[at].parts[p] else {
            return skips.skip(line, "a delta of a part that is not an object");
        };
        match fields.iter_mut().find(|(k, _)| k == field) {
            Some((_, Json::String(text))) => text.push_wtf8(delta.as_bytes()),
            Some(_) => {
                return skips.skip(
                    line,
                    format_args!("a delta of part field \"{field}\" that is not a string"),
                )
            }
            None => fields.push((field.clone(), Json::String(delta.clone()))),
        }
        self.show(at, out);
        Ok(())
    }

    /// A message removed (`message.removed`).
    pub fn remove(&mut self, message: &Wtf8, out: &mut Folded) {
        let Some(at) = self.entry_index(message.as_bytes()) else {
            return;
        };
        self.entries.remove(at);
        let was = self.shown.remove(at);
        if was {
            self.rebuild(out);
        } else if at > 0 && at == self.entries.len() {
            self.show(at - 1, out);
        }
    }

    /// A part removed (`message.part.removed`).
    pub fn remove_part(&mut self, message: &Wtf8, part: &Wtf8, out: &mut Folded) {
        let Some(at) = self.entry_index(message.as_bytes()) else {
            return;
        };
        if let Some(p) = self.entries[at].part_index(part) {
            self.entries[at].parts.remove(p);
            self.show(at, out);
        }
    }

    /// An error for the session (`opencode run`'s `error` line): on its last message, as a
    /// reload shows it (on the failed assistant message's info).
    pub fn error(&mut self, error: Json, out: &mut Folded) {
        if self.entries.is_empty() {
            self.entries.push(Entry::new(format!("error-{}", out.len() + 1)));
            self.shown.push(false);
        }
        let at = self.entries.len() - 1;
        let info = self.entries[at]
            .info
            .get_or_insert_with(|| Json::Object(Vec::new()));
        if let Json::Object(fields) = info {
            fields.retain(|(k, _)| k != "error");
            fields.push((Wtf8::from("error"), error));
        }
        self.show(at, out);
    }

    /// The folded place of entry `at`.
    fn place(&self, at: usize) -> usize {
        self.shown[..at].iter().filter(|&&s| s).count()
    }

    /// Entry `at` as it shows, and whether it shows.
    fn message_at(&self, at: usize) -> (crate::reading::model_json::FormatMessage, bool) {
        let entry = &self.entries[at];
        let message = message_of(entry, at + 1 < self.entries.len());
        let shows = entry.kept.is_some()
            || (!message.chunks.is_empty() && (entry.info.is_some() || !self.needs_info));
        (message, shows)
    }

    /// Entry `at` read again, and its message put where it goes.
    fn show(&mut self, at: usize, out: &mut Folded) {
        let (message, shows) = self.message_at(at);
        let place = self.place(at);
        match (self.shown[at], shows) {
            (true, true) => {
                let (id, role, _) = out.message(place);
                if id == message.id && role == message.role {
                    out.replace_chunks(place, message.chunks);
                } else {
                    self.rebuild(out);
                }
            }
            (false, true) => {
                self.shown[at] = true;
                if place == out.len() {
                    out.add(message);
                } else {
                    self.rebuild(out);
                }
            }
            (true, false) => {
                self.shown[at] = false;
                self.rebuild(out);
            }
            (false, false) => {}
        }
    }

    /// Every message read again (a message removed, moved or hidden).
    fn rebuild(&mut self, out: &mut Folded) {
        let (messages, shown): (Vec<_>, Vec<_>) = (0..self.entries.len()).map(|i| self.message_at(i)).unzip();
        self.shown = shown;
        let shown = messages
            .into_iter()
            .zip(&self.shown)
            .filter(|(_, &s)| s)
            .map(|(m, _)| m);
        out.replace_messages(shown.collect());
    }

    /// Messages folded before the stream goes on (a history loaded, without a resume
    /// state): each kept as it shows, its parts unknown; what the stream says of it later
    /// (its info again, parts that come after) is added to it.
    pub fn resume(&mut self, folded: &Folded) {
        *self = Session::new(self.needs_info);
        for i in 0..folded.len() {
            let (id, role, chunks) = folded.message(i);
            let role = crate::reading::model_json::role_name(role);
            self.entries.push(Entry {
                id: id.to_string(),
                info: Some(Json::object([
                    ("id", Json::string(id)),
                    ("role", Json::string(role)),
                ])),
                parts: Vec::new(),
                kept: Some(chunks.to_vec()),
            });
            self.shown.push(true);
        }
    }

    /// What the session remembers, for a resume state.
    pub fn save(&self) -> Json {
        let entries = self
            .entries
            .iter()
            .map(|e| {
                Json::object([
                    ("id", Json::string(e.id.as_str())),
                    ("info", e.info.clone().unwrap_or(Json::Null)),
                    ("parts", Json::Array(e.parts.clone())),
                    (
                        "kept",
                        e.kept.as_ref().map_or(Json::Null, |chunks| {
                            Json::Array(
                                chunks
                                    .iter()
                                    .map(crate::reading::model_json::chunk_json)
                                    .collect(),
                            )
                        }),
                    ),
                ])
            })
            .collect();
        let id = self.id.clone().map_or(Json::Null, Json::String);
        Json::object([
            ("session", id),
            (
                "children",
                Json::Array(self.children.iter().cloned().map(Json::String).collect()),
            ),
            ("messages", Json::Array(entries)),
        ])
    }

    /// Takes back what [`Session::save`] gave; the error names the field.
    pub fn restore(state: &Json, folded: &Folded, needs_info: bool) -> Result<Session, String> {
        let Json::Object(_) = state else {
            return Err(format!(" must be an object, got {}", state.kind().name()));
        };
        let id = match state.get("session") {
            None | Some(Json::Null) => None,
            Some(Json::String(id)) => Some(id.clone()),
            Some(other) => return Err(format!(".session must be a string, got {}", other.kind().name())),
        };
        let mut children = Vec::new();
        match state.get("children") {
            Some(Json::Array(items)) => {
                for (i, child) in items.iter().enumerate() {
                    match child {
                        Json::String(c) => children.push(c.clone()),
                        other => {
                            return Err(format!(
                                ".children[{i}] must be a string, got {}",
                                other.kind().name()
                            ))
                        }
                    }
                }
            }
            other => {
                return Err(format!(
                    ".children must be an array, got {}",
                    crate::reading::check::type_of(other)
                ))
            }
        }
        let Some(Json::Array(items)) = state.get("messages") else {
            return Err(format!(
                ".messages must be an array, got {}",
                crate::reading::check::type_of(state.get("messages"))
            ));
        };
        let mut entries = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let Some(Json::String(eid)) = item.get("id") else {
                return Err(format!(".messages[{i}].id must be a string"));
            };
            let info = match item.get("info") {
                None | Some(Json::Null) => None,
                Some(info @ Json::Object(_)) => Some(info.clone()),
                Some(other) => {
                    return Err(format!(
                        ".messages[{i}].info must be an object, got {}",
                        other.kind().name()
                    ))
                }
            };
            let Some(Json::Array(parts)) = item.get("parts") else {
                return Err(format!(".messages[{i}].parts must be an array"));
            };
            let kept = match item.get("kept") {
                None | Some(Json::Null) => None,
                Some(Json::Array(chunks)) => {
                    let mut kept = Vec::with_capacity(chunks.len());
                    for (j, chunk) in chunks.iter().enumerate() {
                        let path = format!(".messages[{i}].kept[{j}]");
                        match crate::reading::model_json::chunk_from_json(chunk, &path) {
                            Ok(Some(chunk)) => kept.push(chunk),
                            Ok(None) => {}
                            Err(e) => return Err(e.to_string()),
                        }
                    }
                    Some(kept)
                }
                Some(other) => {
                    return Err(format!(
                        ".messages[{i}].kept must be an array, got {}",
                        other.kind().name()
                    ))
                }
            };
            entries.push(Entry {
                id: eid.to_string_lossy().into_owned(),
                info,
                parts: parts.clone(),
                kept,
            });
        }
        let mut session = Session {
            id,
            children,
            entries,
            shown: Vec::new(),
            needs_info,
        };
        let (messages, shown): (Vec<_>, Vec<_>) =
            (0..session.entries.len()).map(|i| session.message_at(i)).unzip();
        session.shown = shown;
        let mut shown = messages
            .iter()
            .zip(&session.shown)
            .filter(|(_, &s)| s)
            .map(|(m, _)| m);
        let same = (0..folded.len()).all(|i| shown.next().is_some_and(|m| folded.message(i).0 == m.id));
        if !same || shown.next().is_some() {
            return Err(
                ".messages do not hold the conversation's messages (another conversation's state)".into(),
            );
        }
        Ok(session)
    }
}
