// The WebAssembly fallback in Node: what the generated `index.js` loads (napi-rs's WASI
// candidates, `./agent-chunks.wasi.cjs` or the package `agent-chunks-wasm32-wasi`) when
// no native addon loads on this platform. `scripts/wasm/build.mjs` bundles it into
// `agent-chunks.wasi.cjs`, which reads `agent-chunks.wasm32-wasi.wasm` next to it.
//
// Hand-written rather than napi-rs's generated `wasi.cjs`: that one needs the threads
// build (`wasm32-wasip1-threads`, which Debian's wasi-libc cannot link), runs it on
// `node:wasi` (an experimental module that warns when loaded) and needs
// `@napi-rs/wasm-runtime` installed beside it; this one is the browser module's
// instantiation, with no dependency, plus what only Node has: the choice of binding,
// the warning, and files read by path.
'use strict'
const { readFileSync } = require('node:fs')
const { readFile } = require('node:fs/promises')
const { join } = require('node:path')
const { instantiate } = require('./instantiate.mjs')

// AGENT_CHUNKS_BINDING: `native` refuses this fallback (loading then fails with the native
// addon's own error), `wasm` chooses it (the native addon steps aside) without a warning.
const choice = process.env.AGENT_CHUNKS_BINDING
if (choice === 'native') {
  throw new Error('agent-chunks: AGENT_CHUNKS_BINDING=native, so the WebAssembly build is not loaded')
}
const chosen = choice === 'wasm' || process.env.NAPI_RS_FORCE_WASI === 'true' || process.env.NAPI_RS_FORCE_WASI === 'error'

const binding = instantiate(readFileSync(join(__dirname, 'agent-chunks.wasm32-wasi.wasm')))

// WebAssembly has no file system here (`node:wasi` could give it one, but is experimental
// and warns): a file path is read in JavaScript and its bytes passed on, after the other
// arguments were checked exactly as the native addon checks them (with no bytes, so a
// bad format throws before the file is touched).
const NO_BYTES = new Uint8Array(0)
const OS_ERRORS = { ENOENT: 'No such file or directory (os error 2)', EACCES: 'Permission denied (os error 13)', EISDIR: 'is a directory' }
function readError(what, path, error) {
  const reason = OS_ERRORS[error.code] ?? error.message
  return Object.assign(new Error(`${what}: cannot read ${path}: ${reason}`), { code: error.code })
}
const { loadHistory, loadHistorySync } = binding
binding.loadHistorySync = function (source, format, options) {
  if (typeof source !== 'string') return loadHistorySync(source, format, options)
  try {
    loadHistorySync(NO_BYTES, format, options)
  } catch (error) {
    if (error instanceof TypeError) throw error
  }
  let bytes
  try {
    bytes = readFileSync(source)
  } catch (error) {
    throw readError('loadHistorySync', source, error)
  }
  return loadHistorySync(bytes, format, options)
}
binding.loadHistory = function (source, format, options) {
  if (typeof source !== 'string') return loadHistory(source, format, options)
  const checked = loadHistory(NO_BYTES, format, options)
  checked.catch(() => {})
  const signal = options?.signal
  if (signal?.aborted) return checked
  return readFile(source, { signal }).then(
    (bytes) => loadHistory(bytes, format, options),
    (error) => {
      throw signal?.aborted ? signal.reason : readError('loadHistory', source, error)
    },
  )
}

// What loaded, as the generated loader reports it (it keeps a value already there).
Object.defineProperty(binding, '__napiBindingTarget', {
  configurable: true,
  enumerable: true,
  value: 'wasm32-wasi',
  writable: true,
})

if (!chosen) {
  console.warn(
    `agent-chunks: no native addon loaded for ${process.platform}-${process.arch}; using the WebAssembly build ` +
      '(slower; AGENT_CHUNKS_BINDING=wasm chooses it without this warning, =native refuses it)',
  )
}

module.exports = binding
