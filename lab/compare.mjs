// The comparisons the lab's check makes, on the library's own terms: messages by role and
// chunks with the first difference `agent-chunks check` would name (cli/diff.js), and
// Codex's own view (its app server's items) against ours on what that view shows.
import { createRequire } from 'node:module'

const { firstDifference } = createRequire(import.meta.url)('../cli/diff.js')

const show = (value) => {
  const text = value === undefined || typeof value === 'symbol' ? '(nothing)' : JSON.stringify(value)
  return text.length > 200 ? `${text.slice(0, 199)}…` : text
}

/** Messages as a view compares them: who says it and what (ids are each reader's own). */
export const roleAndChunks = (messages) => messages.map((m) => ({ role: m.role, chunks: m.chunks }))

/** Where two message lists first differ, as a line, or undefined when they agree. */
export function messagesDiffer(left, right) {
  const d = firstDifference(roleAndChunks(left), roleAndChunks(right), 'messages')
  if (!d) return undefined
  if (d.order) return `${d.path}: the same entries in another key order`
  return `${d.path}: ${show(d.left)} ≠ ${show(d.right)}`
}

/** Our messages in the terms of Codex's view (what it shows of each item). */
export function codexItems(messages) {
  const items = []
  for (const m of messages) {
    if (m.role === 'user') {
      items.push({ type: 'user', text: m.chunks.filter((c) => c.type === 'text').map((c) => c.text).join('') })
      continue
    }
    let reasoning
    for (const c of m.chunks) {
      if (c.type === 'thinking') {
        // The summary is the sealed chunk; the raw text, where Codex kept it, the one after.
        if (reasoning && !c.metadata && reasoning.open) {
          reasoning.content = c.text
          reasoning.open = false
          continue
        }
        reasoning = { type: 'reasoning', summary: c.text, content: '', open: true }
        items.push(reasoning)
        continue
      }
      reasoning = undefined
      if (c.type === 'text') items.push({ type: 'text', text: c.text })
      else if (c.type === 'tool-batch') for (const call of c.calls) items.push({ type: 'call', id: call.id, name: call.name, output: call.result, isError: call.isError })
      else if (c.type === 'system' && c.kind === 'compaction') items.push({ type: 'compaction' })
      else items.push({ type: c.kind ? `${c.type}:${c.kind}` : c.type })
    }
  }
  for (const item of items) delete item.open
  return items
}

/** One item of Codex's `thread/read` turns in the same terms. */
export function codexItem(item) {
  switch (item.type) {
    case 'userMessage':
      return { type: 'user', text: item.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n') }
    case 'agentMessage':
      return { type: 'text', text: item.text }
    case 'reasoning':
      return { type: 'reasoning', summary: item.summary.join('\n'), content: item.content.join('\n') }
    case 'commandExecution':
      return { type: 'call', id: item.id, output: item.aggregatedOutput ?? '', isError: item.status !== 'completed' }
    case 'collabAgentToolCall':
      return { type: 'call', id: item.id }
    case 'contextCompaction':
      return { type: 'compaction' }
    default:
      return { type: item.type }
  }
}

/** A call is shown by Codex with its id, and (commands) its output and failure. */
function sameItem(ours, theirs) {
  if (ours.type === 'call' && theirs.type === 'call') {
    if (theirs.output === undefined) return ours.id === theirs.id
    return ours.id === theirs.id && ours.isError === theirs.isError && String(ours.output ?? '') === theirs.output
  }
  return firstDifference(ours, theirs) === undefined
}

/** Where our items and Codex's first differ, as a line, or undefined. */
export function itemsDiffer(ours, theirs) {
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    if (ours[i] && theirs[i] && sameItem(ours[i], theirs[i])) continue
    return `items[${i}]: ${show(ours[i])} ≠ ${show(theirs[i])}`
  }
  return undefined
}
