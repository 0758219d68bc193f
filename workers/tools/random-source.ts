// Unbiased draws from a byte source. Integers use rejection sampling over the smallest power-of-two
// range covering the span, so every value is equally likely (no modulo bias); spans up to 2^54 (the
// whole safe-integer range) draw as many bits as they need. Reals take 53 random bits, giving every
// representable step of [0, 1) with equal weight.

type Bytes = (size: number) => Uint8Array

/** A uniform integer in [0, 2^bits). */
function randomBits(bits: bigint, bytes: Bytes): bigint {
  let value = 0n
  for (const byte of bytes(Number((bits + 7n) / 8n))) value = (value << 8n) | BigInt(byte)
  return value & ((1n << bits) - 1n)
}

/** A uniform integer in [0, span). */
export function uniformBelow(span: bigint, bytes: Bytes): bigint {
  if (span <= 1n) return 0n
  let bits = 0n
  while (1n << bits < span) bits++
  for (;;) {
    const candidate = randomBits(bits, bytes)
    if (candidate < span) return candidate
  }
}

export function uniformInteger(min: number, max: number, bytes: Bytes): number {
  return Number(BigInt(min) + uniformBelow(BigInt(max) - BigInt(min) + 1n, bytes))
}

export function uniformReal(min: number, max: number, bytes: Bytes): number {
  const unit = Number(randomBits(53n, bytes)) / 2 ** 53
  // Weighting the ends (rather than min + unit·(max − min)) cannot overflow when max − min exceeds the
  // largest double; the clamp absorbs the last rounding step.
  return Math.min(max, Math.max(min, min * (1 - unit) + max * unit))
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
    out.push(Number(BigInt(min) + atJ))
  }
  return out
}
