'use strict';
/**
 * The plain-JS baseline of agent-chunks.
 *
 * This file restates, in ordinary JavaScript, the chunk-builder helper that the native
 * addon replaces (see ../shared/specs/contract.md and seed 001). It is the reference the
 * differential tests compare the addon against and the yardstick the benchmarks divide by,
 * so it keeps every observable habit of that helper:
 *
 * - the caller's array and the chunks in it are mutated in place; nothing is returned;
 * - `arguments`, `result` and `metadata` are stored by reference, `undefined` included;
 * - keys are created in the helper's order, so `JSON.stringify` output is identical;
 * - strings are joined with JS `+`, so split surrogate pairs come out whole;
 * - walks back through the chunks skip holes and falsy entries;
 * - lifecycle and unknown event types change nothing.
 *
 * Inputs are trusted as the helper trusts them: there is no validation here.
 */

const { randomUUID } = require('node:crypto');

/** True for a real chunk of the given type; holes and falsy entries are skipped. */
function isChunkOfType(chunk, type) {
  return Boolean(chunk) && chunk.type === type;
}

/** The newest chunk of the given type, or undefined. */
function newestChunkOfType(chunks, type) {
  for (let i = chunks.length - 1; i >= 0; i--) {
    if (isChunkOfType(chunks[i], type)) return chunks[i];
  }
  return undefined;
}

function appendEventToChunks(chunks, event) {
  switch (event.type) {
    case 'text-delta': {
      const last = chunks[chunks.length - 1];
      if (isChunkOfType(last, 'text')) last.text += event.delta;
      else chunks.push({ type: 'text', text: event.delta });
      return;
    }

    case 'reasoning-delta': {
      const last = chunks[chunks.length - 1];
      // A thinking chunk with metadata is sealed: a new delta starts a new block.
      if (isChunkOfType(last, 'thinking') && last.metadata === undefined) last.text += event.delta;
      else chunks.push({ type: 'thinking', text: event.delta });
      return;
    }

    case 'reasoning-end': {
      if (event.metadata === undefined) return;
      // Only the newest thinking chunk may be sealed; if it already is, the metadata is dropped.
      const thinking = newestChunkOfType(chunks, 'thinking');
      if (thinking && thinking.metadata === undefined) thinking.metadata = event.metadata;
      return;
    }

    case 'tool-call': {
      const last = chunks[chunks.length - 1];
      const { id, name, arguments: args } = event.toolCall;
      const entry = { id, name, arguments: args };
      if (isChunkOfType(last, 'tool-batch')) last.calls.push(entry);
      else chunks.push({ type: 'tool-batch', calls: [entry] });
      return;
    }

    case 'tool-result': {
      // Newest batch first; within a batch the first call with the id wins.
      const wanted = event.toolResult.toolCallId;
      for (let i = chunks.length - 1; i >= 0; i--) {
        if (!isChunkOfType(chunks[i], 'tool-batch')) continue;
        const call = chunks[i].calls.find((entry) => entry.id === wanted);
        if (call) {
          call.result = event.toolResult.result;
          call.isError = event.toolResult.isError;
          return;
        }
      }
      return;
    }

    case 'shell-output': {
      // Only the last call of the newest batch receives output; an empty newest batch ends the search.
      const batch = newestChunkOfType(chunks, 'tool-batch');
      if (!batch) return;
      const calls = batch.calls;
      const entry = calls[calls.length - 1];
      if (!entry) return;
      const before = entry.shellOutput ?? { stdout: '', stderr: '' };
      // Always a fresh object, built from the previous one.
      entry.shellOutput = {
        stdout: before.stdout + (event.stream === 'stdout' ? event.data : ''),
        stderr: before.stderr + (event.stream === 'stderr' ? event.data : ''),
      };
      return;
    }

    case 'error': {
      const chunk = { type: 'error', message: event.error };
      if (event.statusCode !== undefined) chunk.statusCode = event.statusCode;
      chunks.push(chunk);
      return;
    }

    case 'notice':
      chunks.push({ type: 'system', kind: 'notice', text: event.message });
      return;

    case 'model-changed':
      chunks.push({ type: 'system', kind: 'model-changed', text: `Switched to ${event.modelId} (${event.keyId})` });
      return;

    case 'config-reload':
      chunks.push({ type: 'system', kind: 'config-reload', text: 'Configuration reloaded' });
      return;

    default:
      // Lifecycle events (status, turn-start, done, usage, …) and unknown types: no content.
      return;
  }
}

function applySystemEvent(messages, event, idFactory = randomUUID) {
  const chunk = { type: 'system', kind: event.kind, text: event.text };
  const last = messages[messages.length - 1];
  if (last && last.role === 'system') {
    last.chunks.push(chunk);
    return { messageId: last.id };
  }
  const id = idFactory();
  messages.push({ id, role: 'system', chunks: [chunk] });
  return { messageId: id };
}

module.exports = { appendEventToChunks, applySystemEvent };
