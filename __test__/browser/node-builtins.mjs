// What the tests that also run in the browser take from Node, made of the platform's own
// parts: `Buffer.from` of text or bytes (a Uint8Array), `setImmediate`, `randomUUID`,
// and the garbage collector Chromium exposes with `--js-flags=--expose-gc`.
export const Buffer = {
  from(value) {
    return typeof value === 'string' ? new TextEncoder().encode(value) : Uint8Array.from(value)
  },
}
export const setImmediate = (fn, ...args) => setTimeout(fn, 0, ...args)
export const randomUUID = () => crypto.randomUUID()
export const setFlagsFromString = () => {}
export const runInNewContext = (code) => {
  if (code !== 'gc' || typeof globalThis.gc !== 'function') throw new Error(`runInNewContext(${code}) is not in the page`)
  return globalThis.gc
}
// A page has no files: a test that reads one fails, saying so.
export const readFileSync = (path) => {
  throw new Error(`readFileSync(${path}): a page has no file system`)
}
