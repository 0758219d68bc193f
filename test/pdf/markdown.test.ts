// mode=markdown scored on a PDF whose structure is known (test/pdf/structured.ts): headings,
// table cells (precision and recall), reading order across columns, running lines left out and
// reported, and the text itself: nothing of plain mode's text lost or duplicated.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildMarkdown, joinLine } from '../../workers/pdf/markdown/markdown.ts'
import { corpusPresent, pdfCorpusDir } from './corpus.ts'
import { runTool, type ToolRun } from './run-tool.ts'
import { cellScores, markdownTables, orderScore, structuredPdf, tokens } from './structured.ts'

const { pdf, truth } = structuredPdf()
const path = join(mkdtempSync(join(tmpdir(), 'kiln-md-')), 'report.pdf')
writeFileSync(path, pdf)

interface PageJson {
  page: number
  text: string
  running: { text: string; kind: string }[]
  headings: { level: number; text: string }[]
}

describe('extract_pdf mode=markdown on a document of known structure', () => {
  let run: ToolRun
  let plain: ToolRun
  let markdown = ''
  let pages: PageJson[] = []
  beforeAll(async () => {
    run = await runTool(path, { mode: 'markdown', ocr: 'off' })
    plain = await runTool(path, { mode: 'plain', ocr: 'off' })
    markdown = run.files['report.md'] ?? ''
    pages = JSON.parse(run.files['report.pages.json'] ?? '{}').pages
  })

  it('writes <stem>.md and pages.json', () => {
    expect(Object.keys(run.files).sort()).toEqual(['report.md', 'report.pages.json'])
    expect(markdown).toContain('<!-- page 2 -->')
  })

  it('finds the headings and their levels from font size and weight', () => {
    const found = [...markdown.matchAll(/^(#{1,6}) (.+)$/gm)].map((m) => ({
      level: m[1]!.length,
      text: m[2]!,
    }))
    const hits = found.filter((h) =>
      truth.headings.some((t) => t.level === h.level && t.text === h.text),
    ).length
    const precision = hits / Math.max(1, found.length)
    const recall = hits / truth.headings.length
    console.log(`markdown headings: precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`)
    expect(found).toEqual(truth.headings)
    expect(pages.flatMap((page) => page.headings)).toEqual(truth.headings)
  })

  it('writes the table as one GFM table across the page break, cell for cell', () => {
    const tables = markdownTables(markdown)
    expect(tables).toHaveLength(1)
    const { precision, recall } = cellScores(tables[0]!, truth.table)
    console.log(`markdown table cells: precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`)
    expect(precision).toBe(1)
    expect(recall).toBe(1)
  })

  it('reads the two columns in order although they were written row by row', () => {
    const score = orderScore(markdown, truth.order)
    console.log(`markdown reading order: ${score.toFixed(2)} of consecutive pairs in order`)
    expect(score).toBe(1)
    // Plain mode keeps the producer's order, which interleaves the columns here; Markdown reads the
    // whole left column first.
    const { left, right } = truth.columns
    const plainText = plain.files['report.txt']!
    expect(plainText.indexOf(right[0]!)).toBeLessThan(plainText.indexOf(left[1]!))
    expect(markdown.indexOf(left.at(-1)!)).toBeLessThan(markdown.indexOf(right[0]!))
  })

  it('joins paragraph lines, mends the hyphenated word and keeps lists as lists', () => {
    expect(markdown).toContain('doubled production without a second shift')
    expect(markdown).toMatch(
      /^- Plates and bowls sold in sets of six\n- Cups sold singly or in pairs\n- Vases made to order$/m,
    )
    expect(markdown).toMatch(
      /^1\. Order the second kiln by March\n2\. Hire one more potter for the classes$/m,
    )
    expect(markdown).toContain(
      'The left column begins here and tells how the clay is prepared: it is soaked, wedged by hand and left to rest',
    )
  })

  it('leaves out the running header and page numbers and reports them per page', () => {
    expect(markdown).not.toContain('Kiln Quarterly Report')
    expect(pages.map((page) => page.running.map((line) => `${line.kind}:${line.text}`).sort())).toEqual([
      ['header:Kiln Quarterly Report', 'page_number:1'],
      ['header:Kiln Quarterly Report', 'page_number:2', 'repeated_table_header:Item | Pieces | Price'],
      ['header:Kiln Quarterly Report', 'page_number:3'],
    ])
  })

  it("keeps plain mode's text: the same words, none lost or duplicated", () => {
    const plainText = pages.map((page) => page.text).join('\n')
    expect(plainText).toBe(
      plain.files['report.txt']!.split('\f')
        .map((page) => page.replace(/^--- page \d+ ---\n/, '').replace(/\n$/, ''))
        .join('\n'),
    )
    const mended = plainText.replace(/(\p{L})-\n(\p{Ll})/gu, '$1$2')
    const withoutMarkers = markdown.replace(/<!-- page \d+ -->/g, '')
    const running = pages.flatMap((page) => page.running.map((line) => line.text)).join('\n')
    expect(tokens(`${withoutMarkers}\n${running}`)).toEqual(tokens(mended))
  })
})

