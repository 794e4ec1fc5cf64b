// The part of `node:assert/strict` the tests that also run in the browser use, with the
// same meaning (strict equality and strict deep equality).
class AssertionError extends Error {
  name = 'AssertionError'
}

const show = (value) => {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))?.slice(0, 300) ?? String(value)
  } catch {
    return String(value)
  }
}

function fail(message, detail) {
  throw message instanceof Error ? message : new AssertionError(message ?? detail)
}

function ownKeys(object) {
  return Reflect.ownKeys(object).filter((key) => Object.prototype.propertyIsEnumerable.call(object, key))
}

/** `assert.deepStrictEqual`'s rules: prototypes, own enumerable keys, `Object.is`. */
function deepEqual(a, b, seen = new Map()) {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  if (seen.get(a) === b) return true
  seen.set(a, b)
  if (a instanceof Date) return a.getTime() === b.getTime()
  if (a instanceof RegExp) return String(a) === String(b)
  if (ArrayBuffer.isView(a)) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
  }
  if (a instanceof Map) {
    if (a.size !== b.size) return false
    for (const [key, value] of a) if (!b.has(key) || !deepEqual(value, b.get(key), seen)) return false
  }
  if (a instanceof Set) {
    if (a.size !== b.size) return false
    for (const value of a) if (!b.has(value)) return false
  }
  if (Array.isArray(a) && a.length !== b.length) return false
  const keys = ownKeys(a)
  const other = ownKeys(b)
  if (keys.length !== other.length) return false
  for (const key of keys) {
    if (!Object.prototype.propertyIsEnumerable.call(b, key)) return false
    if (!deepEqual(a[key], b[key], seen)) return false
  }
  return true
}

function matches(error, expected) {
  if (expected === undefined) return true
  if (typeof expected === 'function' && expected.prototype !== undefined && error instanceof expected) return true
  if (typeof expected === 'function' && expected.prototype === undefined) return expected(error) === true
  if (expected instanceof RegExp) return expected.test(String(error?.message ?? error))
  if (typeof expected === 'object') {
    return Object.keys(expected).every((key) =>
      expected[key] instanceof RegExp ? expected[key].test(error?.[key]) : Object.is(error?.[key], expected[key]),
    )
  }
  if (typeof expected === 'function') return expected(error) === true
  return false
}

const assert = {
  AssertionError,
  ok(value, message) {
    if (!value) fail(message, `expected a truthy value, got ${show(value)}`)
  },
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) fail(message, `${show(actual)} !== ${show(expected)}`)
  },
  notEqual(actual, expected, message) {
    if (Object.is(actual, expected)) fail(message, `${show(actual)} === ${show(expected)}`)
  },
  deepEqual(actual, expected, message) {
    if (!deepEqual(actual, expected)) fail(message, `not deeply equal:\n${show(actual)}\n${show(expected)}`)
  },
  deepStrictEqual(actual, expected, message) {
    if (!deepEqual(actual, expected)) fail(message, `not deeply equal:\n${show(actual)}\n${show(expected)}`)
  },
  match(text, pattern, message) {
    if (!pattern.test(text)) fail(message, `${show(text)} does not match ${pattern}`)
  },
  fail(message) {
    fail(message, 'failed')
  },
  throws(fn, expected, message) {
    try {
      fn()
    } catch (error) {
      if (!matches(error, expected)) fail(message, `unexpected error: ${error?.stack ?? error}`)
      return
    }
    fail(message, 'missing expected exception')
  },
}

export default assert
