import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { levenshtein, normalizeText, pageSimilarity } from './text-similarity.ts'

function reference(a: string, b: string): number {
  const table = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = table[i] as number[]
      const above = table[i - 1] as number[]
      row[j] = Math.min(
        (above[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (above[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
  return table[a.length]?.[b.length] ?? 0
}

describe('text similarity', () => {
  it('computes the edit distance of the textbook recurrence', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (a, b) => {
        expect(levenshtein(a, b)).toBe(reference(a, b))
      }),
    )
    expect(levenshtein('kitten', 'sitting')).toBe(3)
  })

  it('ignores whitespace layout, ligatures and bidi controls', () => {
    expect(normalizeText('  a\n\n b\tﬁ\u202bc\u202c ')).toBe('a b fic')
    expect(pageSimilarity(['a  b', 'c'], ['a b', 'c']).ratio).toBe(1)
  })

  it('counts a missing page as entirely different', () => {
    expect(pageSimilarity(['abcd'], ['abcd', 'efgh']).ratio).toBe(0.5)
  })
})
