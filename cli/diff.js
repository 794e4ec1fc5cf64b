'use strict'
// The first place two JSON-like values differ, as a path (`messages[1].chunks[2].text`).
// Key order counts: the chunk model promises byte-identical JSON, so two objects with the
// same entries in another order are reported too.

const ABSENT = Symbol('absent')

const kindOf = (value) => {
  if (value === ABSENT) return 'absent'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** `path` extended by a key or an index. */
function step(path, key) {
  if (typeof key === 'number') return `${path}[${key}]`
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`
}

const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key)

/**
 * Where `left` and `right` first differ: `{ path, left, right }` (a side is `ABSENT` where
 * it has nothing; `order` is set when only the key order differs), or undefined.
 */
function firstDifference(left, right, path = '') {
  if (Object.is(left, right)) return undefined
  const kind = kindOf(left)
  if (kind !== kindOf(right)) return { path, left, right }
  if (kind === 'array') {
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const difference = firstDifference(i < left.length ? left[i] : ABSENT, i < right.length ? right[i] : ABSENT, step(path, i))
      if (difference) return difference
    }
    return undefined
  }
  if (kind === 'object') {
    const leftKeys = Object.keys(left)
    const rightKeys = Object.keys(right)
    for (const key of leftKeys) {
      const difference = firstDifference(left[key], has(right, key) ? right[key] : ABSENT, step(path, key))
      if (difference) return difference
    }
    for (const key of rightKeys) {
      if (!has(left, key)) return { path: step(path, key), left: ABSENT, right: right[key] }
    }
    if (leftKeys.some((key, i) => key !== rightKeys[i])) return { path, left, right, order: [leftKeys, rightKeys] }
    return undefined
  }
  return { path, left, right }
}

/** Index of the first UTF-16 unit where two strings differ (the shorter's length if one is a prefix). */
function firstDifferentIndex(a, b) {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

module.exports = { ABSENT, firstDifference, firstDifferentIndex, step }