describe('Markdown building blocks', () => {
  it('mends only a letter-hyphen line end followed by a lower-case word', () => {
    expect(joinLine('produc-', 'tion')).toBe('production')
    expect(joinLine('well-', 'Known')).toBe('well- Known')
    expect(joinLine('pages 3-', '5')).toBe('pages 3- 5')
  })

  it('finds no running lines in a one-page document', () => {
    const line = { start: 72, end: 200, size: 10, bold: false, direction: 0 }
    const document = buildMarkdown([
      {
        number: 1,
        lines: [
          { ...line, text: 'Header', baseline: 760 },
          { ...line, text: 'Body text.', baseline: 700 },
        ],
      },
    ])
    expect(document.pages[0]!.running).toEqual([])
    expect(document.markdown).toContain('Header')
  })
})

// Real PDFs from the shared corpus, against expectations checked by hand on the rendered pages.
describe.runIf(corpusPresent)('extract_pdf mode=markdown on corpus PDFs', () => {
  const markdownOf = async (file: string, options: { first_page?: number; last_page?: number } = {}) => {
    const run = await runTool(join(pdfCorpusDir, file), { mode: 'markdown', ocr: 'off', ...options })
    const name = Object.keys(run.files).find((key) => key.endsWith('.md'))!
    const json = Object.keys(run.files).find((key) => key.endsWith('.pages.json'))!
    return { markdown: run.files[name]!, pages: JSON.parse(run.files[json]!).pages as PageJson[] }
  }

  it('pypdf/multicolumn.pdf: title and section headings, columns joined mid-sentence, page numbers left out', async () => {
    const { markdown, pages } = await markdownOf('pypdf/multicolumn.pdf')
    expect(markdown).toMatch(/^# Two-Column Document with Lorem Ipsum$/m)
    expect(markdown).toMatch(/^## Abstract$/m)
    // The left column ends with "Donec nonummy", the right one begins with "pellentesque ante".
    expect(markdown).toContain('Donec nonummy pellentesque ante.')
    expect(pages.map((page) => page.running)).toEqual(
      [1, 2, 3].map((n) => [{ text: String(n), kind: 'page_number' }]),
    )
  })

  it('long/bashref.pdf: the running chapter header and page numbers are left out, section headings kept', async () => {
    const { markdown, pages } = await markdownOf('long/bashref.pdf', { first_page: 20, last_page: 24 })
    expect(markdown).not.toContain('Chapter 3: Basic Shell Features')
    for (const page of pages)
      expect(page.running.map((line) => line.kind).sort()).toEqual(['header', 'page_number'])
    expect(markdown).toMatch(/^#+ 3\.2\.6 Coprocesses$/m)
  })
})
