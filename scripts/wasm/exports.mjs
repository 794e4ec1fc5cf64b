// The names the package exports, one list for its two entries: the generated index.js
// (Node) assigns each to `module.exports`, and browser.mjs (bundlers' `browser`
// condition) exports the same as `export const`.

/** The names index.js exports, in its order. */
export function exportedNames(indexJs) {
  return [...indexJs.matchAll(/^module\.exports\.([A-Za-z_$][\w$]*) = /gm)].map((m) => m[1])
}

/** The binding's hooks for the package's own tests, reached through the default export only. */
export const TEST_HOOK = /^__\w+ForTest$/
