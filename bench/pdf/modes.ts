// Pages per second of extract_pdf's modes, measured in one run on this machine: plain and markdown
// on the corpus's long documents next to `pdftotext -layout`, and OCR (our rendering + Tesseract,
// page by page) on generated scanned pages next to Tesseract run directly on pdftoppm's images.
// Run: node_modules/.bin/node bench/pdf/modes.ts [runs] [ocr pages]
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { extractPdfText } from '../../native/pdf.ts'
import { corpusPdfs, corpusPresent } from '../../test/pdf/corpus.ts'
import { knownTextPdf, scan, tesseractDirect } from '../../test/pdf/scanned.ts'
import { buildMarkdown } from '../../workers/pdf/markdown/markdown.ts'
import { recognisePages } from '../../workers/pdf/ocr-pages.ts'

const runs = Number(process.argv[2] ?? 3)
const ocrPages = Number(process.argv[3] ?? 4)

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

async function timedMedian(work: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    await work()
    times.push(performance.now() - started)
  }
  return median(times)
}

const rate = (pages: number, ms: number) => Math.round((pages / ms) * 1000 * 10) / 10

const rows: string[] = ['| input | contender | pages/s |', '|---|---|---:|']

if (corpusPresent)
  for (const file of corpusPdfs('long')) {
    const bytes = readFileSync(file)
    const pages = (await extractPdfText(bytes, { firstPage: 1, mode: 'plain' })).pages.length
    const name = `${basename(file)} (${pages} pages)`
    const plain = await timedMedian(() => extractPdfText(bytes, { firstPage: 1, mode: 'plain' }))
    const markdown = await timedMedian(async () => {
      const extraction = await extractPdfText(bytes, { firstPage: 1, mode: 'plain', lines: true })
      buildMarkdown(extraction.pages.map((page) => ({ number: page.number, lines: page.lines ?? [] })))
    })
    const layout = await timedMedian(() => {
      const result = spawnSync('pdftotext', ['-q', '-layout', file, '/dev/null'], { stdio: 'ignore' })
      if (result.status !== 0) throw new Error('pdftotext failed')
    })
    rows.push(`| ${name} | kiln plain | ${rate(pages, plain)} |`)
    rows.push(`| ${name} | kiln markdown | ${rate(pages, markdown)} |`)
    rows.push(`| ${name} | pdftotext -layout | ${rate(pages, layout)} |`)
  }

// OCR: generated pages of known text, scanned at 300 dpi; one run each (seconds per page).
const known = knownTextPdf(ocrPages)
const scanned = scan(known.pdf)
const scanBytes = Buffer.from(scanned.pdf)
const pageNumbers = Array.from({ length: ocrPages }, (_, index) => index + 1)
const signal = new AbortController().signal
let started = performance.now()
await recognisePages({ bytes: scanBytes, pages: pageNumbers, languages: ['eng'], signal })
const ours = performance.now() - started
started = performance.now()
await recognisePages({ bytes: Buffer.from(known.pdf), pages: pageNumbers, languages: ['eng'], signal })
const forced = performance.now() - started
started = performance.now()
for (const path of scanned.imagePaths) tesseractDirect(path)
const direct = performance.now() - started
const name = `generated scan (${ocrPages} pages, 300 dpi)`
rows.push(`| ${name} | kiln OCR auto (render + tesseract) | ${rate(ocrPages, ours)} |`)
rows.push(`| ${name} | kiln OCR force on the text PDF | ${rate(ocrPages, forced)} |`)
rows.push(`| ${name} | tesseract directly on pdftoppm's images | ${rate(ocrPages, direct)} |`)

console.log(rows.join('\n'))
