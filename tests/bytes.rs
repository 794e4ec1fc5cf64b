//! The bytes path: framing, scanning, exactness and errors.

use agent_chunks::bytes::Framing;
use agent_chunks::live::{reduce_to_json, EventStream, FrameProblem};

fn ndjson(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn folds_ndjson_into_the_chunks_json() {
    let input = ndjson(&[
        r#"{"type":"text-delta","delta":"Hel"}"#,
        r#"{"type":"text-delta","delta":"lo"}"#,
        r#"{"type":"reasoning-delta","delta":"hm"}"#,
        r#"{"type":"reasoning-end","metadata":{"anthropic":{"signature":"s"}}}"#,
        r#"{"type":"tool-call","toolCall":{"id":"1","name":"bash","arguments":{"cmd":"ls"}}}"#,
        r#"{"type":"shell-output","stream":"stdout","data":"a\n"}"#,
        r#"{"type":"tool-result","toolResult":{"toolCallId":"1","result":"ok","isError":false}}"#,
        r#"{"type":"error","error":"boom","statusCode":500}"#,
        r#"{"type":"model-changed","modelId":"m","keyId":"k"}"#,
        r#"{"type":"done","extra":[1,2]}"#,
    ]);
    assert_eq!(
        reduce_to_json(input.as_bytes(), Framing::Auto).unwrap(),
        concat!(
            r#"[{"type":"text","text":"Hello"},"#,
            r#"{"type":"thinking","text":"hm","metadata":{"anthropic":{"signature":"s"}}},"#,
            r#"{"type":"tool-batch","calls":[{"id":"1","name":"bash","arguments":{"cmd":"ls"},"#,
            r#""shellOutput":{"stdout":"a\n","stderr":""},"result":"ok","isError":false}]},"#,
            r#"{"type":"error","message":"boom","statusCode":500},"#,
            r#"{"type":"system","kind":"model-changed","text":"Switched to m (k)"}]"#
        )
    );
}

#[test]
fn escapes_and_payload_text_are_kept_exactly() {
    let input = ndjson(&[
        r#"{"type":"text-delta","delta":"smile \ud83d"}"#,
        r#"{"type":"text-delta","delta":"\ude00 \"q\" \u0000"}"#,
        r#"{"type":"tool-call","toolCall":{"id":"\u0061","name":"n","arguments":{"__proto__":{"x":1},"n":1.0e2,"big":123456789012345678901234567890}}}"#,
        r#"{"type":"tool-result","toolResult":{"toolCallId":"a","result":-0,"isError":null}}"#,
    ]);
    let json = reduce_to_json(input.as_bytes(), Framing::Ndjson).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"[{"type":"text","text":"smile \ud83d\ude00 \"q\" \u0000"},"#,
            r#"{"type":"tool-batch","calls":[{"id":"\u0061","name":"n","#,
            r#""arguments":{"__proto__":{"x":1},"n":1.0e2,"big":123456789012345678901234567890},"#,
            r#""result":-0,"isError":null}]}]"#
        ),
        "the escaped id \\u0061 matched the plain \"a\""
    );
}

#[test]
fn absent_payloads_are_left_out_as_json_stringify_leaves_undefined_out() {
    let input = ndjson(&[
        r#"{"type":"tool-call","toolCall":{"id":"1","name":"n"}}"#,
        r#"{"type":"tool-result","toolResult":{"toolCallId":"1"}}"#,
        r#"{"type":"reasoning-delta","delta":"r"}"#,
        r#"{"type":"reasoning-end"}"#,
    ]);
    assert_eq!(
        reduce_to_json(input.as_bytes(), Framing::Ndjson).unwrap(),
        r#"[{"type":"tool-batch","calls":[{"id":"1","name":"n"}]},{"type":"thinking","text":"r"}]"#
    );
}

#[test]
fn bytes_split_anywhere_give_the_same_result() {
    let input = ndjson(&[
        r#"{"type":"text-delta","delta":"héllo wörld — ünïcode 😀"}"#,
        r#"{"type":"text-delta","delta":"\ud83d"}"#,
        r#"{"type":"reasoning-delta","delta":"ß"}"#,
    ]);
    let whole = reduce_to_json(input.as_bytes(), Framing::Auto).unwrap();
    let bytes = input.as_bytes();
    for split in 0..=bytes.len() {
        for second in split..=bytes.len() {
            let mut stream = EventStream::new(Framing::Auto);
            stream.push(&bytes[..split]).unwrap();
            stream.push(&bytes[split..second]).unwrap();
            stream.push(&bytes[second..]).unwrap();
            stream.end().unwrap();
            assert_eq!(stream.to_json(), whole, "split at {split} and {second}");
            assert_eq!(stream.event_count(), 3);
        }
    }
}

#[test]
fn sse_frames_with_fields_comments_and_multiline_data() {
    let input = concat!(
        ": keep-alive\n",
        "event: message\n",
        "id: 1\n",
        "data: {\"type\":\"text-delta\",\n",
        "data: \"delta\":\"a\"}\n",
        "\n",
        "retry: 1000\n",
        "data:{\"type\":\"text-delta\",\"delta\":\"b\"}\r\n",
        "\r\n",
        "data: {\"type\":\"notice\",\"message\":\"end\"}\n",
    );
    let mut stream = EventStream::new(Framing::Auto);
    stream.push(input.as_bytes()).unwrap();
    assert_eq!(stream.event_count(), 2, "the last frame has no blank line yet");
    stream.end().unwrap();
    assert_eq!(
        stream.to_json(),
        r#"[{"type":"text","text":"ab"},{"type":"system","kind":"notice","text":"end"}]"#
    );
}

