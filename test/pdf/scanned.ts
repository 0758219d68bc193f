// Scanned pages with known text for the OCR tests and bench: text set in a standard font, printed to
// grey pixels by poppler's pdftoppm (the "scanner"), and wrapped back into an image-only PDF.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type PageSpec, readPgm, type StandardFont, type TextRun, writePdf } from '../support/pdf-writer.ts'

/** Prose written for these tests: ordinary words, punctuation and digits, no ligature tricks. */
export const knownParagraphs = [
  'The kiln was fired at dawn, and by noon the first batch of twelve bowls had cooled enough to handle.',
  'Each bowl was weighed, measured and numbered before it went to the glazing room on the second floor.',
  'In 2024 the workshop sold 3,180 pieces, most of them plates and cups for restaurants in the old town.',
  'A crack that runs from the rim to the foot means the clay dried unevenly; such pieces are broken up.',
  'Orders placed before Friday are packed on Monday morning and reach most customers within five days.',
  'The glaze recipe calls for feldspar, silica, whiting and kaolin, mixed with water to a creamy texture.',
  'Visitors may watch the potters at work every Thursday between ten and four, except on public holidays.',
  'Questions about delivery, returns or custom sizes can be sent to the office by post or by telephone.',
]

/** Greedy wrap of `text` into lines of at most `width` characters. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}

export interface KnownTextPdf {
  pdf: Buffer
  /** The text of each page, one line per printed line. */
  pageTexts: string[]
}

/** Pages of the known paragraphs at `size` pt, `perPage` paragraphs a page. */
export function knownTextPdf(pageCount: number, font: StandardFont = 'Times-Roman', size = 12): KnownTextPdf {
  const pages: PageSpec[] = []
  const pageTexts: string[] = []
  for (let page = 0; page < pageCount; page++) {
    const runs: TextRun[] = []
    const lines: string[] = []
    let y = 720
    for (let index = 0; index < knownParagraphs.length; index++) {
      const paragraph = knownParagraphs[(index + page * 3) % knownParagraphs.length]!
      for (const line of wrap(paragraph, 80)) {
        runs.push({ x: 72, y, size, font, text: line })
        lines.push(line)
        y -= size * 1.5
      }
      y -= size
    }
    pages.push({ runs })
    pageTexts.push(lines.join('\n'))
  }
  return { pdf: writePdf(pages), pageTexts }
}

export interface ScannedPdf {
  pdf: Buffer
  /** The page images as pdftoppm wrote them (binary PGM), for running Tesseract on them directly. */
  imagePaths: string[]
}

/** Rasterizes `pdf` with pdftoppm at `dpi` and builds an image-only PDF of the same page size. */
export function scan(pdf: Buffer, dpi = 300): ScannedPdf {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-scan-'))
  const source = join(dir, 'source.pdf')
  writeFileSync(source, pdf)
  const result = spawnSync('pdftoppm', ['-r', String(dpi), '-gray', source, join(dir, 'page')])
  if (result.status !== 0) throw new Error(`pdftoppm failed: ${result.stderr}`)
  const imagePaths = readdirSync(dir)
    .filter((name) => name.endsWith('.pgm'))
    .sort()
    .map((name) => join(dir, name))
  const pages = imagePaths.map((path) => {
    const image = readPgm(readFileSync(path))
    return { width: (image.width * 72) / dpi, height: (image.height * 72) / dpi, image }
  })
  return { pdf: writePdf(pages), imagePaths }
}

/** Whitespace-insensitive form for scoring OCR: runs of white space become one space. */
export const normalize = (text: string) => text.replace(/\s+/g, ' ').trim()

/** Character error rate: edit distance over the length of the truth. */
export function characterErrorRate(truth: string, found: string): number {
  const a = normalize(truth)
  const b = normalize(found)
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row.push(
        Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)),
      )
    previous = row
  }
  return previous[b.length]! / Math.max(1, a.length)
}

export function pdftoppmInstalled(): boolean {
  return spawnSync('pdftoppm', ['-v']).status === 0
}

export function tesseractInstalled(): boolean {
  return spawnSync('tesseract', ['--version']).status === 0
}

/** Tesseract run directly on an image, as a user would: the reference OCR must not beat. */
export function tesseractDirect(imagePath: string, languages = 'eng'): string {
  const result = spawnSync('tesseract', [imagePath, 'stdout', '-l', languages], {
    encoding: 'utf8',
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
  })
  if (result.status !== 0) throw new Error(`tesseract failed: ${result.stderr}`)
  return result.stdout
}
