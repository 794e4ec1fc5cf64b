// Installs one version of an agent from the npm registry into a cache folder of its own,
// outside the repository's tracked files, once: later runs reuse it.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export const CACHE = process.env.AGENT_CHUNKS_LAB_CACHE || join(homedir(), '.cache', 'agent-chunks-lab')

/** The folder a package version installs into. */
export function installDir(pkg, version) {
  return join(CACHE, 'agents', `${pkg.replace('/', '+')}@${version}`)
}

/**
 * Installs `pkg@version` (scripts run: some versions fetch their native binary from a
 * platform package in postinstall) and returns the path of its `bin` entry `binName`.
 * A failed install is remembered in `install-failed.txt` so the matrix does not retry it.
 */
export function install(pkg, version, binName) {
  const dir = installDir(pkg, version)
  const done = join(dir, 'installed.json')
  const failed = join(dir, 'install-failed.txt')
  if (existsSync(failed) && !process.env.AGENT_CHUNKS_LAB_RETRY) {
    return { ok: false, error: readFileSync(failed, 'utf8') }
  }
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'lab-agent', private: true }) + '\n')
    const npm = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', `${pkg}@${version}`],
      { cwd: dir, encoding: 'utf8', timeout: 15 * 60_000 },
    )
    if (npm.status !== 0) {
      const error = `npm install ${pkg}@${version} failed (${npm.status ?? npm.signal}):\n${npm.stderr}`
      writeFileSync(failed, error)
      return { ok: false, error }
    }
    writeFileSync(done, JSON.stringify({ pkg, version, at: new Date().toISOString() }) + '\n')
  }
  if (!binName) return { ok: true, bin: '', dir }
  const bin = join(dir, 'node_modules', '.bin', binName)
  if (!existsSync(bin)) return { ok: false, error: `${pkg}@${version} has no bin ${binName}` }
  return { ok: true, bin, dir }
}

/** Node versions, by major, that a tool may need newer than the lab's own. */
const NODE = { 24: '24.9.0' }

/**
 * A Node binary from the npm registry (the `node-<platform>-<arch>` packages ship it), for
 * tools that refuse the Node the lab runs on. Returns the folder to put first in PATH.
 */
export function installNode(major) {
  const version = NODE[major]
  if (!version) return { ok: false, error: `no Node ${major} known to the lab` }
  const pkg = `node-${process.platform}-${process.arch}`
  const r = install(pkg, version, '')
  if (!r.ok) return r
  const bin = join(r.dir, 'node_modules', pkg, 'bin')
  if (!existsSync(join(bin, 'node'))) return { ok: false, error: `${pkg}@${version} has no bin/node` }
  return { ok: true, bin, version }
}
