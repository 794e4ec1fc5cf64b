// The webui adapters, the ACP readings and toUnifiedMessages: the seed's behaviours,
// bad input, the example sessions, and the ACP stream ↔ webview equivalence.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { adaptACPMessages, adaptJSONLMessages, toUnifiedMessages, appendEventToChunks, acp } from '../index.js';

const example = (name) => new URL(`../examples/${name}`, import.meta.url);
const sessionUpdates = () => readFileSync(example('acp-session.ndjson'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
const transcript = () => JSON.parse(readFileSync(example('chatviewer.json'), 'utf8'));

// ─── adaptACPMessages ────────────────────────────────────────────────────────

test('adaptACPMessages: ids, types, key order, references and timeline flags', () => {
  const call = { toolCallId: 'c1', kind: 'read', title: 'Read', status: 'pending' };
  const content = { rich: true };
  const rows = adaptACPMessages(
    [
      { type: 'message', data: { role: 'user', content: 'hi', timestamp: 5 } },
      { type: 'message', data: { role: 'thinking', content: 'hmm' } },
      { type: 'in-progress-tool-call', data: call },
      { type: 'message', data: { role: 'system', content } },
      { type: 'message', data: { role: 'user', content: 'next', timestamp: '2024' } },
      { type: 'completed-tool-call', data: { toolCallId: 'c2' } },
    ],
    { now: 42 },
  );
  assert.deepEqual(rows.map((r) => Object.keys(r).join()), [
    'id,type,timestamp,content,isFirst,isLast',
    'id,type,timestamp,content,isFirst,isLast',
    'id,type,timestamp,toolCall,isFirst,isLast',
    'id,type,timestamp,content,isFirst,isLast',
    'id,type,timestamp,content,isFirst,isLast',
    'id,type,timestamp,toolCall,isFirst,isLast',
  ]);
  assert.deepEqual(rows.map((r) => r.id), ['msg-0', 'msg-1', 'tool-c1', 'msg-3', 'msg-4', 'tool-c2']);
  assert.deepEqual(rows.map((r) => r.type), ['user', 'thinking', 'tool_call', 'assistant', 'user', 'tool_call']);
  assert.deepEqual(rows.map((r) => r.timestamp), [5, 42, 42, 42, '2024', 42]);
  assert.equal(rows[2].toolCall, call, 'toolCall by reference');
  assert.equal(rows[3].content, content, 'content as given');
  assert.deepEqual(rows.map((r) => [r.isFirst, r.isLast]), [[true, false], [true, false], [false, false], [false, true], [false, false], [true, true]]);
});

test('adaptACPMessages: Date.now() without options.now, one clock value per call', () => {
  const before = Date.now();
  const rows = adaptACPMessages([{ type: 'message', data: { role: 'assistant', content: 'a' } }, { type: 'in-progress-tool-call', data: { toolCallId: 'x' } }]);
  const after = Date.now();
  assert.ok(rows[0].timestamp >= before && rows[0].timestamp <= after);
  assert.equal(rows[1].timestamp, rows[0].timestamp);
});

test("adaptACPMessages: an unknown type is the seed's plain Error, type kept exactly", () => {
  for (const type of ['bogus', 'x\uD800y']) {
    assert.throws(
      () => adaptACPMessages([{ type: 'message', data: { role: 'user', content: '' } }, { type, data: {} }]),
      (error) => error.constructor === Error && error.message === `Unknown message type: ${type}`,
    );
  }
});

// ─── adaptJSONLMessages ──────────────────────────────────────────────────────

test('adaptJSONLMessages: sorted by JavaScript dates, stable, content and toolCall as the seed', () => {
  const toolCall = { toolCallId: 't' };
  const claude = [{ type: 'text', text: 'block' }];
  const input = [
    { uuid: 'local', timestamp: '2024-05-01T10:00:00', type: 'assistant', message: { parts: [{ text: 'a' }, { text: undefined }, { text: null }, { text: '\uD83D' }, { text: '\uDE00' }] } },
    { uuid: 'ms', timestamp: Date.UTC(2024, 0, 1), type: 'user', message: { content: claude } },
    { uuid: 'tie-1', timestamp: '2023-01-01T00:00:00Z', type: 'tool_call', message: { role: 'thinking' }, toolCall },
    { uuid: 'tie-2', timestamp: '2023-01-01T01:00:00+01:00', type: 'assistant', message: { role: 'thinking', parts: [], content: '' } },
  ];
  const frozen = structuredClone(input);
  const rows = adaptJSONLMessages(input);
  assert.deepEqual(input, frozen, 'the input is untouched');
  assert.deepEqual(rows.map((r) => r.id), ['tie-1', 'tie-2', 'ms', 'local']);
  assert.equal(rows[3].timestamp, new Date('2024-05-01T10:00:00').getTime(), 'no offset: local time, as JavaScript reads it');
  assert.equal(rows[3].content, 'a\uD83D\uDE00', 'parts joined with join semantics, pair rejoined');
  assert.equal(rows[2].content, claude, 'truthy Claude content by reference');
  assert.equal(rows[1].content, '');
  assert.deepEqual(rows.map((r) => r.type), ['tool_call', 'thinking', 'user', 'assistant']);
  assert.equal(rows[0].toolCall, toolCall);
  assert.ok(Object.hasOwn(rows[1], 'toolCall') && rows[1].toolCall === undefined, 'toolCall key present when undefined');
  assert.deepEqual(Object.keys(rows[0]), ['id', 'type', 'timestamp', 'content', 'toolCall', 'isFirst', 'isLast']);
  assert.deepEqual(rows.map((r) => [r.isFirst, r.isLast]), [[true, false], [false, true], [false, false], [true, true]]);
});

test('adaptJSONLMessages: invalid dates give NaN and the order Array.prototype.sort gives', () => {
  const input = [3, 'garbage', 1, 2].map((t, i) => ({ uuid: String(i), timestamp: t, type: 'assistant' }));
  const expected = [...input].sort((a, b) => new Date(a.timestamp).getTime() - new Date(b.timestamp).getTime()).map((m) => m.uuid);
  const rows = adaptJSONLMessages(input);
  assert.deepEqual(rows.map((r) => r.id), expected);
  assert.ok(Number.isNaN(rows.find((r) => r.id === '1').timestamp));
});

// ─── Bad input ───────────────────────────────────────────────────────────────

function rejects(run, input, message) {
  const before = structuredClone(input);
  assert.throws(run, (error) => {
    assert.ok(error instanceof TypeError, `a TypeError, got ${error?.constructor?.name}: ${error?.message}`);
    assert.equal(error.message, message);
    return true;
  });
  assert.deepEqual(input, before, 'the input is untouched');
}

test('bad input: a TypeError naming the index and field', () => {
  const line = (extra) => [{ uuid: 'a', timestamp: 1, type: 'user' }, { uuid: 'b', timestamp: 2, type: 'user' }, { uuid: 'c', timestamp: 3, type: 'user' }, { uuid: 'd', timestamp: 4, type: 'user', ...extra }];
  const j = 'adaptJSONLMessages: ';
  for (const [input, message] of [
    [line({ uuid: 7 }), `${j}messages[3].uuid must be a string, got number`],
    [line({ timestamp: undefined }), `${j}messages[3].timestamp must be a string or a number, got undefined`],
    [line({ message: { parts: [{ text: 5 }] } }), `${j}messages[3].message.parts[0].text must be a string, null or undefined, got number`],
    [line({ message: 'text' }), `${j}messages[3].message must be an object, null or undefined, got string`],
    [[null], `${j}messages[0] must be an object, got null`],
  ]) rejects(() => adaptJSONLMessages(input), input, message);
  rejects(() => adaptJSONLMessages('x'), 'x', `${j}messages must be an array, got string`);

  const a = 'adaptACPMessages: ';
  const ok = { type: 'message', data: { role: 'user', content: '' } };
  for (const [input, message] of [
    [[ok, { type: 'message' }], `${a}messages[1].data must be an object, got undefined`],
    [[ok, { type: 3, data: {} }], `${a}messages[1].type must be a string, got number`],
    [[ok, { type: 'completed-tool-call', data: { toolCallId: null } }], `${a}messages[1].data.toolCallId must be a string, got null`],
  ]) rejects(() => adaptACPMessages(input), input, message);
  rejects(() => adaptACPMessages([ok], { now: '1' }), [ok], `${a}options.now must be a number or undefined, got string`);

  const w = 'acp.toWebviewMessages: ';
  const u = (update) => [{ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } }, update];
  for (const [input, message] of [
    [u({ sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 1, title: 't' } }), `${w}updates[1].update.toolCallId must be a string, got number`],
    [u({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: [] } }), `${w}updates[1].content.text must be a string, got array`],
    [u({ sessionUpdate: 'tool_call_update', toolCallId: 'x', kind: 4 }), `${w}updates[1].kind must be a string, null or undefined, got number`],
  ]) rejects(() => acp.toWebviewMessages(input), input, message);
  rejects(() => acp.toAgentEvents({ sessionId: 's' }), { sessionId: 's' }, 'acp.toAgentEvents: update.update must be an object, got undefined');

  const chats = [{ id: 'm', role: 'assistant', chunks: [{ type: 'tool-batch', calls: [{ id: 1, name: 'x', arguments: {} }] }] }];
  rejects(() => toUnifiedMessages(chats), chats, 'toUnifiedMessages: messages[0].chunks[0].calls[0].id must be a string, got number');
});

