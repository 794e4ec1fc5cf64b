//! A tool's result as Qwen Code shows it: the text its `stream-json` output gives in a
//! `tool_result` block (`toolResultContent` in its CLI's `StreamJsonOutputAdapter.ts`),
//! computed from what a chat recording keeps of the call — the `functionResponse` parts it
//! sent the model and the record's `toolCallResult` — so that a recording read and the
//! stream of the same run agree.
//!
//! The stream cannot carry what the model was sent (a shell's `{ output: "Command: …\n
//! Output: …" }`), only what Qwen Code shows (the command's output); so the recording is
//! read as the stream shows it, by Qwen Code's own rule, in order:
//!
//! 1. a notice of the vision bridge (`toolCallResult.visionBridgeNotice`, or a display of
//!    type `vision_bridge_notice`) comes first, on a line of its own;
//! 2. an `error` in a `functionResponse`'s `response`: the first that is truthy, as
//!    JavaScript's `String` gives it, when that text is not empty (`[]` is truthy and
//!    gives `""`: then there is no error, and the rule goes on);
//! 3. the message of the record's `toolCallResult.error`: only when the file kept it (a
//!    string `message`). Qwen Code records an `Error` object, which JSON writes as `{}`;
//!    every error response it makes also holds the message in the parts (2.), so a lost
//!    message is read through the rest of the rule;
//! 4. an `mcp_app` display's `fallbackText`, when it is not blank;
//! 5. the display's text (a string display, or a `shell_result` display's `text`), when
//!    it is not blank;
//! 6. the parts: each `functionResponse`'s `response.output ?? response.error ?? ""`,
//!    other parts as JSON, joined;
//! 7. nothing (no parts): no result.
//!
//! `isError` is as the stream says it: the record's `toolCallResult.error` when it is
//! truthy, or an error in the parts (2.).
//!
//! The stream's cut of a result to 64 KiB of JSON ("[... truncated for Headless transport
//! ...]") is a limit of that transport, not of what Qwen Code shows or keeps: it is not
//! made here, so nothing of the recording is dropped.

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;

/// What Qwen Code knows of one call's response: its parts and its `toolCallResult`.
pub struct Response<'a> {
    pub parts: &'a [&'a Json],
    pub call_result: Option<&'a Json>,
}

impl Response<'_> {
    fn field(&self, key: &str) -> Option<&Json> {
        self.call_result.and_then(|r| r.get(key))
    }

    fn display(&self) -> Option<&Json> {
        self.field("resultDisplay")
    }

    /// `toolCallResult.error` when it is truthy: its message when the file kept one.
    fn error(&self) -> Option<Option<&Wtf8>> {
        self.field("error")
            .filter(|e| truthy(e))
            .map(|e| str_of(e, "message"))
    }

    /// The result as Qwen Code's stream gives it, and whether it is an error.
    pub fn shown(&self) -> (Json, bool) {
        let parts_error = parts_error(self.parts);
        let is_error = self.error().is_some() || parts_error.is_some();
        (self.content(parts_error.as_ref(), true), is_error)
    }

    fn content(&self, parts_error: Option<&Wtf8>, notice: bool) -> Json {
        if let Some(notice) = self
            .field("visionBridgeNotice")
            .filter(|n| truthy(n))
            .filter(|_| notice)
        {
            let content = self.content(parts_error, false);
            if !truthy(&content) {
                return notice.clone();
            }
            return Json::String(lines(&[&js_string(notice), &js_string(&content)]));
        }
        let message = self.error().flatten();
        if let Some(notice) = self.display().and_then(vision_notice) {
            let rest = match (message, parts_error) {
                (Some(message), _) | (None, Some(message)) => Some(message.clone()),
                _ if !self.parts.is_empty() => Some(parts_text(self.parts)),
                _ => None,
            };
            return Json::String(match rest {
                Some(rest) => lines(&[&notice, &rest]),
                None => notice,
            });
        }
        if let Some(error) = parts_error.or(message) {
            return Json::String(error.clone());
        }
        let display = self.display();
        if let Some(text) = display.and_then(mcp_app_fallback) {
            return Json::String(text.clone());
        }
        if let Some(text) = display.and_then(shell_result_text).filter(|t| !js_blank(t)) {
            return Json::String(text.clone());
        }
        if !self.parts.is_empty() {
            return Json::String(parts_text(self.parts));
        }
        Json::Undefined
    }
}

/// Texts joined by newlines.
fn lines(texts: &[&Wtf8]) -> Wtf8 {
    let mut out = Wtf8::new();
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            out.push_wtf8(b"\n");
        }
        out.push_wtf8(text.as_bytes());
    }
    out
}

