//! Inputs the fuzz targets (`fuzz/`, `npm run fuzz`) found, kept as regression tests.

use agent_chunks::bytes::value::{parse, ParseErrorKind};

/// Found by `json_value`: bytes that are neither UTF-8 nor an encoded surrogate were kept
/// in a string as they were, and the writer took `ED A0 FF` for an encoded surrogate, so
/// writing and reading again changed the text.
const NOT_WTF8: &[u8] =
    b"{\"t(((((((((((((amp\":\"2027-01-24T10:0:00.000Z\",\"cwd\":\"/home/-0d00:00.007Z\",\
\"cwd\":\"/hmeo/-0dev/proj\xff\xff\xed\xa0\xff\xff\xff\xff\xff\xff\xff\xff\x80\xff\xffparect\"}";

#[test]
fn text_that_is_not_wtf8_is_refused_where_it_starts() {
    let error = parse(NOT_WTF8).unwrap_err();
    assert_eq!(error.kind, ParseErrorKind::InvalidUtf8);
    let at = NOT_WTF8.iter().position(|&b| b == 0xff).unwrap();
    assert_eq!(error.offset, at);
    assert_eq!(
        error.to_string(),
        format!("invalid UTF-8 in a string at column {}", at + 1)
    );
    // The same in a key, after an escape, and a sequence cut short by the closing quote.
    for (text, at) in [
        (&b"{\"k\xc3\":1}"[..], 3),
        (b"\"\\n\xe2\x82\"", 3),
        (b"\"ab\xed\xa0\"", 3),
        (b"\"\xf8\x88\x80\x80\x80\"", 1),
    ] {
        let error = parse(text).unwrap_err();
        assert_eq!(
            (error.kind, error.offset),
            (ParseErrorKind::InvalidUtf8, at),
            "{text:?}"
        );
    }
}

#[test]
fn encoded_unpaired_surrogates_are_wtf8_and_survive_a_round_trip() {
    // JavaScript strings reach the reader as WTF-8: an unpaired surrogate is encoded alone.
    for text in [
        &b"\"a\xed\xa0\xbd\""[..],
        b"\"\xed\xb8\x80b\"",
        b"\"\xed\xb8\x80\xed\xa0\xbd\"",
    ] {
        let value = parse(text).unwrap();
        assert_eq!(parse(&value.to_json()).unwrap(), value, "{text:?}");
    }
    // A lead surrogate followed by a trail one is one character, which WTF-8 encodes in
    // four bytes: the six-byte spelling is not WTF-8.
    let error = parse(b"\"\xed\xa0\xbd\xed\xb8\x80\"").unwrap_err();
    assert_eq!((error.kind, error.offset), (ParseErrorKind::InvalidUtf8, 1));
}
