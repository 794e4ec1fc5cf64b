//! JSON-RPC traffic as a tool's client logs it: both sides' messages in one log (or one
//! side's output alone), with no mark of which side wrote a line.
//!
//! Each side numbers its own requests (an agent's first request to its client may have
//! the id of the client's first request to it), so a response cannot be matched to its
//! request by id alone. [`Ledger`] matches it by which side could have sent it: a request
//! is sent by the side its method belongs to (the format says which, from the protocol),
//! and a response comes from the other side. A response answers an open request with its
//! id whose answering side has been seen in the log (a log of one side's output alone
//! never holds the other side's answers); of two such requests, one per side, it answers
//! the one sent last — a request sent while the other side's was open is nested in it
//! (an agent reading a file for the prompt it is answering), so it is answered first. A
//! client's request may be answered before anything else of the server is seen (an agent
//! whose first word is the error of the prompt): a log that holds the client's requests
//! holds both sides (one side's output alone is the server's, as an agent's stdout). A
//! format that knows what a method's result looks like narrows the choice first.

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;

/// The two sides of a JSON-RPC connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The side that started the connection (an editor, a GUI).
    Client,
    /// The side it started (an agent, an app server).
    Server,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Client => Side::Server,
            Side::Server => Side::Client,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }
}

/// A request not answered yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Its id as JSON text (`1`, `"a"`).
    pub id: String,
    pub method: Wtf8,
    /// The side that sent it.
    pub side: Side,
    /// What the format keeps of it to read the answer with (an approval's item id).
    pub note: Json,
}

/// What one JSON-RPC message is, by its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A method and an id.
    Request(&'a Wtf8),
    /// A method without an id.
    Notification(&'a Wtf8),
    /// An id with a result or an error.
    Response,
}

/// What `message` is: a request, a notification or a response (`None` for an object that
/// is none of them).
pub fn kind(message: &Json) -> Option<Kind<'_>> {
    let id = message
        .get("id")
        .is_some_and(|id| !matches!(id, Json::Undefined | Json::Null));
    match message.get("method") {
        Some(Json::String(method)) if id => Some(Kind::Request(method)),
        Some(Json::String(method)) => Some(Kind::Notification(method)),
        _ if id && (message.get("result").is_some() || message.get("error").is_some()) => {
            Some(Kind::Response)
        }
        _ => None,
    }
}

/// A message's id as JSON text, the key requests and responses are matched by.
pub fn id_text(message: &Json) -> Option<String> {
    message
        .get("id")
        .filter(|id| !matches!(id, Json::Undefined | Json::Null))
        .map(|id| String::from_utf8_lossy(&id.to_json()).into_owned())
}

/// The requests of a log not answered yet, and the sides seen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    open: Vec<Request>,
    client_seen: bool,
    server_seen: bool,
}

/// At most this many requests are kept open: a log whose answers never come (one side's
/// output alone) does not grow the ledger without end; the oldest go first.
const MAX_OPEN: usize = 256;

impl Ledger {
    /// A message was sent by `side` (a request or notification of its methods).
    pub fn seen(&mut self, side: Side) {
        match side {
            Side::Client => self.client_seen = true,
            Side::Server => self.server_seen = true,
        }
    }

    fn was_seen(&self, side: Side) -> bool {
        match side {
            Side::Client => self.client_seen,
            Side::Server => self.server_seen,
        }
    }

    /// `side` sent a request.
    pub fn request(&mut self, id: String, method: Wtf8, side: Side, note: Json) {
        self.seen(side);
        // An id sent again by the same side replaces the request it named.
        self.open.retain(|r| !(r.id == id && r.side == side));
        if self.open.len() >= MAX_OPEN {
            self.open.remove(0);
        }
        self.open.push(Request {
            id,
            method,
            side,
            note,
        });
    }

