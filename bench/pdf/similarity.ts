// Per-file similarity of our text to pdftotext and to `mutool draw -F txt` on the corpus's
// well-formed PDFs, with the metric of test/pdf/text-similarity.ts. Prints a table, the mean of
// the per-file ratios and the pooled ratio (total edits over total characters).
// Run: node_modules/.bin/node bench/pdf/similarity.ts
// Score another extractor's output instead, one form-feed separated <stem>.txt per PDF (missing
// files count as failures): node_modules/.bin/node bench/pdf/similarity.ts --texts DIR
import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { extractPdfText } from '../../native/pdf.ts'
import {
  corpusPdfs,
  corpusPresent,
  passwordProtected,
  pdfCorpusDir,
  wellFormedFolders,
} from '../../test/pdf/corpus.ts'
import { type Peer, peerInstalled, peerPages } from '../../test/pdf/peers.ts'
import { pageSimilarity, type Similarity } from '../../test/pdf/text-similarity.ts'

if (!corpusPresent) {
  console.log(`no corpus at ${pdfCorpusDir}`)
  process.exit(0)
}
const peers = (['pdftotext', 'mutool'] as const).filter(peerInstalled)
const files = wellFormedFolders.flatMap(corpusPdfs).filter((file) => !passwordProtected.has(basename(file)))
const results = new Map<Peer, Similarity[]>(peers.map((peer) => [peer, []]))
const textsFlag = process.argv.indexOf('--texts')
const textsDir = textsFlag >= 0 ? process.argv[textsFlag + 1] : undefined

async function ourPages(file: string): Promise<string[] | null> {
  if (!textsDir)
    return (await extractPdfText(readFileSync(file), { firstPage: 1, mode: 'plain' })).pages.map(
      (page) => page.text,
    )
  const text = join(textsDir, `${basename(file, '.pdf')}.txt`)
  return existsSync(text) ? readFileSync(text, 'utf8').split('\f') : null
}

console.log(['file'.padEnd(44), 'pages', 'chars', ...peers].join('\t'))
for (const file of files) {
  const ours = await ourPages(file)
  const row = [
    `${basename(dirname(file))}/${basename(file)}`.padEnd(44),
    ours ? String(ours.length) : 'failed',
    String(ours?.reduce((n, page) => n + [...page].length, 0) ?? 0),
  ]
  for (const peer of peers) {
    const reference = peerPages(peer, file) ?? []
    // A failed extraction scores as an empty text on every page: a ratio of 0.
    const similarity = pageSimilarity(ours ?? reference.map(() => ''), reference)
    results.get(peer)?.push(similarity)
    row.push(similarity.ratio.toFixed(4))
  }
  console.log(row.join('\t'))
}
for (const peer of peers) {
  const all = results.get(peer) ?? []
  const mean = all.reduce((sum, s) => sum + s.ratio, 0) / all.length
  const pooled = 1 - all.reduce((sum, s) => sum + s.distance, 0) / all.reduce((sum, s) => sum + s.length, 0)
  const below = all.filter((s) => s.ratio < 0.9).length
  console.log(
    `${peer}: mean of files ${mean.toFixed(4)}, pooled over characters ${pooled.toFixed(4)}, files below 0.9: ${below}`,
  )
}
