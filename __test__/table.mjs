// The table of formats as the tests name it: its rows (`formats()`), the lists of names the
// library's and the command's messages spell out, and the example recordings of each row,
// told by detection. A format added to the table, with its examples under examples/, is in
// every list here without a word of the tests that use them changed.
import { readdirSync, readFileSync } from 'node:fs'

import { detectFormat, formats } from '../index.js'

const TABLE = formats()

/** Every format's name, in the table's order (the order the messages list them in). */
export const NAMES = TABLE.map((format) => format.name)
/** The formats `foldStream` and `Conversation` take. */
export const STREAMS = TABLE.filter((format) => format.stream).map((format) => format.name)
/** The formats `readHistory` and `loadHistory` take. */
export const HISTORIES = TABLE.filter((format) => format.history).map((format) => format.name)

/** The formats `writeMessages` writes (`agent-chunks convert --to`). */
export const WRITTEN = TABLE.filter((format) => format.write).map((format) => format.name)

/** `names` as a message lists them: `'a', 'b'` (the library's), or `a, b` with `quote` ''. */
export const listed = (names, quote = "'") => names.map((name) => `${quote}${name}${quote}`).join(', ')

/** `text` matched literally inside a RegExp. */
export const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const examplesFolder = new URL('../examples/', import.meta.url)

/**
 * Every sample file under examples/ (the live page's folder is an app, not a sample), as
 * `{ path: 'examples/<name>', format }`, its format detected from its first lines, in name
 * order.
 */
export const EXAMPLES = readdirSync(examplesFolder, { withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => entry.name)
  .sort()
  .map((name) => ({ path: `examples/${name}`, format: detectFormat(readFileSync(new URL(name, examplesFolder))).format }))

/** The examples of the stream formats: every recording a live fold is tested on. */
export const STREAM_EXAMPLES = EXAMPLES.filter((example) => STREAMS.includes(example.format)).map((example) => example.path)

/**
 * One example per stream format, `{ format: path }` in the table's order: the smallest, for
 * the tests that go over every cut of a recording.
 */
export const STREAM_SAMPLES = Object.fromEntries(
  STREAMS.flatMap((format) => {
    const sizes = EXAMPLES.filter((example) => example.format === format).map((example) => [
      readFileSync(new URL(`../${example.path}`, import.meta.url)).length,
      example.path,
    ])
    sizes.sort((a, b) => a[0] - b[0])
    return sizes.length ? [[format, sizes[0][1]]] : []
  }),
)
