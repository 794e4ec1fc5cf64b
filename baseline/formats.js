'use strict';
/**
 * Plain-JS baselines of the history readers, for the benchmarks: what an application
 * would write by hand with `JSON.parse` and the plain-JS reducer (./chunks.js). They
 * follow the same rules as the native readers (see src/formats/pi.rs and sn.rs) but, as
 * the helper does, trust their input: no checks, no error paths.
 */

const { appendEventToChunks } = require('./chunks.js');

function joinedToolResult(content) {
  if (!Array.isArray(content)) return content;
  let text = '';
  for (const block of content) {
    if (!block || block.type !== 'text' || typeof block.text !== 'string') return content;
    text += block.text;
  }
  return text;
}

/** Pi session JSONL (string or Buffer) → ChatMessage[]. */
function piToMessages(history) {
  const messages = [];
  let turn = null;
  const lines = String(history).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    let message;
    let id = `line-${i + 1}`;
    if (entry.type === 'message') {
      message = entry.message;
      if (typeof entry.id === 'string') id = entry.id;
    } else if (entry.type === undefined && entry.role !== undefined) {
      message = entry;
    } else {
      continue;
    }
    if (message.role === 'user') {
      if (turn) messages.push(turn);
      turn = null;
      const chunks = [];
      const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of content) if (block.type === 'text') appendEventToChunks(chunks, { type: 'text-delta', delta: block.text });
      messages.push({ id, role: 'user', chunks });
    } else if (message.role === 'assistant') {
      turn ??= { id, role: 'assistant', chunks: [] };
      const provider = message.provider ?? 'unknown';
      for (const block of message.content) {
        if (block.type === 'text') appendEventToChunks(turn.chunks, { type: 'text-delta', delta: block.text });
        else if (block.type === 'thinking') {
          appendEventToChunks(turn.chunks, { type: 'reasoning-delta', delta: block.thinking });
          if (block.thinkingSignature != null) {
            appendEventToChunks(turn.chunks, { type: 'reasoning-end', metadata: { [provider]: { signature: block.thinkingSignature } } });
          }
        } else if (block.type === 'toolCall') {
          appendEventToChunks(turn.chunks, { type: 'tool-call', toolCall: { id: block.id, name: block.name, arguments: block.arguments ?? null } });
        }
      }
    } else if (message.role === 'toolResult') {
      turn ??= { id, role: 'assistant', chunks: [] };
      appendEventToChunks(turn.chunks, {
        type: 'tool-result',
        toolResult: { toolCallId: message.toolCallId, result: joinedToolResult(message.content), isError: message.isError ?? false },
      });
    }
  }
  if (turn) messages.push(turn);
  return messages;
}

const PART_TYPES = { 0: 'text', 1: 'functioncall', 2: 'functionresult' };
const fold = (name) => (typeof name === 'number' ? PART_TYPES[name] : String(name).replace(/[_-]/g, '').toLowerCase());

function parsedArguments(text) {
  if (typeof text !== 'string') return text ?? null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One SnThinkingThought (camelCase or snake_case) → ChatMessage. */
function snToMessage(thought) {
  const role = fold(thought.role) === 'user' || thought.role === 1 ? 'user' : 'assistant';
  const chunks = [];
  for (const part of thought.parts) {
    const type = fold(part.type);
    if (type === 'text' && typeof part.text === 'string') appendEventToChunks(chunks, { type: 'text-delta', delta: part.text });
    else if (type === 'functioncall') {
      const call = part.functionCall ?? part.function_call;
      appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: call.id, name: call.name, arguments: parsedArguments(call.arguments) } });
    } else if (type === 'functionresult') {
      const result = part.functionResult ?? part.function_result;
      appendEventToChunks(chunks, {
        type: 'tool-result',
        toolResult: { toolCallId: result.callId ?? result.call_id, result: result.result ?? null, isError: result.isError ?? result.is_error ?? false },
      });
    }
  }
  return { id: thought.id, role, chunks };
}

/** A JSON array of thoughts (string or Buffer) → ChatMessage[]. */
function snToMessages(history) {
  return JSON.parse(String(history)).map(snToMessage);
}

module.exports = { piToMessages, snToMessage, snToMessages };
