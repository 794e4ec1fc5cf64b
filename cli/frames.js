'use strict'
// Recorded streams as JSON values with their line numbers (CRLF, LF and CR each end a
// line; `decode` drops a leading BOM): NDJSON (one value per non-blank line) or
// Server-Sent Events (`data:` lines up to a blank line, joined with
// `\n`; `event:`, `id:`, `retry:` and `:` comment lines carry nothing), as the native
// framer reads them.

const { firstNonBlankLine, parseJson } = require('./text')

const SSE_LINE = /^(data|event|id|retry):|^:/

/** `sse` when the first non-blank line is an SSE field or comment, else `ndjson`. */
function framingOf(text) {
  const first = firstNonBlankLine(text)
  return first && SSE_LINE.test(first.text) ? 'sse' : 'ndjson'
}

/** Where the line starting at `offset` ends, and where the next one starts: CRLF, LF and CR each end a line. */
function lineEnd(text, offset) {
  LINE_END.lastIndex = offset
  const found = LINE_END.exec(text)
  return found ? [found.index, found.index + found[0].length] : [text.length, text.length + 1]
}
const LINE_END = /\r\n|\r|\n/g

/** Each frame's JSON text: `{ json, line, offset }` (line and offset of its first line). */
function* frames(text, framing = framingOf(text)) {
  let frame
  let offset = 0
  for (let line = 1; offset <= text.length; line++) {
    const [end, next] = lineEnd(text, offset)
    const content = text.slice(offset, end)
    if (framing === 'ndjson') {
      if (content.trim()) yield { json: content, line, offset }
    } else if (!content) {
      if (frame) yield frame
      frame = undefined
    } else if (content === 'data' || content.startsWith('data:')) {
      const data = content.slice(content[5] === ' ' ? 6 : 5)
      if (frame) frame.json += `\n${data}`
      else frame = { json: data, line, offset }
    }
    offset = next
  }
  if (frame) yield frame
}

/** Each frame parsed: `{ value, line, offset }`; bad JSON is an error at its line. */
function* values(text, framing) {
  for (const frame of frames(text, framing)) {
    yield { value: parseJson(frame.json, frame.line), line: frame.line, offset: frame.offset }
  }
}

module.exports = { frames, values }
