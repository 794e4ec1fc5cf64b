// buildTimeline: the behaviours seed 002 §8 lists for the timeline (build, grouping,
// sub-agent rename, lossless item data), on the chunk model.
import test from 'node:test'
import assert from 'node:assert/strict'

import { buildTimeline } from 'agent-chunks'
import { frozen } from './fixtures.mjs'

const call = (id, name, extra = {}) => ({ id, name, arguments: extra.arguments ?? { q: id }, ...extra })
const parents = (groups) => groups.map((g) => g.parent.id)

test('items in chunk order, with their kind; other chunks are passed over', () => {
  const chunks = [
    { type: 'text', text: 'intro' },
    { type: 'thinking', text: 'first', metadata: { anthropic: { signature: 's' } } },
    { type: 'tool-batch', calls: [call('a', 'search'), call('b', 'read')] },
    { type: 'error', message: 'x' },
    null,
    { type: 'thinking', text: 'second' },
  ]
  const groups = buildTimeline(chunks)
  assert.deepEqual(groups.map((g) => [g.parent.kind, g.parent.id]), [['reasoning', 'reasoning-1'], ['tool-call', 'a'], ['tool-call', 'b'], ['reasoning', 'reasoning-5']])
  assert.deepEqual(Object.keys(groups[0].parent), ['kind', 'id', 'text', 'status'])
  assert.deepEqual(Object.keys(groups[1].parent), ['kind', 'id', 'toolName', 'title', 'args', 'result', 'status'])
  assert.ok(groups.every((g) => g.children.length === 0))
})

test('statuses are derived from the data', () => {
  const chunks = [
    { type: 'thinking', text: 'sealed', metadata: {} },
    { type: 'tool-batch', calls: [call('ok', 'x', { result: 1, isError: false }), call('bad', 'x', { result: 'boom', isError: true }), call('open', 'x'), call('undef', 'x', { result: undefined })] },
    { type: 'thinking', text: 'live' },
  ]
  const status = (groups) => groups.map((g) => g.parent.status)
  assert.deepEqual(status(buildTimeline(chunks)), ['completed', 'completed', 'error', 'running', 'completed', 'running'])
  assert.deepEqual(status(buildTimeline(chunks, { finished: true })), ['completed', 'completed', 'error', 'cancelled', 'completed', 'completed'])
  const notLast = [...chunks, { type: 'text', text: 'after' }]
  assert.equal(buildTimeline(notLast).at(-1).parent.status, 'completed', 'reasoning that is not the last chunk is done')
})

test('result and args are kept verbatim, by reference; the mapping is lossless', () => {
  const result = { content: [{ type: 'text', text: 'r' }], when: new Date(0) }
  const args = new Map([['k', 1]])
  const chunks = frozen([{ type: 'tool-batch', calls: [{ id: 'c', name: 'fetch', arguments: args, result, isError: false, spanId: 'span-1' }] }])
  const [{ parent }] = buildTimeline(chunks)
  assert.equal(parent.result, result)
  assert.equal(parent.args, args)
  assert.deepEqual(parent, { kind: 'tool-call', id: 'c', toolName: 'fetch', title: 'fetch', args, result, status: 'completed', spanId: 'span-1' })
  const text = 'x'.repeat(10) + '\ud83d'
  assert.equal(buildTimeline([{ type: 'thinking', text }])[0].parent.text, text)
})

test('grouping by spanId: the first item (a task call) is the parent, later items its children', () => {
  const chunks = [
    { type: 'tool-batch', calls: [call('t1', 'task', { spanId: 's1', arguments: { subagent_type: 'notion_agent' } }), call('free', 'search')] },
    { type: 'thinking', text: 'between' },
    { type: 'tool-batch', calls: [call('c1', 'search_workspace', { spanId: 's1' }), call('c2', 'update_page', { spanId: 's1' })] },
  ]
  const groups = buildTimeline(chunks)
  assert.deepEqual(parents(groups), ['t1', 'free', 'reasoning-1'])
  assert.deepEqual(groups[0].children.map((c) => c.id), ['c1', 'c2'])
})

test('a span whose task call is not its first item groups under its first item', () => {
  // As SurfSense's grouping did in both versions that had TimelineGroup: the first item
  // carrying the span is the parent, the rest (the task call among them) its children.
  const chunks = [{ type: 'tool-batch', calls: [call('o1', 'search', { spanId: 's2' }), call('o2', 'task', { spanId: 's2' }), call('o3', 'read', { spanId: 's2' })] }]
  const groups = buildTimeline(chunks)
  assert.deepEqual(parents(groups), ['o1'])
  assert.deepEqual(groups[0].children.map((c) => c.id), ['o2', 'o3'])
})

test('items of a span no task call owns are promoted to groups of their own', () => {
  const chunks = [{ type: 'tool-batch', calls: [call('o1', 'search', { spanId: 's3' }), call('o2', 'read', { spanId: 's3' })] }]
  const groups = buildTimeline(chunks)
  assert.deepEqual(parents(groups), ['o1', 'o2'])
  assert.ok(groups.every((g) => g.children.length === 0))
})

test('a task call is titled by its sub-agent type, title-cased, or Task', () => {
  const title = (args) => buildTimeline([{ type: 'tool-batch', calls: [call('t', 'task', { arguments: args })] }])[0].parent.title
  assert.equal(title({ subagent_type: 'notion_agent' }), 'Notion Agent')
  assert.equal(title({ subagent_type: 'deep-research  helper' }), 'Deep Research Helper')
  assert.equal(title({ subagent_type: 'élan_vital' }), 'Élan Vital')
  assert.equal(title({}), 'Task')
  assert.equal(title({ subagent_type: 42 }), 'Task')
  assert.equal(title(undefined), 'Task')
  assert.equal(title({ subagent_type: '__' }), 'Task')
  const other = buildTimeline([{ type: 'tool-batch', calls: [call('x', 'notion_agent', { arguments: { subagent_type: 'z' } })] }])
  assert.equal(other[0].parent.title, 'notion_agent', 'only task calls are renamed')
})

test('bad input is a TypeError naming the path', () => {
  const rejects = (fn, message) => assert.throws(fn, (e) => e instanceof TypeError && e.message === message)
  rejects(() => buildTimeline('x'), 'buildTimeline: "chunks" must be an array, got string')
  rejects(() => buildTimeline([{ type: 'tool-batch', calls: [{ id: 'a', name: 1 }] }]), 'buildTimeline: chunks[0].calls[0].name must be a string, got number')
  rejects(() => buildTimeline([{ type: 'tool-batch', calls: [{ id: 'a', name: 'n', spanId: 3 }] }]), 'buildTimeline: chunks[0].calls[0].spanId must be a string, got number')
  rejects(() => buildTimeline([], 5), 'buildTimeline: "options" must be an object, got number')
})
