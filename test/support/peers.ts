// Suites that need a real peer (the shared corpus, Chromium, nats-server, stripe-mock, versitygw,
// FerretDB, a reference tool) ask here whether it is present. Outside CI a missing peer skips the
// suite with a line saying what is missing; with CI set the suite fails instead, because a suite that
// CI quietly skips proves nothing.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The shared corpus of models and PDFs, beside the repository. */
export const corpusDir = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus')

/** Why a corpus folder cannot be used, or null when it is there. */
export const corpusMissing = (folder = ''): string | null =>
  existsSync(join(corpusDir, folder)) ? null : `the shared corpus is not at ${join(corpusDir, folder)}`

/**
 * True when the suite can run. `missing` says what is absent (null, false or '' when nothing is):
 * under CI that throws, so the suite file fails; elsewhere it is logged and the caller skips.
 */
export function peerReady(suite: string, missing: string | null | false | undefined): boolean {
  if (!missing) return true
  if (process.env.CI) throw new Error(`${suite} cannot run in CI: ${missing}`)
  console.warn(`[${suite}] SKIPPED: ${missing}`)
  return false
}
