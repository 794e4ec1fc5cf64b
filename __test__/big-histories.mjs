// Large histories in every format, made by repeating the examples' items (with fresh ids
// and times), for the tests and the soak that load, abort and tear down at random moments.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const example = (name) => readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8')
const lines = (text) => text.split('\n').filter((line) => line.trim())

/** Repeats `make(round)` (a list of lines) until the text reaches `bytes`. */
function grow(bytes, make) {
  const out = []
  let size = 0
  for (let round = 0; size < bytes; round++) {
    for (const line of make(round)) {
      out.push(line)
      size += line.length + 1
    }
  }
  return out
}

/** Writes one history per format of about `bytes` bytes into `dir`; returns their paths. */
export function writeBigHistories(dir, bytes) {
  const events = lines(example('demo-stream.ndjson'))
  const acp = lines(example('acp-session.ndjson'))
  const sn = JSON.parse(example('sn-history.json'))
  const chatviewer = JSON.parse(example('chatviewer.json'))
  const files = {
    events: grow(bytes, (round) => [JSON.stringify({ type: 'turn-start', turnId: `t${round}` }), ...events]).join('\n'),
    acp: grow(bytes, () => acp).join('\n'),
    pi: grow(bytes, (round) => [
      JSON.stringify({ role: 'user', content: [{ type: 'text', text: `question ${round} 🧪` }] }),
      JSON.stringify({
        role: 'assistant',
        provider: 'anthropic',
        content: [
          { type: 'thinking', thinking: `thinking about ${round}`, thinkingSignature: `sig${round}` },
          { type: 'text', text: 'an answer, '.repeat(40) },
          { type: 'toolCall', id: `c${round}`, name: 'read', arguments: { path: `f${round}` } },
        ],
      }),
    ]).join('\n'),
    // One JSON array, one element per line, as the examples are.
    sn: `[\n${grow(bytes, (round) => sn.map((thought) => JSON.stringify({ ...thought, id: `${thought.id}-${round}` }))).join(',\n')}\n]\n`,
    chatviewer: `[\n${grow(bytes, (round) =>
      chatviewer.map((row, i) => JSON.stringify({ ...row, uuid: `${row.uuid}-${round}`, timestamp: Date.UTC(2025, 0, 1) + round * 1000 + i })),
    ).join(',\n')}\n]\n`,
  }
  return Object.fromEntries(
    Object.entries(files).map(([format, text]) => {
      const file = join(dir, `big-${format}`)
      writeFileSync(file, text)
      return [format, file]
    }),
  )
}
