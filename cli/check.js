'use strict'
// Lockstep: the turns a stream folds into against the assistant messages of a history,
// in order. The report names the first difference by its path in the history's messages,
// shows both values (for strings, where they part and the code points there), and the
// stream lines that built the chunk.

const { ABSENT, firstDifference, firstDifferentIndex } = require('./diff')

const WIDTH = 160

/** A value on one line, cut around `at` (a string index) when it is long. */
function show(value, at) {
  if (value === ABSENT) return '(nothing)'
  if (value === undefined) return 'undefined'
  if (typeof value !== 'string') {
    const text = JSON.stringify(value)
    return text.length > WIDTH ? `${text.slice(0, WIDTH - 1)}…` : text
  }
  if (value.length <= WIDTH) return JSON.stringify(value)
  const start = Math.max(0, Math.min(at ?? 0, value.length) - 60)
  const end = Math.min(value.length, start + WIDTH)
  return `${start ? '…' : ''}${JSON.stringify(value.slice(start, end))}${end < value.length ? '…' : ''}`
}

const codePoints = (text, at) =>
  [...text.slice(at, at + 3)].map((ch) => `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join(' ') || 'the end'

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/** Where in the stream the chunk at `chunkPath` (`messages[i].chunks[c]…`) was built. */
function streamLines(origin, path, turn) {
  const chunk = /^messages\[\d+\]\.chunks\[(\d+)\]/.exec(path)
  const lines = chunk && origin.chunks[Number(chunk[1])] ? origin.chunks[Number(chunk[1])] : origin.lines
  const range = lines[0] === lines[1] ? `line ${lines[0]}` : `lines ${lines[0]}–${lines[1]}`
  return `${chunk && origin.chunks[Number(chunk[1])] ? 'this chunk was built by' : 'this turn is'} ${range} (turn ${turn + 1})`
}

function describeCheck(folded, history) {
  // The stream's assistant messages against the history's (a stream of pi's events also
  // carries the user's messages; the history has them anyway).
  const kept = folded.messages.flatMap((message, index) => (message.role === 'assistant' ? [index] : []))
  const stream = { ...folded, messages: kept.map((i) => folded.messages[i]), origins: kept.map((i) => folded.origins[i]) }
  const assistants = history.messages.flatMap((message, index) => (message.role === 'assistant' ? [index] : []))
  const turns = stream.messages.length
  const out = [
    `stream:  ${stream.file} (${stream.format}), ${plural(turns, 'turn')}`,
    `history: ${history.file} (${history.format}), ${plural(history.read ?? history.messages.length, 'message')}, ${assistants.length} from the assistant`,
  ]
  // What the stream's format cannot carry, set aside from the history before comparing.
  if (history.setAside?.length) out.push(`set aside, as ${stream.format} and ${history.format} differ by design:`, ...history.setAside.map((note) => `  ${note}`))
  for (let k = 0; k < Math.max(turns, assistants.length); k++) {
    const index = k < assistants.length ? assistants[k] : history.messages.length + (k - assistants.length)
    const path = `messages[${index}]`
    let difference
    if (k >= turns) difference = { path, left: ABSENT, right: history.messages[index] }
    else if (k >= assistants.length) difference = { path, left: stream.messages[k], right: ABSENT }
    else difference = firstDifference(stream.messages[k].chunks, history.messages[index].chunks, `${path}.chunks`)
    if (!difference) continue
    out.push(`first difference at ${difference.path}`)
    if (turns !== assistants.length) out.push(`  the stream has ${plural(turns, 'turn')}, the history ${plural(assistants.length, 'assistant message')}`)
    const strings = typeof difference.left === 'string' && typeof difference.right === 'string'
    const at = strings ? firstDifferentIndex(difference.left, difference.right) : undefined
    if (difference.order) {
      out.push(`  stream:  keys ${difference.order[0].join(', ')}`, `  history: keys ${difference.order[1].join(', ')}`, '  (the same entries in another order: their JSON differs)')
    } else {
      out.push(`  stream:  ${show(difference.left, at)}`, `  history: ${show(difference.right, at)}`)
    }
    if (strings) out.push(`  the strings part at character ${at}: ${codePoints(difference.left, at)} in the stream, ${codePoints(difference.right, at)} in the history`)
    if (k < turns) out.push(`  ${streamLines(stream.origins[k], difference.path, k)}`)
    if (k < assistants.length) out.push(`  the history has it in message ${index} (id ${history.messages[index].id})`)
    return { agree: false, report: `${out.join('\n')}\n` }
  }
  const chunks = stream.messages.reduce((sum, message) => sum + message.chunks.length, 0)
  out.push(`agree: ${plural(turns, 'turn')} and ${plural(chunks, 'chunk')}, as the history has them`)
  return { agree: true, report: `${out.join('\n')}\n` }
}

module.exports = { describeCheck }
