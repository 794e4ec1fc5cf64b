//! The JSON reader and writer of the formats: exact strings (unpaired surrogates
//! included), numbers as written, key order, and errors with their position.

use agent_chunks::bytes::value::{parse, parse_keeping, parse_keeping_str, parse_str, Json, ParseErrorKind};
use agent_chunks::bytes::wtf8::Wtf8;
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

/// `JSON.stringify` of a string, from its UTF-16 units; `ascii`: every unit beyond ASCII
/// escaped as well.
fn stringify(units: &[u16], ascii: bool) -> String {
    let mut out = String::from("\"");
    let mut i = 0;
    while i < units.len() {
        let unit = units[i];
        let pair = (0xD800..0xDC00).contains(&unit)
            && units.get(i + 1).is_some_and(|u| (0xDC00..0xE000).contains(u));
        match unit {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            u if u < 0x20 || (ascii && u >= 0x80) || ((0xD800..0xE000).contains(&u) && !pair) => {
                out.push_str(&format!("\\u{u:04x}"));
            }
            _ if pair => {
                if ascii {
                    out.push_str(&format!("\\u{:04x}\\u{:04x}", unit, units[i + 1]));
                } else {
                    out.push_str(&String::from_utf16(&units[i..i + 2]).unwrap());
                }
                i += 1;
            }
            u => out.push(char::from_u32(u as u32).unwrap()),
        }
        i += 1;
    }
    out.push('"');
    out
}

#[test]
fn strings_are_written_as_json_stringify_writes_them_wherever_the_escape_falls() {
    use agent_chunks::bytes::value::write_str_with;
    // Every kind of unit the writer treats apart (plain ASCII, each escape, other controls,
    // two-, three- and four-byte characters, a three-byte one led by 0xED, lone surrogates),
    // at every place in and across the eight-byte words it reads at once.
    let kinds: [&[u16]; 14] = [
        &[0x61],
        &[0x22],
        &[0x5C],
        &[0x0A],
        &[0x1F],
        &[0x00],
        &[0x7F],
        &[0xE9],
        &[0x20AC],
        &[0xD55C],
        &[0xD83D, 0xDE00],
        &[0xD83D],
        &[0xDE00],
        &[0xFFFF],
    ];
    for len in 0..20 {
        for at in 0..len.max(1) {
            for kind in kinds {
                for second in [None, Some(kinds[1]), Some(kinds[8]), Some(kinds[11])] {
                    let mut units: Vec<u16> = Vec::new();
                    for i in 0..len {
                        if i == at {
                            units.extend_from_slice(kind);
                        } else if i == at + 3 && second.is_some() {
                            units.extend_from_slice(second.unwrap());
                        } else {
                            units.push(0x41 + (i % 26) as u16);
                        }
                    }
                    let text = Wtf8::from_utf16(&units);
                    for ascii in [false, true] {
                        let mut out = Vec::new();
                        match ascii {
                            true => write_str_with::<true>(&mut out, text.as_bytes()),
                            false => write_str_with::<false>(&mut out, text.as_bytes()),
                        }
                        assert_eq!(
                            String::from_utf8(out).unwrap(),
                            stringify(&units, ascii),
                            "{units:x?}, ascii {ascii}"
                        );
                    }
                }
            }
        }
    }
}
