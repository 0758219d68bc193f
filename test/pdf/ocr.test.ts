// OCR of extract_pdf against Tesseract itself: pages with known text are "scanned" (pdftoppm) into an
// image-only PDF; ocr=auto must read them, ocr=force must read the text PDF through our own rendering,
// and neither may have a higher character error rate than Tesseract run directly on the scan.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { getTool } from '../../domain/tools/catalog.ts'
import { extractPdfOptions } from '../../domain/tools/options/extract_pdf.ts'
import { priceFor } from '../../domain/tools/pricing.ts'
import { recognisePages } from '../../workers/pdf/ocr-pages.ts'
import { parseTsv } from '../../workers/pdf/tesseract.ts'
import { runner } from '../../workers/tools/extract_pdf.ts'
import { peerReady } from '../support/peers.ts'
import { context, inputFile, runTool } from './run-tool.ts'
import {
  characterErrorRate,
  knownTextPdf,
  pdftoppmInstalled,
  scan,
  tesseractDirect,
  tesseractInstalled,
} from './scanned.ts'
import { cellScores, markdownTables, structuredPdf } from './structured.ts'

const ready = peerReady(
  'OCR suite',
  (!tesseractInstalled() && 'tesseract is not installed (apt-get install tesseract-ocr)') ||
    (!pdftoppmInstalled() && 'pdftoppm is not installed (apt-get install poppler-utils)'),
)

const dir = mkdtempSync(join(tmpdir(), 'kiln-ocr-'))
const file = (name: string, bytes: Buffer) => {
  const path = join(dir, name)
  writeFileSync(path, bytes)
  return path
}

interface PageJson {
  page: number
  text: string
  source: string
  needs_ocr: boolean
  ocr: {
    confidence: number
    dpi: number
    words: { text: string; confidence: number; box: number[] }[]
  } | null
}