// ─── ACP ─────────────────────────────────────────────────────────────────────

test('acp.toAgentEvents: every SessionUpdate variant, unknown ones included', () => {
  const rawInput = { path: 'a.ts' };
  const content = [{ type: 'diff', path: 'a.ts', oldText: null, newText: 'x' }];
  const cases = [
    [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'q' } }, []],
    [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } }, [{ type: 'text-delta', delta: 'a' }]],
    [{ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: '', mimeType: 'image/png' } }, []],
    [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 't' } }, [{ type: 'reasoning-delta', delta: 't' }]],
    [{ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Read', kind: 'read', rawInput }, [{ type: 'tool-call', toolCall: { id: 'c', name: 'read', arguments: rawInput } }]],
    [{ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Ask' }, [{ type: 'tool-call', toolCall: { id: 'c', name: 'Ask', arguments: undefined } }]],
    [{ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'in_progress' }, []],
    [{ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed', content }, [{ type: 'tool-result', toolResult: { toolCallId: 'c', result: content, isError: false } }]],
    [{ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed' }, [{ type: 'tool-result', toolResult: { toolCallId: 'c', result: undefined, isError: true } }]],
    [{ sessionUpdate: 'plan', entries: [] }, []],
    [{ sessionUpdate: 'available_commands_update', availableCommands: [] }, []],
    [{ sessionUpdate: 'current_mode_update', currentModeId: 'code' }, []],
    [{ sessionUpdate: 'session_info_update', title: 'x' }, []],
  ];
  for (const [update, events] of cases) {
    assert.deepEqual(acp.toAgentEvents(update), events, update.sessionUpdate);
    assert.deepEqual(acp.toAgentEvents(Object.freeze({ sessionId: 's', update })), events, 'wrapped');
  }
  assert.equal(acp.toAgentEvents(cases[4][0])[0].toolCall.arguments, rawInput, 'rawInput by reference');
  assert.equal(acp.toAgentEvents(cases[7][0])[0].toolResult.result, content, 'content by reference');
});

test('acp.toWebviewMessages: coalescing, replace semantics, updates before their call', () => {
  const first = [{ type: 'content', content: { type: 'text', text: 'old' } }];
  const second = [{ type: 'content', content: { type: 'text', text: 'new' } }];
  const locations = [{ path: 'a.ts', line: 1 }];
  const messages = acp.toWebviewMessages([
    { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'a\uD83D' } },
    { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: '\uDE00b' } },
    { sessionUpdate: 'tool_call_update', toolCallId: 'early', status: 'in_progress', rawOutput: 1 },
    { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Edit', kind: 'edit', status: 'pending', content: first, locations },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } },
    { sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed', content: second, title: null },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'y' } },
    { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'q' } },
  ]);
  assert.deepEqual(messages, [
    { type: 'message', data: { role: 'thinking', content: 'a\uD83D\uDE00b' } },
    { type: 'in-progress-tool-call', data: { toolCallId: 'early', kind: 'other', title: '', status: 'in_progress', rawOutput: 1 } },
    { type: 'completed-tool-call', data: { toolCallId: 'c', kind: 'edit', title: 'Edit', status: 'failed', content: second, locations } },
    { type: 'message', data: { role: 'assistant', content: 'xy' } },
    { type: 'message', data: { role: 'user', content: 'q' } },
  ]);
  assert.equal(messages[2].data.content, second, 'content replaced whole, by reference');
  assert.equal(messages[2].data.locations, locations, 'fields not sent are kept');
});

test('toUnifiedMessages: the chunk model as rows', () => {
  const args = { cmd: 'ls' };
  const diff = [{ type: 'diff', path: 'a', newText: 'b' }];
  const rows = toUnifiedMessages(
    [
      { id: 'u1', role: 'user', chunks: [{ type: 'text', text: 'go' }] },
      {
        id: 'a1',
        role: 'assistant',
        chunks: [
          { type: 'thinking', text: 'plan', metadata: {} },
          { type: 'tool-batch', calls: [
            { id: 'c1', name: 'bash', arguments: args, result: 'boom', isError: true },
            { id: 'c2', name: 'edit', arguments: {}, result: diff, isError: false },
            { id: 'c3', name: 'read', arguments: {} },
          ] },
          { type: 'text', text: 'ok' },
          { type: 'error', message: 'Overloaded', statusCode: 529 },
        ],
      },
      { id: 's1', role: 'system', chunks: [{ type: 'system', kind: 'notice', text: 'Compacted' }] },
    ],
    { now: 9 },
  );
  assert.deepEqual(rows.map((r) => `${r.id}:${r.type}`), ['u1-0:user', 'a1-0:thinking', 'tool-c1:tool_call', 'tool-c2:tool_call', 'tool-c3:tool_call', 'a1-2:assistant', 'a1-3:error', 's1-0:system']);
  assert.deepEqual(rows[2].toolCall, { toolCallId: 'c1', kind: 'bash', title: 'bash', status: 'failed', rawInput: args, content: [{ type: 'content', content: { type: 'text', text: 'boom' } }] });
  assert.equal(rows[2].toolCall.rawInput, args);
  assert.equal(rows[3].toolCall.content, diff);
  assert.equal(rows[3].toolCall.status, 'completed');
  assert.equal(rows[4].toolCall.status, 'in_progress');
  assert.ok(!('content' in rows[4].toolCall));
  assert.deepEqual(rows.map((r) => r.timestamp), Array(8).fill(9));
  assert.deepEqual(rows.map((r) => [r.isFirst, r.isLast]), [[true, false], [true, false], [false, false], [false, false], [false, false], [false, false], [false, false], [false, true]]);
});

// ─── Examples ────────────────────────────────────────────────────────────────

test('example: the ACP session as the webview shows it', () => {
  const rows = adaptACPMessages(acp.toWebviewMessages(sessionUpdates()), { now: 1 });
  assert.deepEqual(rows.map((r) => (r.type === 'tool_call' ? `${r.id}:${r.toolCall.status}` : r.type)), [
    'user', 'thinking', 'assistant', 'tool-call_read_1:completed', 'tool-call_shell_2:failed', 'thinking', 'assistant',
    'tool-call_edit_3:completed', 'assistant', 'user', 'tool-call_shell_4:completed', 'assistant',
  ]);
  const edit = rows[7].toolCall;
  assert.equal(edit.content[0].type, 'diff');
  assert.deepEqual(edit.locations, [{ path: '/repo/src/parser.ts', line: 43 }], 'locations replaced whole');
  assert.equal(rows[2].content, 'Let me look at the test configuration.');
  assert.match(rows[4].toolCall.content[0].content.text, /exit code 1/);
  assert.deepEqual(rows.map((r) => [r.isFirst, r.isLast]).slice(8, 11), [[false, true], [false, false], [true, false]]);
});

test('example: the ChatViewer transcript with Qwen and Claude lines', () => {
  const input = transcript();
  const rows = adaptJSONLMessages(input);
  assert.deepEqual(rows.map((r) => r.id), ['b2c1-0001', 'b2c1-0002', 'b2c1-0003', 'b2c1-0004', 'c7e0-0005', 'c7e0-0006', 'c7e0-0008', 'c7e0-0007', 'c7e0-0009']);
  assert.deepEqual(rows.map((r) => r.type), ['user', 'thinking', 'tool_call', 'assistant', 'user', 'tool_call', 'assistant', 'tool_call', 'assistant']);
  assert.equal(rows[1].content, 'The user wants the flaky test explained.');
  assert.equal(rows[4].content, 'Use fake timers instead.');
  assert.equal(rows[4].timestamp, Date.parse('2025-03-14T09:26:20Z'));
  assert.equal(rows[7].toolCall, input[6].toolCall);
  assert.deepEqual(rows.map((r) => [r.isFirst, r.isLast]), [[true, false], [true, false], [false, false], [false, true], [false, false], [true, false], [false, false], [false, false], [false, true]]);
});

// ─── ACP stream ↔ webview ────────────────────────────────────────────────────

/**
 * Folds an ACP stream the way a host does: each prompt (user_message_chunk run) becomes a
 * user message, and everything the agent sends until the next prompt is folded by
 * `appendEventToChunks` into one assistant message.
 */
function foldStream(updates) {
  const messages = [];
  for (const notification of updates) {
    const update = notification.update ?? notification;
    let last = messages[messages.length - 1];
    if (update.sessionUpdate === 'user_message_chunk') {
      if (last?.role !== 'user') messages.push((last = { id: `p${messages.length}`, role: 'user', chunks: [] }));
      appendEventToChunks(last.chunks, { type: 'text-delta', delta: update.content.text });
      continue;
    }
    const events = acp.toAgentEvents(notification);
    if (events.length === 0) continue;
    if (last?.role !== 'assistant') messages.push((last = { id: `a${messages.length}`, role: 'assistant', chunks: [] }));
    for (const event of events) appendEventToChunks(last.chunks, event);
  }
  return messages;
}

test('an ACP stream through the chunk model shows the same conversation as the webview', () => {
  const updates = sessionUpdates();
  const viaChunks = toUnifiedMessages(foldStream(updates), { now: 1 });
  const viaWebview = adaptACPMessages(acp.toWebviewMessages(updates), { now: 1 });
  // What agrees: row order, type, text content, timeline flags; for tool calls the id,
  // toolCallId, kind (the chunk model's name is ACP's kind), status, rawInput (same
  // object) and content (same object: the final update's content). What does not: text
  // row ids (msg-${index} vs ${messageId}-${chunk}), title (the chunk model keeps one
  // name), locations and rawOutput (not in the chunk model).
  const agreed = (row) => {
    const base = { type: row.type, isFirst: row.isFirst, isLast: row.isLast };
    if (row.type !== 'tool_call') return { ...base, content: row.content };
    const { toolCallId, kind, status, rawInput, content } = row.toolCall;
    return { ...base, id: row.id, toolCallId, kind, status, rawInput, content };
  };
  assert.equal(viaChunks.length, viaWebview.length);
  viaWebview.forEach((row, i) => {
    const [a, b] = [agreed(viaChunks[i]), agreed(row)];
    assert.deepEqual(a, b, `row ${i}`);
    if (row.type === 'tool_call') {
      assert.equal(a.rawInput, b.rawInput, `row ${i}: rawInput is the same object`);
      assert.equal(a.content, b.content, `row ${i}: content is the same object`);
    }
  });
});
