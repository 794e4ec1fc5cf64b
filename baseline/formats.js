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

const ENTRY_SYSTEM = {
  model_change: (e) => ['model-changed', `${e.provider ?? ''}/${e.modelId}`],
  thinking_level_change: (e) => ['thinking-level-changed', e.thinkingLevel],
  compaction: (e) => ['compaction', e.summary],
  branch_summary: (e) => ['branch-summary', e.summary],
};

const system = (id, kind, text) => ({ id, role: 'system', chunks: [{ type: 'system', kind, text }] });

function customMessage(id, message) {
  if (message.display !== true) return null;
  if (typeof message.content === 'string') return system(id, 'custom', message.content);
  const chunks = [];
  for (const block of message.content) {
    if (block.type === 'text') chunks.push({ type: 'system', kind: 'custom', text: block.text });
    else if (block.type === 'image') chunks.push({ type: 'file', mediaType: block.mimeType, data: block.data });
  }
  return { id, role: 'system', chunks };
}

const image = (block) => ({ type: 'file', mediaType: block.mimeType, ...(typeof block.data === 'string' ? { data: block.data } : {}) });

/** One stored message: `{ message }`, `{ result }` (a tool result) or null (not shown). */
function storedMessage(id, message) {
  switch (message.role) {
    case 'user': {
      const chunks = [];
      const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of content) {
        if (block.type === 'text') appendEventToChunks(chunks, { type: 'text-delta', delta: block.text });
        else if (block.type === 'image') chunks.push(image(block));
      }
      return { message: { id, role: 'user', chunks } };
    }
    case 'assistant': {
      const chunks = [];
      const provider = message.provider ?? 'unknown';
      for (const block of message.content) {
        if (block.type === 'text') appendEventToChunks(chunks, { type: 'text-delta', delta: block.text });
        else if (block.type === 'thinking') {
          appendEventToChunks(chunks, { type: 'reasoning-delta', delta: block.thinking });
          if (block.thinkingSignature != null) {
            appendEventToChunks(chunks, { type: 'reasoning-end', metadata: { [provider]: { signature: block.thinkingSignature } } });
          }
        } else if (block.type === 'toolCall') {
          appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: block.id, name: block.name, arguments: block.arguments ?? null } });
        } else if (block.type === 'image') chunks.push(image(block));
      }
      const stored = message.errorMessage || undefined;
      if (message.stopReason === 'aborted') {
        chunks.push({ type: 'error', message: stored && stored !== 'Request was aborted' ? stored : 'Operation aborted' });
      } else if (message.stopReason === 'error') {
        chunks.push({ type: 'error', message: stored ?? 'Unknown error' });
      }
      return { message: { id, role: 'assistant', chunks } };
    }
    case 'toolResult':
      return { result: { toolCallId: message.toolCallId, name: message.toolName ?? '', result: joinedToolResult(message.content), isError: message.isError ?? false } };
    case 'bashExecution': {
      const result = {};
      for (const key of ['output', 'exitCode', 'cancelled', 'truncated', 'fullOutputPath']) if (key in message) result[key] = message[key];
      const isError = message.cancelled === true || (typeof message.exitCode === 'number' && message.exitCode !== 0);
      const chunks = [{ type: 'tool-batch', calls: [{ id, name: 'bash', arguments: { command: message.command }, result, isError }] }];
      return { message: { id, role: 'user', chunks } };
    }
    case 'custom':
    case 'hookMessage': {
      const shown = customMessage(id, message);
      return shown && { message: shown };
    }
    case 'compactionSummary':
      return { message: system(id, 'compaction', message.summary) };
    case 'branchSummary':
      return { message: system(id, 'branch-summary', message.summary) };
    default:
      return null;
  }
}

/**
 * Pi session JSONL (string or Buffer) → ChatMessage[]: the path from the root to the
 * last entry, one message per stored message, tool results on their calls.
 */
function piToMessages(history) {
  const entries = [];
  const byId = new Map();
  const lines = String(history).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    if (entry.type === 'session') continue;
    const id = typeof entry.id === 'string' ? entry.id : `line-${i + 1}`;
    let stored = null;
    if (entry.type === 'message') stored = storedMessage(id, entry.message);
    else if (entry.type === undefined && entry.role !== undefined) stored = storedMessage(id, entry);
    else if (entry.type in ENTRY_SYSTEM) stored = { message: system(id, ...ENTRY_SYSTEM[entry.type](entry)) };
    else if (entry.type === 'custom_message') {
      const shown = customMessage(id, entry);
      stored = shown && { message: shown };
    }
    const parent = 'parentId' in entry ? (entry.parentId === null ? undefined : byId.get(entry.parentId)) : entries.length - 1;
    byId.set(id, entries.length);
    entries.push({ id, parent: parent === -1 ? undefined : parent, stored });
  }
  const path = [];
  for (let at = entries.length - 1; at !== undefined && at >= 0; at = entries[at].parent) path.push(at);
  path.reverse();
  const messages = [];
  let open = null;
  const close = () => {
    if (open) messages.push(open);
    open = null;
  };
  for (const index of path) {
    const { id, stored } = entries[index];
    if (!stored) continue;
    if (stored.result) {
      const { toolCallId, name, result, isError } = stored.result;
      const holds = open?.chunks.some((chunk) => chunk.type === 'tool-batch' && chunk.calls.some((call) => call.id === toolCallId));
      if (holds) {
        appendEventToChunks(open.chunks, { type: 'tool-result', toolResult: { toolCallId, result, isError } });
      } else {
        close();
        const chunks = [];
        appendEventToChunks(chunks, { type: 'tool-call', toolCall: { id: toolCallId, name, arguments: undefined } });
        appendEventToChunks(chunks, { type: 'tool-result', toolResult: { toolCallId, result, isError } });
        messages.push({ id, role: 'assistant', chunks });
      }
      continue;
    }
    close();
    if (stored.message.role === 'assistant') open = stored.message;
    else messages.push(stored.message);
  }
  close();
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
