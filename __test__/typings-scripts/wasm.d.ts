// scripts/wasm/loader.mjs imports the module's bytes; esbuild's `binary` loader makes
// them a Uint8Array when scripts/wasm/build.mjs bundles it.
declare module '*.wasm' {
  const bytes: Uint8Array
  export default bytes
}
