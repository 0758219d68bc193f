// get_random_numbers: uniformity by chi-square over large samples from the real CSPRNG, and the edges of
// its ranges. Each chi-square test fails a correct generator with probability 1e-7 (three tests: < 1e-6).
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { randomNumbersOptions } from '../../domain/tools/options/get_random_numbers.ts'
import { runner } from '../../workers/tools/get_random_numbers.ts'
import { distinctIntegers, uniformInteger, uniformReal } from '../../workers/tools/random-source.ts'

const falseFailureRate = 1e-7

/** P(X ≥ x) for a chi-square variable with an even number of degrees of freedom (closed form). */
function chiSquareSurvival(x: number, df: number): number {
  let term = 1
  let sum = 1
  for (let i = 1; i < df / 2; i++) {
    term *= x / 2 / i
    sum += term
  }
  return Math.exp(-x / 2) * sum
}

/** The statistic a correct generator exceeds with probability `rate`, by bisection. */
function criticalValue(df: number, rate: number): number {
  let low = 0
  let high = 1000
  for (let i = 0; i < 100; i++) {
    const mid = (low + high) / 2
    if (chiSquareSurvival(mid, df) > rate) low = mid
    else high = mid
  }
  return high
}

function chiSquare(counts: number[]): number {
  const total = counts.reduce((a, b) => a + b, 0)
  const expected = total / counts.length
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0)
}

function expectUniform(counts: number[]) {
  expect(counts.length % 2, 'the closed form needs an even number of degrees of freedom').toBe(1)
  expect(chiSquare(counts)).toBeLessThan(criticalValue(counts.length - 1, falseFailureRate))
}

const draw = async (options: Record<string, unknown>) => {
  const parsed = randomNumbersOptions.parse(options)
  const { summary } = await runner.run(null, parsed, {
    outDir: '',
    progress: () => {},
    signal: new AbortController().signal,
    randomBytes,
  })
  return summary.numbers as number[]
}

describe('get_random_numbers is uniform (chi-square, false failure 1e-7 each)', () => {
  it('the critical value matches the chi-square table (df 2 at 1e-7 is 2·ln 1e7)', () => {
    expect(criticalValue(2, falseFailureRate)).toBeCloseTo(2 * Math.log(1e7), 6)
  })

  it('integers over [-5, 5]: 110,000 draws in 11 cells', () => {
    const counts = new Array(11).fill(0)
    for (let i = 0; i < 110_000; i++) counts[uniformInteger(-5, 5, randomBytes) + 5]++
    expectUniform(counts)
  })

  it('no modulo bias: thirds of a span of 3·2^51 (a modulo draw would give the first third twice the weight)', () => {
    const span = 3 * 2 ** 51
    const counts = new Array(3).fill(0)
    for (let i = 0; i < 30_000; i++) counts[Math.floor(uniformInteger(0, span - 1, randomBytes) / 2 ** 51)]++
    expectUniform(counts)
  })

  it('reals over [-1, 1]: 55,000 draws in 11 bins', () => {
    const counts = new Array(11).fill(0)
    for (let i = 0; i < 55_000; i++)
      counts[Math.min(10, Math.floor(((uniformReal(-1, 1, randomBytes) + 1) / 2) * 11))]++
    expectUniform(counts)
  })
})

describe('get_random_numbers range edges', () => {
  it('min = max gives that value every time', async () => {
    expect(await draw({ count: 50, min: 7, max: 7 })).toEqual(new Array(50).fill(7))
    expect(await draw({ count: 1, min: -3, max: -3, unique: true })).toEqual([-3])
  })

  it('negative ranges stay inside and reach both ends', async () => {
    const numbers = await draw({ count: 1000, min: -10, max: -8 })
    expect(new Set(numbers)).toEqual(new Set([-10, -9, -8]))
  })

  it('the whole safe-integer range ±(2^53 − 1) is reached on both sides of zero', async () => {
    const edge = Number.MAX_SAFE_INTEGER
    const numbers = await draw({ count: 1000, min: -edge, max: edge })
    for (const n of numbers) expect(Number.isSafeInteger(n)).toBe(true)
    // A draw of fewer bits than the span needs would never leave the lower half.
    expect(numbers.some((n) => n > 0)).toBe(true)
    expect(numbers.some((n) => n < 0)).toBe(true)
    expect(await draw({ count: 3, min: edge, max: edge })).toEqual([edge, edge, edge])
    expect(await draw({ count: 3, min: -edge, max: -edge })).toEqual([-edge, -edge, -edge])
  })

  it('bounds past ±2^53 are refused for integers', () => {
    expect(randomNumbersOptions.safeParse({ min: 0, max: 2 ** 53 }).success).toBe(false)
    expect(randomNumbersOptions.safeParse({ min: -(2 ** 53), max: 0 }).success).toBe(false)
  })

  it('unique with count = range size is a permutation of the range', async () => {
    const numbers = await draw({ count: 1000, min: -500, max: 499, unique: true })
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i - 500))
    expect(randomNumbersOptions.safeParse({ count: 1001, min: -500, max: 499, unique: true }).success).toBe(
      false,
    )
  })

  it('unique at the ends of the safe range gives distinct safe integers', () => {
    const edge = Number.MAX_SAFE_INTEGER
    const numbers = distinctIntegers(edge - 9, edge, 10, randomBytes)
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => edge - 9 + i))
  })

  it('reals stay within [min, max], even when max − min overflows a double', async () => {
    for (const [min, max] of [
      [-1e-300, 1e-300],
      [2.5, 2.5],
      [-Number.MAX_VALUE, Number.MAX_VALUE],
      [-1000, -999.5],
    ] as const) {
      const numbers = await draw({ count: 200, type: 'real', min, max })
      for (const n of numbers) {
        expect(Number.isFinite(n)).toBe(true)
        expect(n).toBeGreaterThanOrEqual(min)
        expect(n).toBeLessThanOrEqual(max)
      }
    }
  })
})
