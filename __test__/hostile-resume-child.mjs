// Run by hostile-resume.test.mjs in a child process: takes states of every stream format
// at random frame boundaries (some after a UI stream was written), mutates their fold,
// UI writer and skipped parts, or the messages they go with, at random, goes on from them,
// and prints how each round ended: `{ rounds, outcomes: { resumed | "Class: message" → n } }`.
import { readFileSync } from 'node:fs'

import { Conversation, foldStream } from '../index.js'
import { STREAM_SAMPLES } from './table.mjs'

// One sample of every stream format.
const samples = Object.fromEntries(Object.entries(STREAM_SAMPLES).map(([format, path]) => [format, readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')]))
const rounds = Number(process.argv[2] ?? 1000)

let seed = 20261125
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
const pick = (items) => items[Math.floor(random() * items.length)]
const odd = [-1, 0, 1, 2, 7, 1e9, 2 ** 32 - 1, 2 ** 32, 0.5, 'x', '', '\uD800', null, true, [], {}, [0], ['text', 'x', 99], { a: 1 }]

/** `value` with some of its members replaced, dropped or added. */
function mutate(value) {
  if (Array.isArray(value)) {
    if (random() < 0.2) return pick(odd)
    const copy = value.map((item) => (random() < 0.3 ? mutate(item) : item))
    if (random() < 0.2) copy.pop()
    if (random() < 0.1) copy.push(pick(odd))
    return copy
  }
  if (value && typeof value === 'object') {
    if (random() < 0.1) return pick(odd)
    const copy = {}
    for (const [key, inner] of Object.entries(value)) {
      if (random() < 0.1) continue
      copy[key] = random() < 0.4 ? mutate(inner) : inner
    }
    if (random() < 0.1) copy[pick(['open', 'parts', 'calls', 'messageId', 'chunk'])] = pick(odd)
    return copy
  }
  return random() < 0.5 ? pick(odd) : value
}

const frames = (text) => {
  const separator = text.includes('\n\n') ? '\n\n' : '\n'
  return text
    .split(separator)
    .filter(Boolean)
    .map((frame) => frame + separator)
}

const outcomes = {}
const count = (key) => (outcomes[key] = (outcomes[key] ?? 0) + 1)
for (let round = 0; round < rounds; round++) {
  const format = pick(Object.keys(samples))
  const all = frames(samples[format])
  const at = Math.floor(random() * (all.length + 1))
  const folded = foldStream(all.slice(0, at).join(''), { format })
  const first = new Conversation({ format, messages: folded.messages, resume: folded.resume })
  if (random() < 0.5) first.toUIMessageChunks()
  const resume = { ...first.resume }
  let messages = structuredClone(folded.messages)
  const part = pick(['fold', 'fold', 'ui', 'ui', 'skipped', 'messages'])
  if (part === 'messages') messages = messages.map((message) => (random() < 0.5 ? { ...message, chunks: mutate(message.chunks) } : message))
  else resume[part] = mutate(resume[part])
  try {
    const live = new Conversation({ format, messages, resume })
    for (const frame of all.slice(at)) {
      try {
        live.push(frame)
      } catch (error) {
        // A frame the mutated state makes unreadable is an Error with its line, and the
        // conversation goes on; any other failure is a finding.
        if (error?.constructor !== Error || error.line === undefined) throw error
      }
      if (random() < 0.3) live.toUIMessageChunks()
    }
    live.end()
    live.toUIMessageStream()
    JSON.stringify(live.resume)
    count('resumed')
  } catch (error) {
    count(`${error?.constructor?.name}: ${String(error?.message).replace(/\d+/g, 'N')}`)
  }
}
process.stdout.write(JSON.stringify({ rounds, outcomes }))
