'use strict';
/**
 * The plain-JS baseline of the webui adapters.
 *
 * This file restates, in ordinary JavaScript, the two adapters of the Qwen Code webui
 * data layer (seed 000) that agent-chunks reimplements natively: `adaptACPMessages`
 * (the vscode companion's webview state → timeline rows) and `adaptJSONLMessages` (a
 * ChatViewer transcript → timeline rows). The differential tests compare the addon
 * against it and the benchmarks divide by it, so it keeps each habit of the original:
 *
 * - rows are created with their keys in the original's order;
 * - `toolCall`, `content` and given timestamps are handed on by reference;
 * - transcript lines are ordered by `Array.prototype.sort` with a subtracting comparator
 *   over `new Date(timestamp).getTime()`, invalid dates included;
 * - the text of Qwen `parts` is joined with `join('')`, Claude `content` taken when truthy;
 * - a row is first (last) on the timeline when nothing, or a user message, is before
 *   (after) it.
 *
 * The one addition is `options.now`, a fixed clock for rows the original stamps with
 * `Date.now()`. Inputs are trusted: there is no validation here.
 */

/** A user message in the webview state. */
function isUserEntry(entry) {
  return entry !== undefined && entry.type === 'message' && entry.data?.role === 'user';
}

function rowTypeForRole(role) {
  if (role === 'user') return 'user';
  if (role === 'thinking') return 'thinking';
  return 'assistant';
}

function adaptACPMessages(messages, options) {
  const clock = () => (options?.now !== undefined ? options.now : Date.now());
  return messages.map((entry, index, all) => {
    const isFirst = index === 0 || isUserEntry(all[index - 1]);
    const isLast = index === all.length - 1 || isUserEntry(all[index + 1]);
    if (entry.type === 'message') {
      const data = entry.data;
      return {
        id: 'msg-' + index,
        type: rowTypeForRole(data.role),
        timestamp: data.timestamp || clock(),
        content: data.content,
        isFirst,
        isLast,
      };
    }
    if (entry.type === 'in-progress-tool-call' || entry.type === 'completed-tool-call') {
      const call = entry.data;
      return { id: `tool-${call.toolCallId}`, type: 'tool_call', timestamp: clock(), toolCall: call, isFirst, isLast };
    }
    throw new Error(`Unknown message type: ${entry.type}`);
  });
}

const timeOf = (line) => new Date(line.timestamp).getTime();

/** Qwen `parts` joined when there are any, else Claude `content` when truthy, else ''. */
function textOf(message) {
  if (!message) return '';
  const parts = message.parts;
  if (parts && parts.length) return parts.map((part) => part.text).join('');
  return message.content || '';
}

function adaptJSONLMessages(messages) {
  const ordered = messages.slice().sort((a, b) => timeOf(a) - timeOf(b));
  const breaksTimeline = (line) => line === undefined || line.type === 'user';
  return ordered.map((line, index) => {
    let type = line.type;
    if (type !== 'tool_call' && line.message?.role === 'thinking') type = 'thinking';
    return {
      id: line.uuid,
      type,
      timestamp: timeOf(line),
      content: textOf(line.message),
      toolCall: line.toolCall,
      isFirst: breaksTimeline(ordered[index - 1]),
      isLast: breaksTimeline(ordered[index + 1]),
    };
  });
}

module.exports = { adaptACPMessages, adaptJSONLMessages };
