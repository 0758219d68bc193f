// Unbiased draws from a byte source. Integers use rejection sampling over the smallest power-of-two
// range covering the span, so every value is equally likely (no modulo bias). Reals take 53 random
// bits, giving every representable step of [0, 1) with equal weight.

type Bytes = (size: number) => Uint8Array

function randomBits53(bytes: Bytes): bigint {
  const b = bytes(8)
  let value = 0n
  for (const byte of b) value = (value << 8n) | BigInt(byte)
  return value >> 11n
}

/** A uniform integer in [0, span) for span ≤ 2^53. */
export function uniformBelow(span: bigint, bytes: Bytes): bigint {
  if (span <= 1n) return 0n
  let bits = 0n
  while (1n << bits < span) bits++
  const mask = (1n << bits) - 1n
  for (;;) {
    const candidate = randomBits53(bytes) & mask
    if (candidate < span) return candidate
  }
}

export function uniformInteger(min: number, max: number, bytes: Bytes): number {
  return min + Number(uniformBelow(BigInt(max) - BigInt(min) + 1n, bytes))
}

export function uniformReal(min: number, max: number, bytes: Bytes): number {
  const unit = Number(randomBits53(bytes)) / 2 ** 53
  return min + unit * (max - min)
}

/** `count` distinct integers from [min, max]: a partial Fisher–Yates over a sparse map of swaps. */
export function distinctIntegers(min: number, max: number, count: number, bytes: Bytes): number[] {
  const span = BigInt(max) - BigInt(min) + 1n
  const swapped = new Map<bigint, bigint>()
  const out: number[] = []
  for (let i = 0n; i < BigInt(count); i++) {
    const j = i + uniformBelow(span - i, bytes)
    const atJ = swapped.get(j) ?? j
    swapped.set(j, swapped.get(i) ?? i)
    out.push(min + Number(atJ))
  }
  return out
}