describe.runIf(ready)('extract_pdf OCR', () => {
  const known = knownTextPdf(2)
  let textPath = ''
  let scanPath = ''
  let direct: string[] = []
  beforeAll(() => {
    const scanned = scan(known.pdf)
    textPath = file('known.pdf', known.pdf)
    scanPath = file('scanned.pdf', scanned.pdf)
    direct = scanned.imagePaths.map((path) => tesseractDirect(path))
  })

  it('auto reads image-only pages, with words and confidences, no worse than tesseract on the same images', async () => {
    const run = await runTool(scanPath, { ocr: 'auto' })
    expect(run.units).toBe(2)
    expect(run.extraUnits).toBe(2)
    expect(run.summary.ocr_pages).toBe(2)
    const json = JSON.parse(run.files['scanned.pages.json']!)
    const pages = json.pages as PageJson[]
    expect(pages.map((page) => [page.source, page.needs_ocr])).toEqual([
      ['ocr', true],
      ['ocr', true],
    ])
    for (const [index, page] of pages.entries()) {
      const ours = characterErrorRate(known.pageTexts[index]!, page.text)
      const engine = characterErrorRate(known.pageTexts[index]!, direct[index]!)
      console.log(
        `OCR auto page ${index + 1}: CER ${ours.toFixed(4)} (tesseract directly: ${engine.toFixed(4)})`,
      )
      expect(ours).toBeLessThan(0.02)
      expect(ours).toBeLessThanOrEqual(engine + 0.005)
      expect(page.ocr!.words.length).toBeGreaterThan(100)
      expect(page.ocr!.confidence).toBeGreaterThan(80)
      const kiln = page.ocr!.words.find((word) => word.text === 'kiln')
      expect(kiln?.confidence).toBeGreaterThan(50)
      expect(kiln?.box.every((value) => value >= 0)).toBe(true)
    }
    expect(run.files['scanned.txt']).toContain('--- page 2 ---')
    expect(run.files['scanned.txt']).toContain('feldspar, silica, whiting and kaolin')
  })

  it('force reads text pages through the Rust rasterizer, no worse than tesseract on the scan', async () => {
    const run = await runTool(textPath, { ocr: 'force' })
    expect(run.extraUnits).toBe(2)
    const pages = JSON.parse(run.files['known.pages.json']!).pages as PageJson[]
    for (const [index, page] of pages.entries()) {
      expect(page.source).toBe('ocr')
      expect(page.needs_ocr).toBe(false)
      const ours = characterErrorRate(known.pageTexts[index]!, page.text)
      const engine = characterErrorRate(known.pageTexts[index]!, direct[index]!)
      console.log(
        `OCR force page ${index + 1}: CER ${ours.toFixed(4)} (tesseract directly: ${engine.toFixed(4)})`,
      )
      expect(ours).toBeLessThanOrEqual(engine + 0.005)
    }
  })

  it('reads a coarse scan (150 dpi, 8 pt) no worse than tesseract on the same image', async () => {
    const small = knownTextPdf(1, 'Helvetica', 8)
    const coarse = scan(small.pdf, 150)
    const engine = characterErrorRate(small.pageTexts[0]!, tesseractDirect(coarse.imagePaths[0]!))
    const run = await runTool(file('coarse.pdf', coarse.pdf), { ocr: 'auto' })
    const page = (JSON.parse(run.files['coarse.pages.json']!).pages as PageJson[])[0]!
    const ours = characterErrorRate(small.pageTexts[0]!, page.text)
    console.log(
      `OCR auto, 150 dpi scan of 8 pt text: CER ${ours.toFixed(4)} (tesseract directly: ${engine.toFixed(4)})`,
    )
    expect(ours).toBeLessThanOrEqual(engine + 0.005)
    expect(ours).toBeLessThan(0.05)
  })

  it('mode=markdown on a scan: headings from the word heights, the table from the word gaps', async () => {
    const { pdf, truth } = structuredPdf()
    const run = await runTool(file('report-scan.pdf', scan(pdf).pdf), { mode: 'markdown' })
    const markdown = run.files['report-scan.md']!
    const found = [...markdown.matchAll(/^(#{1,6}) (.+)$/gm)].map((m) => m[2]!)
    const hits = found.filter((text) => truth.headings.some((heading) => heading.text === text)).length
    const tables = markdownTables(markdown)
    const cells = cellScores(tables[0] ?? [], truth.table)
    console.log(
      `markdown on a scan: headings precision ${(hits / found.length).toFixed(2)}, recall ${(hits / truth.headings.length).toFixed(2)}; table cells precision ${cells.precision.toFixed(2)}, recall ${cells.recall.toFixed(2)}`,
    )
    // The bold run-in heading cannot be seen in OCR (no font weight); the sized ones can.
    expect(hits).toBeGreaterThanOrEqual(4)
    expect(hits / found.length).toBeGreaterThanOrEqual(0.8)
    expect(tables).toHaveLength(1)
    expect(cells.recall).toBeGreaterThanOrEqual(0.9)
    expect(cells.precision).toBeGreaterThanOrEqual(0.9)
  })

  it('auto leaves pages with a text layer alone, and off leaves scans empty and unpriced', async () => {
    const text = await runTool(textPath, { ocr: 'auto' })
    expect(text.extraUnits).toBe(0)
    expect(text.summary.ocr_pages).toBe(0)
    const textPages = JSON.parse(text.files['known.pages.json']!).pages as PageJson[]
    expect(textPages.map((page) => [page.source, page.ocr])).toEqual([
      ['text_layer', null],
      ['text_layer', null],
    ])
    const off = await runTool(scanPath, { ocr: 'off' })
    expect(off.extraUnits).toBe(0)
    expect(off.summary.empty_pages).toBe(2)
    const offPages = JSON.parse(off.files['scanned.pages.json']!).pages as PageJson[]
    expect(offPages.every((page) => page.needs_ocr && page.source === 'text_layer')).toBe(true)
  })

  it('prices OCR pages as their own unit on top of the pages', () => {
    const { pricing } = getTool('extract_pdf')
    expect(priceFor(pricing, 2, 0)).toBe(1)
    expect(priceFor(pricing, 2, 2)).toBe(2)
    expect(priceFor(pricing, 500, 500)).toBe(50 + 250)
  })

  it('refuses a language that is not installed before anything is charged, naming the installed ones', async () => {
    const error = await runner
      .measure(inputFile(scanPath), extractPdfOptions.parse({ languages: ['eng', 'klingon'] }))
      .then(
        () => null,
        (caught: unknown) => caught,
      )
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('invalid_options')
    expect((error as DomainError).message).toContain('klingon')
    expect((error as DomainError).hint).toContain('eng')
    // ocr=off needs no language pack.
    const off = await runner.measure(
      inputFile(scanPath),
      extractPdfOptions.parse({ ocr: 'off', languages: ['klingon'] }),
    )
    expect(off).toEqual({ units: 2, extraUnits: 0 })
    expect(() => extractPdfOptions.parse({ languages: ['../eng'] })).toThrow()
    expect(() => extractPdfOptions.parse({ ocr: 'sometimes' })).toThrow()
  })

  it('stops the engine when the job is aborted (timeout) with a clean timeout error', async () => {
    const ctx = context()
    const controller = new AbortController()
    const started = Date.now()
    setTimeout(() => controller.abort(), 300)
    const error = await runner
      .run(inputFile(scanPath), extractPdfOptions.parse({ ocr: 'auto' }), {
        ...ctx,
        signal: controller.signal,
      })
      .then(
        () => null,
        (caught: unknown) => caught,
      )
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('timeout')
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('a page the renderer cannot draw is skipped and reported, the others are read', async () => {
    const unrendered: number[] = []
    const results = await recognisePages({
      bytes: known.pdf,
      // Page 7 does not exist: the renderer refuses it as it would a page it cannot draw.
      pages: [7, 1],
      languages: ['eng'],
      signal: new AbortController().signal,
      onUnrendered: (page) => unrendered.push(page),
    })
    expect(unrendered).toEqual([7])
    expect([...results.keys()]).toEqual([1])
    expect(results.get(1)!.text).toContain('The kiln was fired at dawn')
  })

  it('keeps invalid_pdf clean with OCR on', async () => {
    const broken = file('broken.pdf', Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF'))
    const error = await runner.measure(inputFile(broken), extractPdfOptions.parse({ ocr: 'force' })).then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(DomainError)
    expect((error as DomainError).code).toBe('invalid_pdf')
  })
})

describe('Tesseract TSV', () => {
  it('keeps lines and blocks, drops empty cells, and averages word confidences', () => {
    const tsv = [
      'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
      '1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t',
      '5\t1\t1\t1\t1\t1\t10\t10\t20\t10\t96.5\tHello',
      '5\t1\t1\t1\t1\t2\t35\t10\t20\t10\t90.5\tworld',
      '5\t1\t1\t1\t2\t1\t10\t25\t20\t10\t80\tagain',
      '5\t1\t2\t1\t1\t1\t10\t60\t20\t10\t70\tTwo',
      '5\t1\t2\t1\t1\t2\t10\t60\t20\t10\t95\t ',
    ].join('\n')
    const page = parseTsv(tsv)
    expect(page.text).toBe('Hello world\nagain\n\nTwo')
    expect(page.words.map((word) => [word.text, word.confidence])).toEqual([
      ['Hello', 96.5],
      ['world', 90.5],
      ['again', 80],
      ['Two', 70],
    ])
    expect(page.confidence).toBe(84.3)
  })
})
