'use strict'
// A conversation as text for a terminal: who speaks, thinking dimmed, each tool call with
// its status, arguments and result, errors and notices. Text from the file is shown as
// it is, except what would act on the terminal (control characters) or vanish (a lone
// UTF-16 surrogate), which is shown as an escape.

const { callParts, callStatus } = require('./edits')
const { visible: safe } = require('./text')

const PAINT = { bold: '1', dim: '2', red: '31', green: '32', yellow: '33', blue: '34', magenta: '35', cyan: '36' }

function painter(colour) {
  const paint = {}
  for (const [name, code] of Object.entries(PAINT)) paint[name] = (text) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text)
  return paint
}


const json = (value, pretty) => (value === undefined ? 'undefined' : JSON.stringify(value, null, pretty ? 2 : undefined))

/** A value as lines: a string as its lines, else JSON (on one line when short). */
function valueLines(value) {
  if (typeof value === 'string') return value.replace(/\r?\n$/, '').split(/\r?\n/)
  const compact = json(value)
  return (compact.length <= 100 ? compact : json(value, true)).split('\n')
}

const STATUS_PAINT = { completed: 'green', failed: 'red', in_progress: 'yellow' }
const STATUS_WORD = { completed: 'completed', failed: 'failed', in_progress: 'no result' }

function renderText(messages, { colour = false, full = false, title } = {}) {
  const paint = painter(colour)
  const out = []
  const limit = full ? Infinity : 12
  /** `lines` under a `label` column, cut to `limit` lines unless `full`. */
  const block = (label, lines, style = (text) => text, indent = '    ') => {
    const shown = lines.slice(0, limit)
    shown.forEach((line, i) => {
      const head = i === 0 ? label.padEnd(8) : ' '.repeat(8)
      out.push(`${indent}${paint.dim(head)}${style(safe(line))}`)
    })
    if (lines.length > shown.length) out.push(`${indent}${' '.repeat(8)}${paint.dim(`… ${lines.length - shown.length} more lines (--full shows all)`)}`)
  }
  const editLines = (edit) => {
    const styles = { '-': paint.red, '+': paint.green, '@': paint.cyan, file: paint.bold, ' ': (text) => text }
    const lines = [...edit.lines]
    if (edit.path) lines.unshift({ op: 'file', text: edit.path })
    const shown = lines.slice(0, limit)
    shown.forEach(({ op, text }, i) => out.push(`    ${paint.dim((i === 0 ? 'diff' : '').padEnd(8))}${styles[op](safe(text))}`))
    if (lines.length > shown.length) out.push(`    ${' '.repeat(8)}${paint.dim(`… ${lines.length - shown.length} more lines (--full shows all)`)}`)
  }

  if (title) out.push(paint.dim(title), '')
  for (const message of messages) {
    const roleStyle = message.role === 'user' ? paint.cyan : message.role === 'assistant' ? paint.magenta : paint.yellow
    out.push(`${paint.bold(roleStyle(message.role))} ${paint.dim(`· ${safe(message.id)}`)}`)
    for (const chunk of message.chunks) renderChunk(chunk)
    out.push('')
  }
  return out.join('\n')

  function renderChunk(chunk) {
    switch (chunk?.type) {
      case 'text':
        for (const line of chunk.text.split(/\r?\n/)) out.push(`  ${safe(line)}`)
        break
      case 'thinking':
        out.push(`  ${paint.dim(`✻ thinking${chunk.metadata ? ` · signed (${Object.keys(chunk.metadata).join(', ')})` : ''}`)}`)
        for (const line of chunk.text.split(/\r?\n/)) out.push(`    ${paint.dim(safe(line))}`)
        break
      case 'tool-batch':
        for (const call of chunk.calls ?? []) renderCall(call)
        break
      case 'error':
        out.push(`  ${paint.red(`✖ error${chunk.statusCode === undefined ? '' : ` ${chunk.statusCode}`} · ${safe(chunk.message)}`)}`)
        break
      case 'system':
        out.push(`  ${paint.yellow(`ⓘ ${chunk.kind} · ${safe(chunk.text)}`)}`)
        break
      case 'file': {
        const where = typeof chunk.url === 'string' ? chunk.url : `${typeof chunk.data === 'string' ? chunk.data.length : 0} characters of base64`
        out.push(`  ${paint.dim(`▣ ${safe(String(chunk.mediaType))}${typeof chunk.filename === 'string' ? ` ${safe(chunk.filename)}` : ''} · ${safe(where)}`)}`)
        break
      }
      default:
        out.push(`  ${paint.dim(`(a chunk of another type: ${safe(json(chunk))})`)}`)
    }
  }

  function renderCall(call) {
    const status = callStatus(call)
    out.push(`  ${paint.bold(`⚙ ${safe(call.name)}`)} ${paint.dim(`· ${safe(call.id)} ·`)} ${paint[STATUS_PAINT[status]](STATUS_WORD[status])}`)
    block('args', valueLines(call.arguments), paint.dim)
    if (call.shellOutput?.stdout) block('stdout', valueLines(call.shellOutput.stdout))
    if (call.shellOutput?.stderr) block('stderr', valueLines(call.shellOutput.stderr), paint.red)
    let labelled = false
    for (const part of callParts(call)) {
      if (part.edit) {
        editLines(part.edit)
        continue
      }
      const lines = part.text !== undefined ? valueLines(part.text) : valueLines(part.value)
      block(labelled ? '' : 'result', lines, status === 'failed' ? paint.red : undefined)
      labelled = true
    }
  }
}

module.exports = { renderText }
