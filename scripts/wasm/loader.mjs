// The WebAssembly build of the binding, instantiated at import: the module's bytes are
// inlined by `scripts/wasm/build.mjs`, so a bundler needs no plugin to find them, and
// the instantiation is synchronous, so importing needs no top-level await.
import { instantiate } from './instantiate.mjs'
import bytes from './agent-chunks.wasm'

const binding = instantiate(bytes)

// Which build loaded, as `index.d.ts` declares it and the generated `index.js` reports
// it in Node: this one is built for wasm32-wasip1.
Object.defineProperty(binding, '__napiBindingTarget', {
  configurable: true,
  enumerable: true,
  value: 'wasm32-wasip1',
  writable: true,
})

export default binding