    /// The request a response with id `id` answers, taken off the ledger: of the open
    /// requests with that id whose answering side was seen, or that the client sent (and
    /// whose method `fits` the response, when any does), the one sent last. `None` when it
    /// answers none of them.
    pub fn answer(&mut self, id: &str, fits: impl Fn(&Request) -> bool) -> Option<Request> {
        let could = |r: &Request| r.id == id && (r.side == Side::Client || self.was_seen(r.side.other()));
        let candidates: Vec<usize> = (0..self.open.len()).filter(|&i| could(&self.open[i])).collect();
        let fitting: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| fits(&self.open[i]))
            .collect();
        let chosen = fitting.last().or(candidates.last()).copied()?;
        Some(self.open.remove(chosen))
    }

    /// The open request `side` sent with id `id`, if any (a `serverRequest/resolved` names one).
    pub fn take(&mut self, id: &str, side: Side) -> Option<Request> {
        let at = self.open.iter().position(|r| r.id == id && r.side == side)?;
        Some(self.open.remove(at))
    }

    /// The ledger as JSON, for resume states.
    pub fn save(&self) -> Json {
        Json::object([
            (
                "open",
                Json::Array(
                    self.open
                        .iter()
                        .map(|r| {
                            Json::object([
                                ("id", Json::string(r.id.as_str())),
                                ("method", Json::String(r.method.clone())),
                                ("side", Json::string(r.side.name())),
                                ("note", r.note.clone()),
                            ])
                        })
                        .collect(),
                ),
            ),
            ("clientSeen", Json::Bool(self.client_seen)),
            ("serverSeen", Json::Bool(self.server_seen)),
        ])
    }

    /// Takes up [`Ledger::save`]'s state; the error names the field (after the ledger's key).
    pub fn restore(state: &Json) -> Result<Ledger, String> {
        use crate::reading::resume::{flag, object, text};
        object(state)?;
        let Some(Json::Array(open)) = state.get("open") else {
            return Err(".open must be an array".into());
        };
        let open = open
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let at = |e: String| format!(".open[{i}]{e}");
                object(r).map_err(at)?;
                let side = match text(r, "side").map_err(at)?.as_bytes() {
                    b"client" => Side::Client,
                    b"server" => Side::Server,
                    _ => return Err(format!(".open[{i}].side must be \"client\" or \"server\"")),
                };
                Ok(Request {
                    id: text(r, "id").map_err(at)?.to_string_lossy().into_owned(),
                    method: text(r, "method").map_err(at)?.clone(),
                    side,
                    note: r.get("note").cloned().unwrap_or(Json::Null),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Ledger {
            open,
            client_seen: flag(state, "clientSeen")?,
            server_seen: flag(state, "serverSeen")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(ledger: &mut Ledger, id: &str, method: &str, side: Side) {
        ledger.request(id.into(), Wtf8::from(method), side, Json::Null);
    }

    #[test]
    fn a_response_answers_the_request_of_the_side_that_could_be_answered() {
        // The client's prompt is id 1; the agent reads a file for it, also id 1.
        let mut ledger = Ledger::default();
        request(&mut ledger, "1", "session/prompt", Side::Client);
        request(&mut ledger, "1", "fs/read_text_file", Side::Server);
        let first = ledger.answer("1", |_| true).unwrap();
        assert_eq!(first.method, *"fs/read_text_file");
        let second = ledger.answer("1", |_| true).unwrap();
        assert_eq!(second.method, *"session/prompt");
        assert_eq!(ledger.answer("1", |_| true), None);
    }

    #[test]
    fn what_a_response_holds_narrows_the_choice_first() {
        let mut ledger = Ledger::default();
        request(&mut ledger, "1", "session/prompt", Side::Client);
        request(&mut ledger, "1", "fs/read_text_file", Side::Server);
        let prompt = ledger.answer("1", |r| r.method == *"session/prompt").unwrap();
        assert_eq!(prompt.side, Side::Client);
        assert_eq!(ledger.answer("1", |_| true).unwrap().side, Side::Server);
    }

    #[test]
    fn one_sides_output_alone_never_answers_its_own_requests() {
        // The server's output: its approval request 0, then its answer to the client's 0.
        let mut ledger = Ledger::default();
        request(
            &mut ledger,
            "0",
            "item/commandExecution/requestApproval",
            Side::Server,
        );
        assert_eq!(ledger.answer("0", |_| true), None, "no client in the log");
        ledger.seen(Side::Client);
        assert!(ledger.answer("0", |_| true).is_some());
    }

    #[test]
    fn a_clients_request_is_answered_by_a_server_not_seen_before() {
        // A prompt, then the agent's first word: the prompt's error.
        let mut ledger = Ledger::default();
        request(&mut ledger, "3", "session/prompt", Side::Client);
        assert_eq!(ledger.answer("3", |_| true).unwrap().method, *"session/prompt");
    }

    #[test]
    fn a_saved_ledger_comes_back_as_it_was() {
        let mut ledger = Ledger::default();
        request(&mut ledger, "\"a\"", "turn/start", Side::Client);
        let again = Ledger::restore(&ledger.save()).unwrap();
        assert_eq!(again, ledger);
        let bad = crate::bytes::value::parse_str(
            r#"{"open":[{"id":"1","method":"m","side":"x"}],"clientSeen":true,"serverSeen":false}"#,
        )
        .unwrap();
        assert_eq!(
            Ledger::restore(&bad).unwrap_err(),
            ".open[0].side must be \"client\" or \"server\""
        );
    }
}
