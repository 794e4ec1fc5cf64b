'use strict'
// What a tool call shows: its result as text blocks and file edits (ACP `content` and
// `diff` blocks, a unified diff, or an edit's old and new text in its arguments).

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)

/** A line diff of two texts: `[{ op: ' ' | '-' | '+', text }]`, by longest common subsequence. */
function lineDiff(oldText, newText) {
  const a = oldText === '' ? [] : oldText.replace(/\n$/, '').split('\n')
  const b = newText === '' ? [] : newText.replace(/\n$/, '').split('\n')
  if (a.length * b.length > 250_000) return [...a.map((text) => ({ op: '-', text })), ...b.map((text) => ({ op: '+', text }))]
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1])
    }
  }
  const lines = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ op: ' ', text: a[i] })
      i++
      j++
    } else if (i < a.length && (j === b.length || lengths[i + 1][j] >= lengths[i][j + 1])) {
      lines.push({ op: '-', text: a[i++] })
    } else {
      lines.push({ op: '+', text: b[j++] })
    }
  }
  return lines
}

const UNIFIED_DIFF = /^(diff --git |--- |@@ )/

/** A unified diff's lines as shown (`text` keeps the sign), each with its kind. */
function unifiedDiff(text) {
  return text.replace(/\n$/, '').split('\n').map((line) => {
    if (/^(diff --git |--- |\+\+\+ |index )/.test(line)) return { op: 'file', text: line }
    if (line.startsWith('@@')) return { op: '@', text: line }
    return { op: line[0] === '+' || line[0] === '-' ? line[0] : ' ', text: line }
  })
}

/** `lineDiff` lines as shown: each behind its sign. */
const signed = (lines) => lines.map(({ op, text }) => ({ op, text: `${op} ${text}` }))

const ARGUMENT_PAIRS = [['oldText', 'newText'], ['old_string', 'new_string'], ['old', 'new']]
const PATH_KEYS = ['path', 'file_path', 'absolute_path', 'file']

/** The edit an edit call's arguments describe, if they do. */
function argumentsEdit(args) {
  if (!isObject(args)) return undefined
  for (const [from, to] of ARGUMENT_PAIRS) {
    if (typeof args[from] === 'string' && typeof args[to] === 'string') {
      const path = PATH_KEYS.map((key) => args[key]).find((value) => typeof value === 'string')
      return { path, lines: signed(lineDiff(args[from], args[to])) }
    }
  }
  return undefined
}

/**
 * A result as parts to show: `{ text }` blocks (an inline image's with its `file` too),
 * `{ edit: { path, lines } }` diffs (each line `{ op: ' ' | '-' | '+' | '@' | 'file',
 * text }`, `text` as shown) and `{ value }` for anything else (shown as JSON).
 */
function resultParts(result) {
  if (typeof result === 'string') return UNIFIED_DIFF.test(result) ? [{ edit: { lines: unifiedDiff(result) } }] : [{ text: result }]
  if (Array.isArray(result) && result.length && result.every(isObject)) {
    const parts = result.map(blockPart)
    if (parts.every(Boolean)) return parts
  }
  if (isObject(result) && typeof result.diff === 'string') {
    // The diff is shown as one, under its path; anything else the result says, as JSON.
    const path = typeof result.path === 'string' ? result.path : undefined
    const rest = Object.fromEntries(Object.entries(result).filter(([key]) => key !== 'diff' && !(key === 'path' && path)))
    const parts = [{ edit: { path, lines: unifiedDiff(result.diff) } }]
    if (Object.keys(rest).length) parts.unshift({ value: rest })
    return parts
  }
  return [{ value: result }]
}

/** One ACP `ToolCallContent` / content block as a part, or undefined for another shape. */
function blockPart(block) {
  if (block.type === 'diff' && typeof block.newText === 'string') {
    return { edit: { path: block.path, lines: signed(lineDiff(typeof block.oldText === 'string' ? block.oldText : '', block.newText)) } }
  }
  const content = block.type === 'content' && isObject(block.content) ? block.content : block
  if (content.type === 'text' && typeof content.text === 'string') return { text: content.text }
  if (block.type === 'terminal' && typeof block.terminalId === 'string') return { text: `(terminal ${block.terminalId})` }
  if (content.type === 'image' || content.type === 'audio') return mediaPart(content)
  if (content.type === 'resource_link' && typeof content.uri === 'string') return { text: `(link ${content.uri})` }
  return undefined
}

/**
 * An image or audio block (ACP and Pi: `{ data, mimeType }`; Anthropic: `{ source: { data,
 * media_type } }`) as a line saying what it is; an image stored inline also as the `file`
 * it is, for a view that can show one.
 */
function mediaPart(content) {
  const source = isObject(content.source) ? content.source : content
  const mediaType = typeof content.mimeType === 'string' ? content.mimeType : source.media_type
  const part = { text: `(${content.type}, ${mediaType ?? 'unknown type'})` }
  if (content.type === 'image' && typeof source.data === 'string') part.file = { type: 'file', mediaType, data: source.data }
  return part
}

/** A call's parts: its result's (when it has one) and the edit its arguments describe. */
function callParts(call) {
  const parts = 'result' in call ? resultParts(call.result) : []
  const edit = argumentsEdit(call.arguments)
  if (edit && !parts.some((part) => part.edit)) parts.push({ edit })
  return parts
}

/** As the webui names it: `in_progress` until a result arrives, then `completed` or `failed`. */
const callStatus = (call) => (!('result' in call) ? 'in_progress' : call.isError ? 'failed' : 'completed')

module.exports = { callParts, callStatus, lineDiff, unifiedDiff }