#[test]
fn a_bad_frame_is_reported_with_its_place_and_changes_nothing() {
    let mut stream = EventStream::new(Framing::Ndjson);
    let good = "{\"type\":\"text-delta\",\"delta\":\"a\"}\n";
    stream.push(good.as_bytes()).unwrap();
    let before = stream.to_json();

    let bad = "{\"type\":\"text-delta\",\"delta\":5}\n{\"type\":\"text-delta\",\"delta\":\"b\"}\n";
    let error = stream.push(bad.as_bytes()).unwrap_err();
    assert_eq!((error.line, error.offset), (2, good.len() as u64));
    assert_eq!(
        error.to_string(),
        format!(
            "line 2, byte {}: text-delta event: \"delta\" must be a string, got number",
            good.len()
        )
    );
    assert_eq!(stream.to_json(), before, "nothing from the bad frame");
    stream.push(b"").unwrap();
    assert_eq!(
        stream.to_json(),
        r#"[{"type":"text","text":"ab"}]"#,
        "the frame after it still folds"
    );
}

#[test]
fn invalid_utf8_not_objects_and_bad_json_are_errors() {
    let mut stream = EventStream::new(Framing::Ndjson);
    let error = stream
        .push(b"{\"type\":\"text-delta\",\"delta\":\"\xff\"}\n")
        .unwrap_err();
    assert_eq!(error.problem, FrameProblem::InvalidUtf8 { at: 30 });
    assert_eq!(error.offset, 30);
    let error = stream.push(b"[1,2]\n").unwrap_err();
    assert_eq!(error.problem, FrameProblem::NotAnObject);
    assert_eq!(error.line, 2);
    let error = stream
        .push(b"{\"type\":\"text-delta\" \"delta\":1}\n")
        .unwrap_err();
    assert!(matches!(error.problem, FrameProblem::Syntax(_)), "{error:?}");
    stream
        .push(b"{\"type\":\"text-delta\",\"delta\":\"ok\"}\n")
        .unwrap();
    assert_eq!(stream.to_json(), r#"[{"type":"text","text":"ok"}]"#);
}

#[test]
fn a_truncated_last_frame_is_reported_at_end() {
    let mut stream = EventStream::new(Framing::Ndjson);
    stream
        .push(b"{\"type\":\"text-delta\",\"delta\":\"a\"}\n{\"type\":\"text-delta\",\"del")
        .unwrap();
    let error = stream.end().unwrap_err();
    assert!(matches!(error.problem, FrameProblem::Truncated(_)), "{error:?}");
    assert_eq!(error.line, 2);
    assert!(error.to_string().contains("ends inside this frame"));
    assert_eq!(stream.to_json(), r#"[{"type":"text","text":"a"}]"#);
    let mut complete = EventStream::new(Framing::Ndjson);
    complete
        .push(b"{\"type\":\"text-delta\",\"delta\":\"no newline\"}")
        .unwrap();
    complete.end().unwrap();
    assert_eq!(complete.event_count(), 1);
}

#[test]
fn deep_nesting_is_validated_without_recursion() {
    let depth = 200_000;
    let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let line = format!(
        "{{\"type\":\"tool-call\",\"toolCall\":{{\"id\":\"1\",\"name\":\"n\",\"arguments\":{args}}}}}\n"
    );
    let json = reduce_to_json(line.as_bytes(), Framing::Ndjson).unwrap();
    assert!(json.contains(&args));
    let unbalanced = format!("{{\"type\":\"done\",\"x\":{}}}\n", "[".repeat(depth));
    assert!(reduce_to_json(unbalanced.as_bytes(), Framing::Ndjson).is_err());
}

/// The scanner accepts exactly the JSON texts serde_json accepts (lone surrogate escapes
/// aside, which JavaScript accepts and serde_json does not).
#[test]
fn the_scanner_agrees_with_serde_json_on_random_texts() {
    let pieces = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"a\"",
        "\"\\n\"",
        "\"\\x\"",
        "\"\\u12\"",
        "1",
        "-0",
        "01",
        "1.",
        ".5",
        "1e5",
        "1E+2",
        "-",
        "true",
        "tru",
        "null",
        "false",
        " ",
        "\"type\"",
        "\"\u{1}\"",
        "0.5e-3",
        "\"é\"",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut agreed = 0;
    for _ in 0..200_000 {
        let len = 1 + (next() % 9) as usize;
        let mut text = String::from("{\"type\":\"done\",\"v\":");
        for _ in 0..len {
            text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
        }
        text.push('}');
        let ours = reduce_to_json(format!("{text}\n").as_bytes(), Framing::Ndjson).is_ok();
        let serde = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(_) => true,
            // JavaScript reads an out-of-range number as Infinity; serde_json stops there,
            // so it says nothing about the rest of the text.
            Err(e) if e.to_string().contains("number out of range") => continue,
            Err(_) => false,
        };
        assert_eq!(ours, serde, "{text}");
        agreed += usize::from(serde);
    }
    assert!(agreed > 1000, "the corpus has valid texts too ({agreed})");
}
