'use strict'
// A conversation as one self-contained HTML page, drawn the way the webui draws its
// timeline: user messages as bubbles; everything else as rows with a bullet and a
// vertical connector that joins consecutive rows and breaks at user messages (the rows'
// `isFirst` / `isLast` from `toUnifiedMessages`). Message text is markdown rendered here,
// when the page is made, with raw HTML in it shown as text; every other text from the
// file is escaped; a Content-Security-Policy forbids loading anything from anywhere
// (images stored in the session are shown from `data:` URLs).

const native = require('../index.js')
const { callHtml } = require('./cards')
const { callStatus } = require('./edits')
const { escape } = require('./html')
const { markdown, markdownInline } = require('./markdown')
const { fileHtml } = require('./media')
const { STYLE } = require('./page-style')

const ROW_CHUNKS = new Set(['text', 'thinking', 'system', 'error'])

/**
 * What each chunk could be a row of, in order: `{ message, chunk, call?, id }`. A `file`
 * chunk is a candidate too: it is a row only where the library makes it one.
 */
function candidates(message) {
  const list = []
  message.chunks.forEach((chunk, index) => {
    if (chunk === null || typeof chunk !== 'object') return
    if (chunk.type === 'tool-batch') {
      for (const call of chunk.calls) {
        if (call !== null && typeof call === 'object') list.push({ message, chunk, call, id: `tool-${call.id}` })
      }
    } else if (ROW_CHUNKS.has(chunk.type) || chunk.type === 'file') {
      list.push({ message, chunk, id: `${message.id}-${index}` })
    }
  })
  return list
}

/**
 * The page's rows: the library's rows, each with its chunk, and the files of a message
 * on the row before them in that message (`files`), else on the row after them
 * (`filesBefore`), else on a row of their own (a bubble for a user's message).
 */
function pageRows(messages) {
  const library = native.toUnifiedMessages(messages, { now: 0 })
  const rows = []
  let next = 0
  let added = false
  for (const message of messages) {
    const own = []
    let pending = []
    for (const candidate of candidates(message)) {
      const row = library[next]
      if (row?.id !== candidate.id) {
        if (candidate.chunk.type !== 'file') throw new Error('the timeline rows do not match the chunks they were made from')
        if (own.length) own[own.length - 1].files.push(candidate.chunk)
        else pending.push(candidate.chunk)
        continue
      }
      next++
      own.push({ ...candidate, type: row.type, isFirst: row.isFirst, isLast: row.isLast, filesBefore: pending, files: [] })
      pending = []
    }
    if (pending.length) {
      own.push({ message, id: `${message.id}-files`, type: message.role === 'user' ? 'user' : 'files', filesBefore: pending, files: [] })
      added = true
    }
    rows.push(...own)
  }
  if (next !== library.length) throw new Error('the timeline rows do not match the chunks they were made from')
  return added ? placed(rows) : rows
}

/**
 * Rows placed on the timeline by the library's rule (only user rows break it), for when
 * the page added rows of its own that the library's places do not account for.
 */
function placed(rows) {
  return rows.map((row, i) => ({
    ...row,
    isFirst: i === 0 || rows[i - 1].type === 'user',
    isLast: i === rows.length - 1 || rows[i + 1].type === 'user',
  }))
}

/** Notice text: a line of markdown beside its kind; a longer text folded under its first line. */
function noticeHtml(chunk) {
  const kind = `<span class="kind">${escape(chunk.kind)}</span>`
  const text = String(chunk.text)
  if (!text.includes('\n') && text.length <= 160) return `<div class="notice" data-kind="${escape(chunk.kind)}">${kind} ${markdownInline(text)}</div>`
  // The first line that says something (a summary often opens with a heading).
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean)
  const first = lines.find((line) => !line.startsWith('#')) ?? lines[0] ?? ''
  const summary = first.length > 120 ? `${first.slice(0, 119)}…` : first
  return `<details class="notice" data-kind="${escape(chunk.kind)}"><summary>${kind} ${escape(summary)}</summary><div class="md">${markdown(text)}</div></details>`
}

function thinkingHtml(chunk) {
  const signed = chunk.metadata ? `<span class="tag" title="sealed by ${escape(Object.keys(chunk.metadata).join(', '))}">signed</span>` : ''
  return `<details class="thinking"><summary>Thinking ${signed}</summary><div class="text md">${markdown(chunk.text)}</div></details>`
}

function errorHtml(chunk) {
  const status = chunk.statusCode === undefined ? '' : ` ${escape(chunk.statusCode)}`
  return `<div class="card error"><div class="error-title">Error${status}</div><div class="error-message">${escape(chunk.message)}</div></div>`
}

/** A row's own content: its chunk as HTML. */
function chunkHtml(row) {
  const { chunk, call } = row
  if (chunk === undefined) return ''
  if (chunk.type === 'file') return fileHtml(chunk)
  switch (row.type) {
    case 'assistant':
      return `<div class="text md">${markdown(chunk.text)}</div>`
    case 'thinking':
      return thinkingHtml(chunk)
    case 'tool_call':
      return callHtml(call, row.message.role)
    case 'error':
      return errorHtml(chunk)
    case 'system':
      return noticeHtml(chunk)
    default:
      return ''
  }
}

/** A row's content with its message's files where they stood; a user's in the bubble. */
function rowBody(row) {
  const before = row.filesBefore.map(fileHtml).join('')
  const after = row.files.map(fileHtml).join('')
  if (row.type !== 'user') return before + chunkHtml(row) + after
  const text = row.chunk?.type === 'text' ? `<span class="bubble-text">${escape(row.chunk.text)}</span>` : chunkHtml(row)
  return `<div class="bubble">${before}${text}${after}</div>`
}

function rowHtml(row) {
  const status = row.call ? ` data-status="${callStatus(row.call)}"` : ''
  const attributes = `class="row row-${row.type.replace('_', '-')}" data-message-id="${escape(row.message.id)}" data-role="${escape(row.message.role)}"${status}`
  if (row.type === 'user') return `<div ${attributes}>${rowBody(row)}</div>`
  const place = `${row.isFirst ? ' data-first' : ''}${row.isLast ? ' data-last' : ''}`
  return `<div ${attributes}${place}><span class="line"></span><span class="dot"></span><div class="body">${rowBody(row)}</div></div>`
}

function renderPage(messages, { title, format }) {
  const rows = pageRows(messages)
  const calls = rows.filter((row) => row.call)
  const failed = calls.filter((row) => callStatus(row.call) === 'failed').length
  const facts = [
    format,
    `${messages.length} message${messages.length === 1 ? '' : 's'}`,
    `${calls.length} tool call${calls.length === 1 ? '' : 's'}${failed ? ` (${failed} failed)` : ''}`,
  ]
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="agent-chunks">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escape(title)}</h1>
<p class="facts">${facts.map(escape).join(' · ')}</p>
<p class="tools"><button type="button" data-open="true">Expand all</button><button type="button" data-open="false">Collapse all</button></p>
</header>
<main class="timeline">
${rows.map(rowHtml).join('\n')}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`
}

// Images only from the page itself (`data:`); nothing else from anywhere.
const CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

const SCRIPT = `
for (const button of document.querySelectorAll('button[data-open]')) {
  button.addEventListener('click', () => {
    for (const details of document.querySelectorAll('main details')) details.open = button.dataset.open === 'true'
  })
}
for (const image of document.querySelectorAll('main figure.file img')) {
  image.addEventListener('click', () => image.classList.toggle('full'))
}`

module.exports = { renderPage }
