//! The order `@ag-ui/client` 1.0's verifier (`verify/verify.ts`) holds a stream to: one run
//! at a time, every message, reasoning span, tool call and step started before it goes on
//! and ended once, nothing after a run's end but the next run. The client fails the whole
//! run at the first event out of order, and what it had not applied yet is lost with it;
//! the fold reads on, as the client's reducer would, and counts each such event by what
//! it did wrong (so that `strict` refuses it).

use std::collections::HashSet;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::events::{self, Type};
use crate::reading::resume;

/// Said of every event counted here.
const READ_ON: &str = "read on; @ag-ui/client refuses the run";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Order {
    /// The conversation went on from messages without a resume state: what is open is not
    /// known until the next run starts, so nothing is counted before it.
    pub unknown: bool,
    /// An event was seen.
    seen: bool,
    /// A run started and did not end yet, or ended.
    started: bool,
    finished: bool,
    errored: bool,
    /// The id of the run started last.
    pub run: Option<Wtf8>,
    text: HashSet<Wtf8>,
    tools: HashSet<Wtf8>,
    reasoning: HashSet<Wtf8>,
    spans: HashSet<Wtf8>,
    /// Open steps, by lane and name.
    steps: Vec<(Option<Wtf8>, Wtf8)>,
}

fn id(event: &Json, key: &str) -> Option<Wtf8> {
    events::get(event, key).and_then(Json::as_str).cloned()
}

impl Order {
    /// Notes `event`; what it did wrong, when it is out of order.
    pub fn check(&mut self, ty: Type, event: &Json) -> Option<String> {
        let wrong = |what: &str| Some(format!("{what} ({READ_ON})"));
        if self.unknown {
            if ty != Type::RUN_STARTED {
                return None;
            }
            self.unknown = false;
            self.seen = true;
            self.reset();
            self.started = true;
            self.run = id(event, "runId");
            return None;
        }
        let first = !std::mem::replace(&mut self.seen, true);
        // One thing said of an event, the first the client would say; what it opens or
        // ends is noted all the same, so that what follows is checked as it would be.
        let early = if self.errored && ty != Type::RUN_STARTED {
            wrong("an event after RUN_ERROR")
        } else if self.finished && !matches!(ty, Type::RUN_ERROR | Type::RUN_STARTED) {
            wrong("an event after RUN_FINISHED")
        } else if first && !matches!(ty, Type::RUN_STARTED | Type::RUN_ERROR) {
            self.started = true;
            wrong("a stream that does not begin with RUN_STARTED")
        } else {
            None
        };
        let noted = self.note(ty, event, first);
        early.or(noted)
    }

    /// What `event` opens or ends, and what it did wrong doing it.
    fn note(&mut self, ty: Type, event: &Json, first: bool) -> Option<String> {
        let wrong = |what: &str| Some(format!("{what} ({READ_ON})"));
        let name = ty.name();
        let open = |set: &mut HashSet<Wtf8>, key: &str, what: &str| {
            let id = id(event, key)?;
            (!set.insert(id)).then(|| format!("{name} for {what} already open ({READ_ON})"))
        };
        let goes_on = |set: &mut HashSet<Wtf8>, key: &str, what: &str, ends: bool| {
            let id = id(event, key)?;
            let found = match ends {
                true => set.remove(&id),
                false => set.contains(&id),
            };
            (!found).then(|| format!("{name} for {what} not open ({READ_ON})"))
        };
        match ty {
            Type::RUN_STARTED => {
                let active = self.started && !self.finished && !self.errored;
                if self.finished || self.errored || first {
                    self.reset();
                }
                self.started = true;
                self.run = id(event, "runId");
                if active {
                    return wrong("RUN_STARTED while a run is active");
                }
                if self.run.is_none() || events::get(event, "threadId").and_then(Json::as_str).is_none() {
                    return wrong("RUN_STARTED without threadId or runId");
                }
                None
            }
            Type::RUN_ERROR => {
                self.errored = true;
                match events::get(event, "message") {
                    Some(Json::String(_)) => None,
                    _ => wrong("RUN_ERROR without message"),
                }
            }
            Type::RUN_FINISHED => {
                let open = !self.steps.is_empty()
                    || !self.text.is_empty()
                    || !self.reasoning.is_empty()
                    || !self.spans.is_empty()
                    || !self.tools.is_empty();
                self.finished = true;
                open.then(|| format!("RUN_FINISHED while messages, calls or steps are open ({READ_ON})"))
            }
            Type::TEXT_MESSAGE_START => open(&mut self.text, "messageId", "a message"),
            Type::TEXT_MESSAGE_CONTENT => goes_on(&mut self.text, "messageId", "a message", false),
            Type::TEXT_MESSAGE_END => goes_on(&mut self.text, "messageId", "a message", true),
            Type::TOOL_CALL_START => open(&mut self.tools, "toolCallId", "a call"),
            Type::TOOL_CALL_ARGS => goes_on(&mut self.tools, "toolCallId", "a call", false),
            Type::TOOL_CALL_END => goes_on(&mut self.tools, "toolCallId", "a call", true),
            Type::REASONING_START => open(&mut self.spans, "messageId", "a reasoning span"),
            Type::REASONING_END => goes_on(&mut self.spans, "messageId", "a reasoning span", true),
            Type::REASONING_MESSAGE_START => open(&mut self.reasoning, "messageId", "a reasoning message"),
            Type::REASONING_MESSAGE_CONTENT => {
                goes_on(&mut self.reasoning, "messageId", "a reasoning message", false)
            }
            Type::REASONING_MESSAGE_END => {
                goes_on(&mut self.reasoning, "messageId", "a reasoning message", true)
            }
            Type::TOOL_CALL_RESULT => match events::get(event, "messageId") {
                Some(Json::String(_)) => None,
                _ => wrong("TOOL_CALL_RESULT without messageId"),
            },
            Type::STEP_STARTED | Type::STEP_FINISHED => {
                let step = (events::lane(event), id(event, "stepName")?);
                let at = self.steps.iter().position(|s| *s == step);
                match (ty, at) {
                    (Type::STEP_STARTED, Some(_)) => wrong("STEP_STARTED for a step already started"),
                    (Type::STEP_STARTED, None) => {
                        self.steps.push(step);
                        None
                    }
                    (_, Some(at)) => {
                        self.steps.remove(at);
                        None
                    }
                    (_, None) => wrong("STEP_FINISHED for a step not started"),
                }
            }
            _ => None,
        }
    }

