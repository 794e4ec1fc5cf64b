// `node:test` for a page: test files register their tests here and `run` runs them in
// order, as `node --test` does, reporting each result.
const registered = []

export default function test(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options]
  registered.push({ name, skip: options?.skip, fn })
}

export async function run(report) {
  for (const { name, skip, fn } of registered) {
    if (skip) {
      report({ name, skipped: String(skip) })
      continue
    }
    const started = performance.now()
    try {
      await fn()
      report({ name, ok: true, ms: performance.now() - started })
    } catch (error) {
      report({ name, ok: false, error: String(error?.stack ?? error) })
    }
  }
}
