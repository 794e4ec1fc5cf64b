//! The JSON reader and writer of the formats: exact strings (unpaired surrogates
//! included), numbers as written, key order, and errors with their position.

use agent_chunks::formats::value::{
    parse, parse_keeping, parse_keeping_str, parse_str, Json, ParseErrorKind,
};
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

#[test]
fn kept_members_are_read_the_same_from_bytes_and_from_checked_text() {
    // Keys with escapes are decoded before `keep` sees them; skipped members (escaped or
    // not) are still checked as JSON; a repeated key keeps its last value, in its first
    // place, as JSON.parse does.
    let keep = |depth: usize, key: &[u8]| depth > 0 || key == b"type" || key == b"text";
    let line =
        r#"{"t\u0079pe":"a","skip":{"x":[1,{"y":"\u00e9"}]},"te\u0078t":"\ud83d","type":"b","sk\u0069p":2}"#;
    let expected = r#"{"type":"b","text":"\ud83d"}"#;
    for parsed in [
        parse_keeping(line.as_bytes(), keep),
        parse_keeping_str(line, keep),
    ] {
        assert_eq!(parsed.unwrap().to_json(), expected.as_bytes());
    }
    assert_eq!(
        parse_str(line).unwrap().to_json(),
        parse(line.as_bytes()).unwrap().to_json()
    );
    // A skipped member that is not JSON is still an error, at the same place either way.
    let bad = r#"{"type":"a","skip":[1,]}"#;
    let (from_bytes, from_text) = (parse_keeping(bad.as_bytes(), keep), parse_keeping_str(bad, keep));
    assert_eq!(from_bytes.unwrap_err().offset, from_text.unwrap_err().offset);
    // Bytes that are not UTF-8 are refused where the text was not checked before.
    assert_eq!(
        parse_keeping(b"{\"type\":\"\xff\"}", keep).unwrap_err().kind,
        ParseErrorKind::InvalidUtf8
    );
}
