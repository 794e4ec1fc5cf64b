'use strict'
// A conversation as one self-contained HTML page, drawn the way the webui draws its
// timeline: user messages as bubbles; everything else as rows with a bullet and a
// vertical connector that joins consecutive rows and breaks at user messages (the rows'
// `isFirst` / `isLast` from `toUnifiedMessages`). All text from the file is escaped, and
// a Content-Security-Policy forbids loading anything from anywhere.

const native = require('../index.js')
const { callParts, callStatus } = require('./edits')
const { visible } = require('./text')

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text for an HTML text node or a quoted attribute. */
const escape = (text) => visible(text).replace(/[&<>"']/g, (ch) => ESCAPES[ch])

const json = (value) => (value === undefined ? 'undefined' : JSON.stringify(value, null, 2))

/** Message text: fenced code blocks, inline `code` and **bold**, everything else as written. */
function prose(text) {
  return text
    .split(/^```[^\n]*\n?/m)
    .map((part, i) => {
      if (i % 2) return `<pre class="code"><code>${escape(part.replace(/\n$/, ''))}</code></pre>`
      return escape(part)
        .replace(/`([^`\n]+)`/g, '<code>$1</code>')
        .replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>')
    })
    .join('')
}

/** The chunks `toUnifiedMessages` makes a row of, in its order: `{ message, chunk, call?, id }`. */
function rowSources(messages) {
  const sources = []
  for (const message of messages) {
    message.chunks.forEach((chunk, index) => {
      if (chunk === null || typeof chunk !== 'object') return
      if (chunk.type === 'tool-batch') {
        for (const call of chunk.calls) {
          if (call !== null && typeof call === 'object') sources.push({ message, chunk, call, id: `tool-${call.id}` })
        }
      } else if (['text', 'thinking', 'system', 'error'].includes(chunk.type)) {
        sources.push({ message, chunk, id: `${message.id}-${index}` })
      }
    })
  }
  return sources
}

/** Each row's source with its timeline place (`isFirst`, `isLast`) from the library's rows. */
function timelineRows(messages) {
  const rows = native.toUnifiedMessages(messages, { now: 0 })
  const sources = rowSources(messages)
  if (rows.length !== sources.length || rows.some((row, i) => row.id !== sources[i].id)) {
    throw new Error('the timeline rows do not match the chunks they were made from')
  }
  return sources.map((source, i) => ({ ...source, type: rows[i].type, isFirst: rows[i].isFirst, isLast: rows[i].isLast }))
}

/** A short subject for a call: the first string argument (a command, a path, a query …). */
function subject(args) {
  if (typeof args === 'string') return args
  if (args === null || typeof args !== 'object') return ''
  const first = Object.values(args).find((value) => typeof value === 'string')
  return first ?? ''
}

const STATUS_LABEL = { completed: 'completed', failed: 'failed', in_progress: 'no result' }

function editHtml(edit) {
  const lines = edit.lines
    .map(({ op, text }) => {
      const kind = { '-': 'del', '+': 'ins', '@': 'hunk', file: 'file', ' ': 'ctx' }[op]
      return `<span class="${kind}">${escape(text)}</span>`
    })
    .join('')
  const path = edit.path ? `<div class="diff-path">${escape(edit.path)}</div>` : ''
  return `<div class="diff">${path}<pre>${lines}</pre></div>`
}

function callHtml(call) {
  const status = callStatus(call)
  const args = json(call.arguments)
  const parts = callParts(call)
    .map((part) => {
      if (part.edit) return editHtml(part.edit)
      const text = part.text !== undefined ? part.text : json(part.value)
      return `<pre class="output result">${escape(text)}</pre>`
    })
    .join('')
  const shell = ['stdout', 'stderr']
    .filter((stream) => call.shellOutput?.[stream])
    .map((stream) => `<div class="label">${stream}</div><pre class="output ${stream}">${escape(call.shellOutput[stream].replace(/^\n+|\n+$/g, ''))}</pre>`)
    .join('')
  const result = parts ? `<div class="label">${status === 'failed' ? 'error' : 'result'}</div>${parts}` : ''
  return `<div class="card tool" data-call-id="${escape(call.id)}" data-status="${status}">
<div class="card-head"><span class="tool-name">${escape(call.name)}</span><span class="subject">${escape(subject(call.arguments))}</span><span class="status">${STATUS_LABEL[status]}</span></div>
<details class="args"><summary>arguments</summary><pre>${escape(args)}</pre></details>
${shell}${result}
</div>`
}

function rowBody(row) {
  const { chunk, call } = row
  switch (row.type) {
    case 'user':
      return `<div class="bubble">${prose(chunk.text)}</div>`
    case 'assistant':
      return `<div class="text">${prose(chunk.text)}</div>`
    case 'thinking': {
      const signed = chunk.metadata ? `<span class="tag" title="sealed by ${escape(Object.keys(chunk.metadata).join(', '))}">signed</span>` : ''
      return `<details class="thinking"><summary>Thinking ${signed}</summary><div class="text">${escape(chunk.text)}</div></details>`
    }
    case 'tool_call':
      return callHtml(call)
    case 'error':
      return `<div class="card error"><span class="error-title">Error${chunk.statusCode === undefined ? '' : ` ${escape(chunk.statusCode)}`}</span> ${escape(chunk.message)}</div>`
    default:
      return `<div class="notice" data-kind="${escape(chunk.kind)}"><span class="kind">${escape(chunk.kind)}</span> ${escape(chunk.text)}</div>`
  }
}

function rowHtml(row) {
  const status = row.call ? ` data-status="${callStatus(row.call)}"` : ''
  const attributes = `class="row row-${row.type.replace('_', '-')}" data-message-id="${escape(row.message.id)}" data-role="${escape(row.message.role)}"${status}`
  if (row.type === 'user') return `<div ${attributes}>${rowBody(row)}</div>`
  const place = `${row.isFirst ? ' data-first' : ''}${row.isLast ? ' data-last' : ''}`
  return `<div ${attributes}${place}><span class="line"></span><span class="dot"></span><div class="body">${rowBody(row)}</div></div>`
}

function renderPage(messages, { title, format }) {
  const rows = timelineRows(messages)
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
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
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

const SCRIPT = `
for (const button of document.querySelectorAll('button[data-open]')) {
  button.addEventListener('click', () => {
    for (const details of document.querySelectorAll('main details')) details.open = button.dataset.open === 'true'
  })
}`

// The dot's centre is 19px below a row's top; the connector runs through it.
const STYLE = `
:root {
  --bg: #f7f7f8; --fg: #1f2328; --muted: #6a737d; --line: #d0d7de; --card: #fff;
  --user: #e8f0fe; --user-border: #c6d8fb; --green: #1a7f37; --red: #cf222e; --amber: #9a6700;
  --purple: #8250df; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --card: #161b22;
    --user: #1c2a44; --user-border: #2d4a7a; --green: #3fb950; --red: #f85149; --amber: #d29922; --purple: #a371f7; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { max-width: 860px; margin: 0 auto; padding: 28px 24px 8px; }
h1 { font-size: 18px; margin: 0; word-break: break-all; }
.facts { color: var(--muted); margin: 4px 0 0; font-size: 13px; }
.tools { margin: 10px 0 0; }
button { font: inherit; font-size: 12px; color: var(--muted); background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px; margin-right: 6px; cursor: pointer; }
.timeline { max-width: 860px; margin: 0 auto; padding: 8px 24px 48px; }
.row { position: relative; padding: 6px 0 6px 30px; }
.row-user { padding: 18px 0 14px; display: flex; justify-content: flex-end; }
.bubble { max-width: 80%; background: var(--user); border: 1px solid var(--user-border); border-radius: 14px 14px 4px 14px; padding: 8px 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.line { position: absolute; left: 9px; width: 2px; top: 0; bottom: 0; background: var(--line); }
.row[data-first] .line { top: 19px; }
.row[data-last] .line { bottom: auto; height: 19px; }
.row[data-first][data-last] .line { display: none; }
.dot { position: absolute; left: 5px; top: 14px; width: 10px; height: 10px; border-radius: 50%; background: var(--muted); box-shadow: 0 0 0 3px var(--bg); }
.row-thinking .dot { background: var(--purple); }
.row-tool-call .dot { background: var(--amber); }
.row-tool-call[data-status="completed"] .dot { background: var(--green); }
.row-tool-call[data-status="failed"] .dot, .row-error .dot { background: var(--red); }
.row-system .dot { background: var(--bg); border: 2px solid var(--amber); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-family: var(--mono); font-size: 0.88em; background: rgba(127,127,127,.14); border-radius: 4px; padding: 1px 4px; }
pre { font-family: var(--mono); font-size: 12.5px; line-height: 1.45; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.code { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; margin: 6px 0; white-space: pre; overflow-x: auto; }
details.thinking summary { color: var(--purple); cursor: pointer; font-size: 13px; list-style-position: inside; }
details.thinking .text { color: var(--muted); font-style: italic; border-left: 2px solid var(--line); padding: 2px 0 2px 10px; margin: 4px 0 2px; }
.tag { font-size: 11px; font-style: normal; color: var(--muted); border: 1px solid var(--line); border-radius: 10px; padding: 0 6px; margin-left: 4px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.card-head { display: flex; gap: 8px; align-items: baseline; }
.tool-name { font-weight: 600; font-family: var(--mono); font-size: 13px; }
.subject { color: var(--muted); font-family: var(--mono); font-size: 12.5px; flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.status { font-size: 12px; font-weight: 600; border-radius: 10px; padding: 0 8px; color: var(--amber); background: rgba(154,103,0,.12); }
.tool[data-status="completed"] .status { color: var(--green); background: rgba(26,127,55,.12); }
.tool[data-status="failed"] { border-color: rgba(207,34,46,.45); }
.tool[data-status="failed"] .status { color: var(--red); background: rgba(207,34,46,.12); }
details.args summary { color: var(--muted); font-size: 12px; cursor: pointer; margin-top: 4px; }
details.args pre { color: var(--muted); padding: 4px 0; }
.label { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; margin-top: 6px; }
pre.output { max-height: 320px; overflow: auto; padding: 6px 8px; border-radius: 6px; background: rgba(127,127,127,.08); margin-top: 2px; }
.tool[data-status="failed"] pre.result, pre.stderr { color: var(--red); }
.diff { margin-top: 6px; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.diff-path { font-family: var(--mono); font-size: 12px; padding: 3px 8px; background: rgba(127,127,127,.1); border-bottom: 1px solid var(--line); }
.diff pre { padding: 4px 0; white-space: pre; overflow-x: auto; }
.diff span { display: block; padding: 0 8px; }
.diff .del { background: rgba(207,34,46,.12); color: var(--red); }
.diff .ins { background: rgba(26,127,55,.12); color: var(--green); }
.diff .hunk { color: var(--purple); }
.diff .file { font-weight: 600; }
.card.error { border-color: rgba(207,34,46,.45); color: var(--red); }
.error-title { font-weight: 600; }
.notice { color: var(--amber); font-size: 13px; }
.notice .kind { font-size: 11px; border: 1px solid currentColor; border-radius: 10px; padding: 0 6px; margin-right: 4px; }
`

module.exports = { renderPage, escape }