/// The first truthy `error` of a `functionResponse`'s object `response`, as text
/// (`checkResponsePartsForError`); none when that text is empty (an error of `[]`,
/// `[null]`, `[""]`), which Qwen Code takes as no error, as it takes no error.
fn parts_error(parts: &[&Json]) -> Option<Wtf8> {
    parts
        .iter()
        .find_map(|part| {
            let response = part.get("functionResponse")?.get("response")?;
            if !matches!(response, Json::Object(_)) {
                return None;
            }
            response.get("error").filter(|e| truthy(e)).map(js_string)
        })
        .filter(|text| !text.is_empty())
}

/// The parts as one text (`functionResponsePartsToString`): a `functionResponse`'s
/// `response.output ?? response.error ?? ""`, another part as `JSON.stringify` writes it.
fn parts_text(parts: &[&Json]) -> Wtf8 {
    let mut out = Wtf8::new();
    for part in parts {
        match part.get("functionResponse") {
            Some(call) if matches!(part, Json::Object(_)) => {
                let response = call.get("response").filter(|r| matches!(r, Json::Object(_)));
                let present = |key| response.and_then(|r| r.get(key)).filter(|v| !nullish(v));
                if let Some(content) = present("output").or_else(|| present("error")) {
                    out.push_wtf8(js_string(content).as_bytes());
                }
            }
            _ => out.push_wtf8(&js_json(part)),
        }
    }
    out
}

/// `formatVisionBridgeNoticeDisplay` of a `vision_bridge_notice` display.
fn vision_notice(display: &Json) -> Option<Wtf8> {
    if str_of(display, "type").is_none_or(|t| *t != "vision_bridge_notice") {
        return None;
    }
    Some(lines(&[str_of(display, "summary")?, str_of(display, "notice")?]))
}

/// An `mcp_app` display's `fallbackText`, when it is not blank.
fn mcp_app_fallback(display: &Json) -> Option<&Wtf8> {
    if str_of(display, "type").is_none_or(|t| *t != "mcp_app") {
        return None;
    }
    str_of(display, "fallbackText").filter(|t| !js_blank(t))
}

/// `shellResultText`: a string display, or the `text` of a display that is a
/// `shell_result` by `isShellResultDisplay`'s checks.
fn shell_result_text(display: &Json) -> Option<&Wtf8> {
    match display {
        Json::String(text) => Some(text),
        Json::Object(_) if is_shell_result(display) => str_of(display, "text"),
        _ => None,
    }
}

/// `isShellResultDisplay` (Qwen Code's `core/src/utils/shell-result.ts`).
fn is_shell_result(v: &Json) -> bool {
    let string = |key| matches!(v.get(key), Some(Json::String(_)));
    let safe_integer_or_null = |key| match v.get(key) {
        Some(Json::Null) => true,
        Some(n @ Json::Number(_)) => n
            .as_f64()
            .is_some_and(|n| n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0),
        _ => false,
    };
    let strings = |key| match v.get(key) {
        Some(Json::Array(items))
            if items.len() <= 32 && items.iter().all(|s| matches!(s, Json::String(_))) =>
        {
            Some(items)
        }
        _ => None,
    };
    let outcome = str_of(v, "outcome").is_some_and(|o| {
        ["completed", "failed", "cancelled", "timed_out"]
            .iter()
            .any(|k| o == k)
    });
    str_of(v, "type").is_some_and(|t| *t == "shell_result")
        && v.get("version").and_then(Json::as_f64) == Some(1.0)
        && string("text")
        && string("output")
        && string("directory")
        && ["exitCode", "signal", "pid"]
            .into_iter()
            .all(safe_integer_or_null)
        && matches!(v.get("error"), Some(Json::Null | Json::String(_)))
        && outcome
        && matches!(v.get("truncated"), Some(Json::Bool(_)))
        && strings("notices").is_some()
        && strings("outputFiles").is_some_and(|files| {
            let length = |s: &Json| s.as_str().map_or(0, utf16_len);
            str_of(v, "directory").map_or(0, utf16_len) + files.iter().map(length).sum::<usize>() <= 8192
        })
}

fn utf16_len(text: &Wtf8) -> usize {
    text.code_points()
        .map(|cp| if cp >= 0x10000 { 2 } else { 1 })
        .sum()
}

fn nullish(value: &Json) -> bool {
    matches!(value, Json::Undefined | Json::Null)
}

/// JavaScript's truthiness of a value.
fn truthy(value: &Json) -> bool {
    match value {
        Json::Undefined | Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(_) => value.as_f64().is_some_and(|n| n != 0.0),
        Json::String(text) => !text.is_empty(),
        Json::Array(_) | Json::Object(_) => true,
    }
}

