// The hostile-caller suite in the page served with a Content Security Policy that forbids
// code from text: there the drop-in writes through built-ins, and every refused write must
// still throw, with the caller's data unchanged.
import { run } from './node-test-api.mjs'
import '../hostile-dropin.test.mjs'

const results = []
globalThis.cspSuiteResults = results
globalThis.cspSuiteDone = new Promise((resolve) => setTimeout(resolve, 0)).then(() => run((result) => results.push(result)))
