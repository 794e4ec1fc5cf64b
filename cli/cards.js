'use strict'
// A tool call as the page shows it: a card with the call's name, what it was about, its
// status, its arguments (collapsed), its result (text, diffs, images, an object's
// `output` as text) and its shell output; a shell command's execution (`bash` with a
// `command`, its result `{ output, exitCode, cancelled, truncated, fullOutputPath? }`, as
// Pi stores the user's own `!command`) as a terminal block.

const { callParts, callStatus } = require('./edits')
const { escape } = require('./html')
const { fileHtml } = require('./media')

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value)

/** A value as indented JSON; an absent one as `(none)`, never the word `undefined`. */
const json = (value) => (value === undefined ? '(none)' : (JSON.stringify(value, null, 2) ?? String(value)))

const STATUS_LABEL = { completed: 'completed', failed: 'failed', in_progress: 'no result' }

/** What a call was about: its title where it has one, else its first string argument. */
function subject(call) {
  if (typeof call.title === 'string') return call.title
  const args = call.arguments
  if (typeof args === 'string') return args
  if (!isObject(args)) return ''
  return Object.values(args).find((value) => typeof value === 'string') ?? ''
}

/** The marks a shell result carries besides its output, in words. */
function shellMarks(result) {
  const marks = []
  if (typeof result.exitCode === 'number') marks.push({ kind: result.exitCode === 0 ? 'exit' : 'exit failed', text: `exit code ${result.exitCode}` })
  if (result.cancelled === true) marks.push({ kind: 'cancelled', text: 'cancelled' })
  if (result.truncated === true) {
    const where = typeof result.fullOutputPath === 'string' ? `; full output in ${result.fullOutputPath}` : ''
    marks.push({ kind: 'truncated', text: `output truncated${where}` })
  }
  return marks
}

const marksHtml = (marks) =>
  marks.length ? `<div class="marks">${marks.map(({ kind, text }) => `<span class="mark" data-mark="${kind}">${escape(text)}</span>`).join('')}</div>` : ''

const SHELL_KEYS = new Set(['output', 'exitCode', 'cancelled', 'truncated', 'fullOutputPath'])

/** A result value that is not text or blocks: an object's `output` as text, the rest as JSON. */
function valueHtml(value) {
  if (!isObject(value) || typeof value.output !== 'string') return `<pre class="output result">${escape(json(value))}</pre>`
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !SHELL_KEYS.has(key)))
  const more = Object.keys(rest).length ? `<pre class="output result-more">${escape(json(rest))}</pre>` : ''
  return `<pre class="output result">${escape(value.output.replace(/\n+$/, ''))}</pre>${marksHtml(shellMarks(value))}${more}`
}

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

function partHtml(part) {
  if (part.edit) return editHtml(part.edit)
  if (part.file) return fileHtml(part.file)
  if (part.text !== undefined) return `<pre class="output result">${escape(part.text)}</pre>`
  return valueHtml(part.value)
}

/** A shell command's execution: the command, its result, if it is one; else undefined. */
function shellExecution(call) {
  const args = call.arguments
  if (call.name !== 'bash' || !isObject(args) || typeof args.command !== 'string') return undefined
  if (!isObject(call.result) || typeof call.result.output !== 'string') return undefined
  return { command: args.command, result: call.result }
}

/** A terminal block: the prompt and command, the output; the exit code or cancellation as its status. */
function terminalHtml(call, { command, result }, role) {
  const status = callStatus(call)
  const label = result.cancelled === true ? 'cancelled' : typeof result.exitCode === 'number' ? `exit ${result.exitCode}` : STATUS_LABEL[status]
  const output = result.output.replace(/\n+$/, '')
  const who = role === 'user' ? 'run by the user' : ''
  return `<div class="card tool terminal" data-call-id="${escape(call.id)}" data-status="${status}">
<div class="card-head"><span class="tool-name">${escape(call.name)}</span><span class="subject">${who}</span><span class="status">${escape(label)}</span></div>
<pre class="term"><span class="prompt">$ </span><span class="command">${escape(command)}</span>${output ? `\n<span class="term-output">${escape(output)}</span>` : ''}</pre>
${marksHtml(shellMarks(result).filter((mark) => mark.kind === 'truncated'))}
</div>`
}

/** A call as a card (`role`: the role of the message holding it). */
function callHtml(call, role) {
  const shell = shellExecution(call)
  if (shell) return terminalHtml(call, shell, role)
  const status = callStatus(call)
  const parts = callParts(call).map(partHtml).join('')
  const streams = ['stdout', 'stderr']
    .filter((stream) => call.shellOutput?.[stream])
    .map((stream) => `<div class="label">${stream}</div><pre class="output ${stream}">${escape(call.shellOutput[stream].replace(/^\n+|\n+$/g, ''))}</pre>`)
    .join('')
  const result = parts ? `<div class="label">${status === 'failed' ? 'error' : 'result'}</div>${parts}` : ''
  const args = call.arguments === undefined ? '' : `<details class="args"><summary>arguments</summary><pre>${escape(json(call.arguments))}</pre></details>\n`
  return `<div class="card tool" data-call-id="${escape(call.id)}" data-status="${status}">
<div class="card-head"><span class="tool-name">${escape(call.name)}</span><span class="subject" title="${escape(subject(call))}">${escape(subject(call))}</span><span class="status">${STATUS_LABEL[status]}</span></div>
${args}${streams}${result}
</div>`
}

module.exports = { callHtml }
