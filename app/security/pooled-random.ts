// Random bytes drawn from the CSPRNG in batches. Each call into node:crypto costs a native call and,
// on some machines, a system call; the hot path asks for a few dozen bytes at a time (a job id, a
// request id), so one draw of a few kilobytes serves a hundred callers. Every byte is handed out once
// and the pool is a copy nobody else holds, so the bytes are as unpredictable as direct draws.
import { randomBytes } from 'node:crypto'

export type PooledRandom = (size: number) => Buffer

export function pooledRandom(poolBytes = 4096): PooledRandom {
  let pool = Buffer.alloc(0)
  let offset = 0
  return (size) => {
    if (size > poolBytes) return randomBytes(size)
    if (offset + size > pool.length) {
      pool = randomBytes(poolBytes)
      offset = 0
    }
    offset += size
    // A copy: callers may keep or change what they get without touching the pool.
    return Buffer.from(pool.subarray(offset - size, offset))
  }
}
