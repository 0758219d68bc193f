// Where the shared corpus and the hand-written fixtures live, and which corpus PDFs are well formed.
import { existsSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { corpusDir, corpusMissing, peerReady } from '../support/peers.ts'

export const repoRoot = resolve(import.meta.dirname, '../..')
export { corpusDir }
export const pdfCorpusDir = join(corpusDir, 'pdf')
export const fixturesDir = join(repoRoot, 'native/pdf-core/tests/fixtures')

export const corpusPresent = peerReady('PDF corpus suites', corpusMissing('pdf'))

/** Files that need a user password; everything else outside malformed/ must extract. */
export const passwordProtected = new Set(['saslprep-r6.pdf', 'libreoffice-writer-password.pdf'])

export function corpusPdfs(folder: string): string[] {
  const dir = join(pdfCorpusDir, folder)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => name.endsWith('.pdf'))
    .sort()
    .map((name) => join(dir, name))
}

export const wellFormedFolders = ['pdfjs', 'pypdf', 'long']
