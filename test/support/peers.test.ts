// The one rule for suites with a missing peer: skipped with a reason outside CI, a failure under CI.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { corpusMissing, peerReady } from './peers.ts'

const savedCi = process.env.CI

afterEach(() => {
  if (savedCi === undefined) delete process.env.CI
  else process.env.CI = savedCi
  vi.restoreAllMocks()
})

describe('peerReady', () => {
  it('is true when nothing is missing, in CI or not', () => {
    process.env.CI = 'true'
    expect(peerReady('suite', null)).toBe(true)
    expect(peerReady('suite', false)).toBe(true)
    delete process.env.CI
    expect(peerReady('suite', '')).toBe(true)
  })

  it('fails the suite under CI when its peer is missing', () => {
    process.env.CI = 'true'
    expect(() => peerReady('NATS dispatcher', 'nats-server is not installed')).toThrow(
      'NATS dispatcher cannot run in CI: nats-server is not installed',
    )
  })

  it('skips with the reason outside CI', () => {
    delete process.env.CI
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(peerReady('console', 'no Chromium at /nowhere')).toBe(false)
    expect(warn).toHaveBeenCalledWith('[console] SKIPPED: no Chromium at /nowhere')
  })

  it('names a missing corpus folder, and nothing for one that is there', () => {
    expect(corpusMissing('no-such-folder')).toMatch(/^the shared corpus is not at .*no-such-folder$/)
    expect(corpusMissing()).toBeNull()
  })
})
