//! The JSON reader and writer of the formats: exact strings (unpaired surrogates
//! included), numbers as written, key order, and errors with their position.

use agent_chunks::formats::value::{parse, Json, ParseErrorKind};
use agent_chunks::formats::wtf8::Wtf8;
use agent_chunks::owned::Text;

fn text_of(json: &str) -> Wtf8 {
    match parse(json.as_bytes()).unwrap() {
        Json::String(text) => text,
        other => panic!("not a string: {other:?}"),
    }
}

#[test]
fn lone_surrogate_escapes_are_kept_and_written_back() {
    let lead = text_of(r#""a\ud83d""#);
    assert_eq!(lead.to_utf16(), vec![0x61, 0xD83D]);
    assert_eq!(lead.to_json_text(), r#""a\ud83d""#);
    let trail = text_of(r#""\ude00b""#);
    assert_eq!(trail.to_utf16(), vec![0xDE00, 0x62]);
}

#[test]
fn halves_of_a_character_join_when_appended() {
    let mut text = text_of(r#""a\ud83d""#);
    text.push_text(&text_of(r#""\ude00b""#));
    assert_eq!(text, "a😀b");
    assert_eq!(
        text_of(r#""\ud83d\ude00""#),
        "😀",
        "an escaped pair is one character"
    );
}

#[test]
fn utf16_round_trip_is_exact() {
    let units = [0xD83D, 0x41, 0xDE00, 0xD83D, 0xDE00, 0xDC00];
    assert_eq!(Wtf8::from_utf16(&units).to_utf16(), units);
}

#[test]
fn numbers_keep_their_text_and_objects_their_key_order() {
    let value = parse(br#"{"b":1.0,"a":12345678901234567890,"b":-0.5e3}"#).unwrap();
    assert_eq!(
        String::from_utf8(value.to_json()).unwrap(),
        r#"{"b":-0.5e3,"a":12345678901234567890}"#
    );
}

#[test]
fn control_characters_and_quotes_are_escaped() {
    let value = Json::string("q\"\\\n\u{1}é");
    assert_eq!(
        String::from_utf8(value.to_json()).unwrap(),
        "\"q\\\"\\\\\\n\\u0001é\""
    );
}

#[test]
fn errors_say_where_and_tell_truncation_apart() {
    let truncated = parse(br#"{"a":[1,"#).unwrap_err();
    assert_eq!(truncated.kind, ParseErrorKind::Truncated);
    let bad = parse(br#"{"a":tru}"#).unwrap_err();
    assert_eq!((bad.kind, bad.offset), (ParseErrorKind::Unexpected(b'}'), 8));
    assert_eq!(parse(b"01").unwrap_err().kind, ParseErrorKind::TrailingCharacters);
    assert_eq!(parse(b"\"\\x\"").unwrap_err().kind, ParseErrorKind::InvalidEscape);
    assert_eq!(parse(b"1.").unwrap_err().kind, ParseErrorKind::Truncated);
    assert_eq!(
        parse(b"\"a\nb\"").unwrap_err().kind,
        ParseErrorKind::Unexpected(b'\n')
    );
    let deep = "[".repeat(10_000);
    assert_eq!(parse(deep.as_bytes()).unwrap_err().kind, ParseErrorKind::TooDeep);
}

trait JsonText {
    fn to_json_text(&self) -> String;
}

impl JsonText for Wtf8 {
    fn to_json_text(&self) -> String {
        String::from_utf8(Json::String(self.clone()).to_json()).unwrap()
    }
}
