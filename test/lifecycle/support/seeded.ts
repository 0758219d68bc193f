// Reproducible randomness for fault tests: every run prints its seed; FAULT_SEED replays one.
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  // mulberry32: tiny, fast and good enough to place faults.
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

export const faultRuns = Number(process.env.FAULT_RUNS ?? 2)
export const baseSeed = Number(process.env.FAULT_SEED ?? Date.now() % 2 ** 31)
