// `npm test` drives headless Chromium (the page `view` writes, the WebAssembly build in a
// browser): Debian's package, installed with apt-get when it is missing.
import { existsSync } from 'node:fs'
import { ensurePackages } from './wasm/toolchain.mjs'

export const CHROMIUM = '/usr/bin/chromium'

ensurePackages(['chromium'], () => (existsSync(CHROMIUM) ? [] : [CHROMIUM]), 'Testing in a browser')
