// The size table of docs/browser.md, from what `npm run build:wasm` measured
// (`target/wasm/size.json`): the build writes it there when a figure drifted by more
// than `DRIFT`, and `__test__/browser-exports.test.mjs` checks it against the build.
// Between those, small changes of the binary leave the page as it is.

export const DRIFT = 0.05

const START = '<!-- size table: written by npm run build:wasm (scripts/wasm/size-table.mjs) -->'
const END = '<!-- end of size table -->'

const kib = (bytes) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`

/** The table, as markdown, for `size` (size.json's fields). */
export function sizeTable(size) {
  return [
    START,
    '| file | raw | gzip |',
    '| --- | --- | --- |',
    `| \`agent-chunks.wasm32-wasip1.wasm\` (in \`target/wasm/\`) | ${kib(size.wasm)} | ${kib(size.wasmGzip)} |`,
    `| \`browser.mjs\` (the module: loader, emnapi, the bytes in base64) | ${kib(size.module)} | ${kib(size.moduleGzip)} |`,
    END,
  ].join('\n')
}

/** The figures of the table in `page` (bytes, to the KiB), or null when it has none. */
export function tableIn(page) {
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start === -1 || end < start) return null
  const figures = [...page.slice(start, end).matchAll(/([\d,]+) KiB/g)].map((m) => Number(m[1].replaceAll(',', '')) * 1024)
  if (figures.length !== 4) return null
  const [wasm, wasmGzip, module, moduleGzip] = figures
  return { wasm, wasmGzip, module, moduleGzip }
}

/** The fields of `size` that the table in `page` is more than DRIFT away from. */
export function drifted(page, size) {
  const table = tableIn(page)
  const fields = ['wasm', 'wasmGzip', 'module', 'moduleGzip']
  if (!table) return fields
  return fields.filter((field) => Math.abs(table[field] - size[field]) > DRIFT * size[field])
}

/** `page` with its table written for `size`. */
export function withTable(page, size) {
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start === -1 || end < start) throw new Error(`docs/browser.md has no size table (${START})`)
  return page.slice(0, start) + sizeTable(size) + page.slice(end + END.length)
}
