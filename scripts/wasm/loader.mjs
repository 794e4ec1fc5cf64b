// The WebAssembly build of the binding, instantiated at import: the module's bytes are
// inlined by `scripts/wasm/build.mjs`, so a bundler needs no plugin to find them, and
// the instantiation is synchronous, so importing needs no top-level await.
import { instantiate } from './instantiate.mjs'
import bytes from './agent-chunks.wasm'

export default instantiate(bytes)
