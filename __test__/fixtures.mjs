// Reading the recorded streams under examples/: NDJSON gateway events and SSE frames.
import { readFileSync } from 'node:fs'

const example = (name) => new URL(`../examples/${name}`, import.meta.url)

export const readExample = (name) => readFileSync(example(name))

/** NDJSON: one JSON value per non-blank line. */
export function readNdjson(name) {
  return readFileSync(example(name), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
}

/** SSE: frames separated by a blank line, each `data: <json>`. */
export function readSse(name) {
  return readFileSync(example(name), 'utf8')
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => JSON.parse(frame.replace(/^data: /, '')))
}

/** Splits a list at the items `isEnd` accepts (each end closes its part). */
export function splitAfter(items, isEnd) {
  const parts = [[]]
  for (const item of items) {
    parts.at(-1).push(item)
    if (isEnd(item)) parts.push([])
  }
  return parts.filter((part) => part.length)
}

/** Deep-frozen copy, to prove inputs are not touched. */
export function frozen(value) {
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) frozen(value[key])
    Object.freeze(value)
  }
  return value
}
