// The docs name every format of the table: its page under docs/formats/ (whose title names
// the tool and the formats), its row in the README's table and in docs/formats/README.md,
// and its tool in the README's opening paragraph, which says what the package reads.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'

import { NAMES } from './table.mjs'

const read = (path) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
const README = read('README.md')

/** The formats a table's first column names, each in backticks (`sn` / `sn-stream`). */
const tabled = (markdown) =>
  new Set(
    markdown
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .flatMap((line) => [...line.split(' | ')[0].matchAll(/`([\w-]+)`/g)].map((match) => match[1])),
  )

/** Each page of docs/formats/ whose title names formats: `{ page, tool, formats }`. */
const pages = readdirSync(new URL('../docs/formats/', import.meta.url))
  .filter((name) => name.endsWith('.md'))
  .flatMap((page) => {
    // `# Claude Code's live output (`claude-stream`)`: the tool is what comes before a
    // possessive or the formats.
    const title = /^# (.+?) \((`[\w-]+`(?:, `[\w-]+`)*)\)$/m.exec(read(`docs/formats/${page}`))
    if (!title) return []
    return [{ page, tool: title[1].replace(/'s .*$/, '').replace(/^The /, ''), formats: title[2].match(/[\w-]+/g) }]
  })

test('every format has its page under docs/formats/, whose title names it', () => {
  const titled = pages.flatMap((page) => page.formats)
  assert.deepEqual([...titled].sort(), [...new Set(titled)].sort(), 'a format in one title only')
  assert.deepEqual([...titled].sort(), [...NAMES].sort())
})

test('the README\'s table and docs/formats/README.md\'s have a row for every format', () => {
  for (const [file, markdown] of [['README.md', README], ['docs/formats/README.md', read('docs/formats/README.md')]]) {
    const named = tabled(markdown)
    for (const name of NAMES) assert.ok(named.has(name), `${file} has no row for ${name}`)
  }
})

test('the README\'s opening paragraph names the tool of every format, as its page\'s title does', () => {
  const opening = /^It reads (.*?)into one\s+chunk model/ms.exec(README)
  assert.ok(opening, 'the paragraph that says what the package reads')
  const said = opening[1].replace(/\s+/g, ' ').toLowerCase()
  for (const { page, tool } of pages) assert.ok(said.includes(tool.toLowerCase()), `${tool} (docs/formats/${page}) is not in the README's opening paragraph`)
})
