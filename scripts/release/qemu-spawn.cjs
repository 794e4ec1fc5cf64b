// Test-only, for an arm64 Node running under qemu-user (scripts/release/test-platforms.mjs
// loads it with `--require`): a test that starts `process.execPath` gets the same Node
// under the same emulator. Without binfmt_misc the kernel cannot run an arm64 program
// itself; `process.execPath` is the arm64 binary, so the spawn is rewritten to
// `qemu-aarch64 -L <sysroot> <node> …`. NODE_OPTIONS carries this file to the child.
'use strict'
const childProcess = require('node:child_process')
const { syncBuiltinESMExports } = require('node:module')

const qemu = process.env.AGENT_CHUNKS_QEMU
const sysroot = process.env.AGENT_CHUNKS_QEMU_SYSROOT
if (!qemu || !sysroot) throw new Error('qemu-spawn.cjs needs AGENT_CHUNKS_QEMU and AGENT_CHUNKS_QEMU_SYSROOT')

for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
  const original = childProcess[name]
  childProcess[name] = function (file, ...rest) {
    if (file !== process.execPath) return original.call(this, file, ...rest)
    // The arguments are optional: (file, options) is (file, [], options).
    const args = Array.isArray(rest[0]) ? rest.shift() : []
    return original.call(this, qemu, ['-L', sysroot, process.execPath, ...args], ...rest)
  }
}
// ES modules that imported `spawnSync` by name see the replacements too.
syncBuiltinESMExports()
