// Our text against poppler's pdftotext on the well-formed corpus PDFs, with the metric of
// bench/pdf/similarity.ts. A floor, not the goal: the bench reports per file against both peers.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { describe, expect, it } from 'vitest'
import { extractPdfText } from '../../native/pdf.ts'
import { peerReady } from '../support/peers.ts'
import { corpusPdfs, corpusPresent, passwordProtected, wellFormedFolders } from './corpus.ts'
import { peerInstalled, peerPages } from './peers.ts'
import { pageSimilarity, type Similarity } from './text-similarity.ts'

const havePdftotext = peerReady(
  'similarity suite',
  !peerInstalled('pdftotext') && 'pdftotext (Debian poppler-utils) is not installed',
)

/** Files whose reference text is itself wrong or needs data we do not ship, each explained in bench/pdf/README.md. */
const explained = new Set([
  'vertical.pdf',
  'habibi.pdf',
  'simpletype3font.pdf',
  'multicolumn.pdf',
  'pdflatex-forms.pdf',
])
const files = wellFormedFolders.flatMap(corpusPdfs).filter((file) => !passwordProtected.has(basename(file)))

describe.runIf(corpusPresent && havePdftotext)('similarity to pdftotext', () => {
  it('is at least 0.97 over all characters and at least 0.9 on every file not explained', async () => {
    const results: Similarity[] = []
    for (const file of files) {
      const extraction = await extractPdfText(readFileSync(file), { firstPage: 1, mode: 'plain' })
      const reference = peerPages('pdftotext', file)
      expect(reference, `pdftotext failed on ${file}`).not.toBeNull()
      const similarity = pageSimilarity(
        extraction.pages.map((page) => page.text),
        reference ?? [],
      )
      results.push(similarity)
      if (!explained.has(basename(file))) expect(similarity.ratio, basename(file)).toBeGreaterThanOrEqual(0.9)
    }
    const edits = results.reduce((sum, s) => sum + s.distance, 0)
    const characters = results.reduce((sum, s) => sum + s.length, 0)
    expect(1 - edits / characters).toBeGreaterThanOrEqual(0.97)
  }, 240_000)
})
