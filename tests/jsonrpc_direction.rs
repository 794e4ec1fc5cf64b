//! JSON-RPC traffic logs hold both sides' messages with no mark of direction, and each side
//! numbers its own requests: a response is matched to its request by the side that could
//! have sent it, never by id alone; traffic of another protocol is counted, never dropped
//! without a word.

use agent_chunks::formats::find;
use agent_chunks::live::fold_stream;
use agent_chunks::{Chunk, MessageRole};

fn fold(format: &str, lines: &[&str], strict: bool) -> Result<agent_chunks::live::FoldedStream, String> {
    let bytes = lines.join("\n").into_bytes();
    fold_stream(find(format).unwrap(), &bytes, strict).map_err(|e| e.to_string())
}

fn errors(messages: &[agent_chunks::reading::model_json::FormatMessage]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|m| &m.chunks)
        .filter_map(|c| match c {
            Chunk::Error { message, .. } => Some(message.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_acp_clients_error_answer_to_the_agents_request_is_not_the_prompts_failure() {
    // The client's prompt is id 1; the agent's first request to the client is id 1 too.
    let log = [
        r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"read a.txt"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/w/a.txt"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"file not found"}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"There is no a.txt."}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}"#,
    ];
    let folded = fold("acp", &log, true).unwrap();
    assert_eq!(
        errors(&folded.messages),
        Vec::<String>::new(),
        "{:?}",
        folded.messages
    );
    let last = folded.messages.last().unwrap();
    assert_eq!(last.role, MessageRole::Assistant);

    // The prompt's own failure, after the agent's request was answered, is still the turn's.
    let mut failed = log[..4].to_vec();
    failed.push(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"model overloaded"}}"#);
    let folded = fold("acp", &failed, true).unwrap();
    assert_eq!(errors(&folded.messages), ["model overloaded"]);
}

#[test]
fn another_protocols_traffic_read_as_acp_is_counted_by_method() {
    let log = [
        r#"{"method":"thread/started","params":{"thread":{"id":"t"}}}"#,
        r#"{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"m","delta":"hi"}}"#,
        r#"{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"m","delta":"!"}}"#,
    ];
    let folded = fold("acp", &log, false).unwrap();
    assert!(folded.messages.is_empty());
    assert_eq!(folded.skips.count, 3);
    assert_eq!(
        folded
            .skips
            .kinds
            .get("JSON-RPC method \"item/agentMessage/delta\" is not ACP's"),
        Some(&2)
    );
    let refused = fold("acp", &log, true).unwrap_err();
    assert!(refused.contains("thread/started"), "{refused}");
}