/// Whether `String.prototype.trim` leaves nothing of a text.
fn js_blank(text: &Wtf8) -> bool {
    text.code_points()
        .all(|cp| cp == 0xFEFF || (cp != 0x85 && char::from_u32(cp).is_some_and(char::is_whitespace)))
}

/// JavaScript's `String(value)` (an array's elements joined by commas, `null` and
/// `undefined` in one as nothing).
fn js_string(value: &Json) -> Wtf8 {
    match value {
        Json::String(text) => text.clone(),
        Json::Undefined => Wtf8::from("undefined"),
        Json::Null => Wtf8::from("null"),
        Json::Bool(b) => Wtf8::from(if *b { "true" } else { "false" }),
        Json::Number(text) => Wtf8::from(js_number(text).as_str()),
        Json::Object(_) => Wtf8::from("[object Object]"),
        Json::Array(items) => {
            let mut out = Wtf8::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_wtf8(b",");
                }
                if !nullish(item) {
                    out.push_wtf8(js_string(item).as_bytes());
                }
            }
            out
        }
    }
}

/// `JSON.stringify(value)`: the value's JSON, its numbers as JavaScript prints them.
fn js_json(value: &Json) -> Vec<u8> {
    fn numbers(value: &Json) -> Json {
        match value {
            Json::Number(text) => match text.parse::<f64>() {
                Ok(n) if n.is_finite() => Json::Number(js_number(text).into()),
                _ => Json::Null,
            },
            Json::Array(items) => Json::Array(items.iter().map(numbers).collect()),
            Json::Object(fields) => {
                Json::Object(fields.iter().map(|(k, v)| (k.clone(), numbers(v))).collect())
            }
            other => other.clone(),
        }
    }
    numbers(value).to_json()
}

/// The digits of a positive value as `Number::toString` picks them (the fewest that read
/// back as the value; of those, the nearest to it; of two as near, the even one), and
/// the power of ten of the first.
fn shortest_digits(value: f64) -> (String, i32) {
    fn digits(scientific: &str) -> (String, i32) {
        let (mantissa, power) = scientific.split_once('e').unwrap_or((scientific, "0"));
        let digits = mantissa.chars().filter(char::is_ascii_digit).collect();
        (digits, power.parse().unwrap_or(0))
    }
    // Rust's shortest digits are as few, but of two as near (781268889278625.25 between
    // …625.2 and …625.3) not always the even one.
    let shortest = digits(&format!("{value:e}"));
    // The value rounded to that many digits exactly, a tie to the even digit; unless,
    // just above a power of two (where the values below are nearer together), the
    // nearest does not read back as the value.
    let nearest = digits(&format!("{:.*e}", shortest.0.len().saturating_sub(1), value));
    let (first, rest) = nearest.0.split_at(1.min(nearest.0.len()));
    match format!("{first}.{rest}e{}", nearest.1).parse::<f64>() {
        Ok(back) if back == value => nearest,
        _ => shortest,
    }
}

/// A JSON number's text as JavaScript's `Number.prototype.toString` prints its value.
fn js_number(text: &str) -> String {
    let Ok(value) = text.parse::<f64>() else {
        return "NaN".to_string();
    };
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if value == 0.0 {
        return "0".to_string();
    }
    let (digits, power) = shortest_digits(value.abs());
    let k = digits.len() as i32;
    let n = power + 1;
    let sign = if value < 0.0 { "-" } else { "" };
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e = if e < 0 {
            format!("-{}", -e)
        } else {
            format!("+{e}")
        };
        match digits.split_at(1) {
            (first, "") => format!("{first}e{e}"),
            (first, rest) => format!("{first}.{rest}e{e}"),
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::js_number;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (text, js) in [
            ("0", "0"),
            ("-0", "0"),
            ("1.0", "1"),
            ("1e2", "100"),
            ("-12.50", "-12.5"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1e-7"),
            ("1e21", "1e+21"),
            ("123456789012345678901", "123456789012345680000"),
            ("1.5e-10", "1.5e-10"),
            ("1e400", "Infinity"),
            // Halfway between the two nearest of the fewest digits: the even one.
            ("980082121327015.25", "980082121327015.2"),
            ("781268889278625.25", "781268889278625.2"),
            ("1125899906842624.25", "1125899906842624.2"),
            ("2.98023223876953125e-8", "2.9802322387695312e-8"),
            ("-267823466765296.125", "-267823466765296.12"),
            // Powers of two (2^-957, 2^-1017), where the nearest of 16 digits reads back
            // as another value: the nearest that reads back as this one.
            ("8.209073602596753e-289", "8.209073602596753e-289"),
            ("7.120236347223045e-307", "7.120236347223045e-307"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ] {
            assert_eq!(js_number(text), js, "{text}");
        }
    }
}
