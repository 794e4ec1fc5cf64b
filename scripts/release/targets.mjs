// The platforms a release builds, one package each under `npm/<platform>/` (written by
// `napi create-npm-dirs` from `napi.targets` in package.json; the loader, index.js, asks
// for `agent-chunks-<platform>`).
//
// `rust` is the target rustc builds for. It differs from the napi target once: Windows is
// built with the MinGW toolchain (`x86_64-pc-windows-gnu`, the only Windows linker Debian
// has) but published as `win32-x64-msvc`, the package the loader asks for under Node's own
// Windows builds. The ABI between the two is N-API's C ABI, which both keep; the binary
// imports only Windows' system DLLs (see check.mjs).
export const TARGETS = [
  { platform: 'linux-x64-gnu', napi: 'x86_64-unknown-linux-gnu', rust: 'x86_64-unknown-linux-gnu', format: 'elf' },
  { platform: 'linux-arm64-gnu', napi: 'aarch64-unknown-linux-gnu', rust: 'aarch64-unknown-linux-gnu', format: 'elf' },
  { platform: 'linux-x64-musl', napi: 'x86_64-unknown-linux-musl', rust: 'x86_64-unknown-linux-musl', format: 'elf' },
  { platform: 'darwin-x64', napi: 'x86_64-apple-darwin', rust: 'x86_64-apple-darwin', format: 'macho' },
  { platform: 'darwin-arm64', napi: 'aarch64-apple-darwin', rust: 'aarch64-apple-darwin', format: 'macho' },
  { platform: 'win32-x64-msvc', napi: 'x86_64-pc-windows-msvc', rust: 'x86_64-pc-windows-gnu', format: 'pe' },
]

/** The targets named on the command line (by platform or rust target), or all of them. */
export function selectTargets(names) {
  if (names.length === 0) return TARGETS
  return names.map((name) => {
    const target = TARGETS.find((t) => t.platform === name || t.rust === name || t.napi === name)
    if (!target) throw new Error(`unknown platform ${name}; known: ${TARGETS.map((t) => t.platform).join(', ')}`)
    return target
  })
}

/** The file name napi-rs gives the binary of a platform package. */
export const binaryName = (target) => `agent-chunks.${target.platform}.node`
