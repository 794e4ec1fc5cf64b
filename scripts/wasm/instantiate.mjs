// Instantiates the WebAssembly build of the binding from its bytes, synchronously: the
// same for the browser module (bytes inlined) and the Node fallback (bytes from a file).
import { instantiateNapiModuleSync } from '@emnapi/core'
import { asyncWork, tsfn } from '@emnapi/core/plugins'
import { getDefaultContext } from '@emnapi/runtime'
import { WASI } from '@tybys/wasm-util'

/** @param {BufferSource | WebAssembly.Module} bytes */
export function instantiate(bytes) {
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
        if (name.startsWith('__napi_register__')) /** @type {Function} */ (instance.exports[name])()
      }
    },
  })
  return napiModule.exports
}
