// The page's test suite: test files written for `node --test`, run against the package as
// a bundler resolves it for a browser (the WebAssembly build).
import { run } from './node-test-api.mjs'
import '../differential.test.mjs'
import '../bytes.test.mjs'
import '../drop-in.test.mjs'
import '../bad-input.test.mjs'
import '../timeline.test.mjs'

const results = []
globalThis.suiteResults = results
// After the page has loaded: the suites take seconds and would hold the load event back.
globalThis.suiteDone = new Promise((resolve) => setTimeout(resolve, 0)).then(() => run((result) => results.push(result)))