    fn reset(&mut self) {
        *self = Order {
            seen: true,
            ..Order::default()
        };
    }

    /// What it remembers, as plain JSON for a resume state.
    pub fn save(&self) -> Json {
        let set = |items: &HashSet<Wtf8>| resume::string_set(items);
        let steps = self
            .steps
            .iter()
            .map(|(lane, name)| {
                Json::Array(vec![resume::optional(lane.as_ref()), Json::String(name.clone())])
            })
            .collect();
        Json::object([
            ("unknown", Json::Bool(self.unknown)),
            ("seen", Json::Bool(self.seen)),
            ("started", Json::Bool(self.started)),
            ("finished", Json::Bool(self.finished)),
            ("errored", Json::Bool(self.errored)),
            ("run", resume::optional(self.run.as_ref())),
            ("text", set(&self.text)),
            ("tools", set(&self.tools)),
            ("reasoning", set(&self.reasoning)),
            ("spans", set(&self.spans)),
            ("steps", Json::Array(steps)),
        ])
    }

    /// What [`Order::save`] wrote; the error names the field.
    pub fn restore(state: Option<&Json>) -> Result<Self, String> {
        let Some(state) = state.filter(|s| !matches!(s, Json::Null | Json::Undefined)) else {
            return Ok(Order::default());
        };
        let at = |e: String| format!(".order{e}");
        resume::object(state).map_err(at)?;
        let steps = match state.get("steps") {
            None | Some(Json::Null | Json::Undefined) => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Json::Array(pair) => match pair.as_slice() {
                        [lane @ (Json::Null | Json::String(_)), Json::String(name)] => {
                            Some((lane.as_str().cloned(), name.clone()))
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect::<Option<_>>()
                .ok_or(".order.steps must hold [lane, name] pairs")?,
            Some(_) => return Err(".order.steps must be an array".into()),
        };
        Ok(Order {
            unknown: resume::flag(state, "unknown").map_err(at)?,
            seen: resume::flag(state, "seen").map_err(at)?,
            started: resume::flag(state, "started").map_err(at)?,
            finished: resume::flag(state, "finished").map_err(at)?,
            errored: resume::flag(state, "errored").map_err(at)?,
            run: resume::optional_text(state, "run").map_err(at)?,
            text: resume::strings(state, "text").map_err(at)?,
            tools: resume::strings(state, "tools").map_err(at)?,
            reasoning: resume::strings(state, "reasoning").map_err(at)?,
            spans: resume::strings(state, "spans").map_err(at)?,
            steps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[&str]) -> Vec<String> {
        let mut order = Order::default();
        let mut found = Vec::new();
        for text in events {
            let value = crate::bytes::value::parse(text.as_bytes()).unwrap();
            let ty = Type::from_tag(value.get("type").unwrap().as_str().unwrap().as_bytes()).unwrap();
            found.extend(order.check(ty, &value));
            let restored = Order::restore(Some(&order.save())).unwrap();
            assert_eq!(restored, order);
        }
        found
    }

    #[test]
    fn a_run_in_order_counts_nothing() {
        assert!(run(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"STEP_STARTED","stepName":"s"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"s"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r2"}"#,
            r#"{"type":"RUN_ERROR","message":"x"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r3"}"#,
        ])
        .is_empty());
    }

    #[test]
    fn what_the_verifier_refuses_is_named() {
        assert_eq!(
            run(&[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"a"}"#,
                r#"{"type":"STEP_STARTED","stepName":"agent"}"#,
                r#"{"type":"STEP_STARTED","stepName":"agent"}"#,
                r#"{"type":"STEP_FINISHED","stepName":"tools"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x"}"#,
                r#"{"type":"RUN_FINISHED"}"#,
                r#"{"type":"CUSTOM","name":"x","value":1}"#,
            ]),
            [
                format!("a stream that does not begin with RUN_STARTED ({READ_ON})"),
                format!("STEP_STARTED for a step already started ({READ_ON})"),
                format!("STEP_FINISHED for a step not started ({READ_ON})"),
                format!("TEXT_MESSAGE_CONTENT for a message not open ({READ_ON})"),
                format!("RUN_FINISHED while messages, calls or steps are open ({READ_ON})"),
                format!("an event after RUN_FINISHED ({READ_ON})"),
            ]
        );
    }
}
