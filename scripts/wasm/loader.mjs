// The WebAssembly build of the binding, instantiated at import: the module's bytes are
// inlined by `scripts/wasm/build.mjs`, so a bundler needs no plugin to find them, and
// the instantiation is synchronous, so importing needs no top-level await.
import { instantiateNapiModuleSync } from '@emnapi/core'
import { asyncWork, tsfn } from '@emnapi/core/plugins'
import { getDefaultContext } from '@emnapi/runtime'
import { WASI } from '@tybys/wasm-util'
import bytes from './agent-chunks.wasm'

const wasi = new WASI({ version: 'preview1' })

// 256 pages (16 MiB) to start; the module grows it as histories need, up to 4 GiB.
const memory = new WebAssembly.Memory({ initial: 256, maximum: 65536 })

const { napiModule } = instantiateNapiModuleSync(bytes, {
  context: getDefaultContext(),
  wasi,
  asyncWorkPoolSize: 0,
  overwriteImports(imports) {
    imports.env = { ...imports.env, ...imports.napi, ...imports.emnapi, memory }
    return imports
  },
  plugins: [asyncWork, tsfn],
  // napi-rs registers each export through a function of its own (no constructors run
  // in WebAssembly); they must run before the module's exports are made.
  beforeInit({ instance }) {
    for (const name of Object.keys(instance.exports)) {
      if (name.startsWith('__napi_register__')) instance.exports[name]()
    }
  },
})

export default napiModule.exports
