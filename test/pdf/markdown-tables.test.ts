// Ruled tables in mode=markdown, scored cell by cell (precision and recall) against PDFs whose
// structure is known (test/pdf/markdown-tables-set.ts), with plain mode's words all kept, once.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { extractPdfText } from '../../native/pdf.ts'
import { MAX_PAGE_SEGMENTS, ruledTables } from '../../workers/pdf/markdown/tables/ruled-tables.ts'
import { corpusPresent, pdfCorpusDir } from './corpus.ts'
import { rulesSetPdf } from './markdown-tables-set.ts'
import { runTool, type ToolRun } from './run-tool.ts'
import { cellScores, markdownTables, tokens } from './structured.ts'

const { pdf, cases, framedText } = rulesSetPdf()
const path = join(mkdtempSync(join(tmpdir(), 'kiln-md-tables-')), 'tables.pdf')
writeFileSync(path, pdf)

const unescaped = (table: string[][]) => table.map((row) => row.map((cell) => cell.replace(/\\\|/g, '|')))

describe('extract_pdf mode=markdown on ruled tables of known structure', () => {
  let run: ToolRun
  let plain: ToolRun
  let markdown = ''
  beforeAll(async () => {
    run = await runTool(path, { mode: 'markdown', ocr: 'off' })
    plain = await runTool(path, { mode: 'plain', ocr: 'off' })
    markdown = run.files['tables.md'] ?? ''
  })

  it('finds one table per case, the one across the page break joined, and none in the frame', () => {
    // Page 8 holds figures, which alignment alone may still read as a table (see below).
    expect(markdownTables(markdown.split('<!-- page 8 -->')[0]!)).toHaveLength(cases.length)
    expect(markdown).toContain(framedText.join(' '))
  })

  it('scores every table cell for cell against the known structure', () => {
    const tables = markdownTables(markdown).map(unescaped)
    let hits = 0
    let found = 0
    let wanted = 0
    cases.forEach((entry, index) => {
      const { precision, recall } = cellScores(tables[index] ?? [], entry.truth)
      const filled = (rows: string[][]) => rows.flat().filter((cell) => cell !== '').length
      found += filled(tables[index] ?? [])
      wanted += filled(entry.truth)
      hits += recall * filled(entry.truth)
      console.log(
        `ruled table "${entry.name}": precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`,
      )
      expect(tables[index], entry.name).toEqual(entry.truth)
    })
    console.log(
      `ruled tables, all cells: precision ${(hits / found).toFixed(2)}, recall ${(hits / wanted).toFixed(2)}`,
    )
  })

  it('escapes a pipe inside a cell', () => {
    expect(markdown).toContain('| Bergen \\| Florida |')
  })

  it('drops the header row repeated after the page break and reports it', () => {
    const pages = JSON.parse(run.files['tables.pages.json'] ?? '{}').pages as {
      running: { kind: string }[]
    }[]
    expect(pages[5]!.running).toEqual([{ text: 'Part | Supplier | Stock', kind: 'repeated_table_header' }])
  })

  it("keeps plain mode's words: none lost or duplicated", () => {
    const plainText = plain.files['tables.txt']!.replace(/--- page \d+ ---/g, '')
    const withoutMarkers = markdown.replace(/<!-- page \d+ -->/g, '')
    expect(tokens(`${withoutMarkers}\nPart Supplier Stock`)).toEqual(tokens(plainText))
  })
})

describe('PDF core: ruling lines', () => {
  it('reports strokes and thin filled rectangles only when lines are asked for', async () => {
    const bytes = Buffer.from(pdf)
    const withLines = await extractPdfText(bytes, { firstPage: 1, lastPage: 4, mode: 'plain', lines: true })
    const counts = withLines.pages.map((page) => page.rules?.length ?? 0)
    // A 4x5 grid drawn cell by cell: 4 sides for each of 20 cells.
    expect(counts[0]).toBe(80)
    expect(counts[2]).toBe(3)
    // The merged table's 16 cells, each side a filled rectangle.
    expect(counts[3]).toBe(64)
    const top = withLines.pages[2]!.rules![0]!
    expect([top.x0, top.x1, (top.y0 + top.y1) / 2, top.y1 - top.y0]).toEqual([70, 420, 695, 1])
    const plainOnly = await extractPdfText(bytes, { firstPage: 1, lastPage: 4, mode: 'plain' })
    expect(plainOnly.pages.every((page) => page.rules === undefined && page.lines === undefined)).toBe(true)
  })

  it('makes no ruled table of figures: crossing axes with tick labels, a mostly empty lattice, boxes of one label a row', async () => {
    const bytes = Buffer.from(pdf)
    const page = (await extractPdfText(bytes, { firstPage: 8, lastPage: 8, mode: 'plain', lines: true }))
      .pages[0]!
    const lines = page.lines!
    expect(page.rules!.length).toBeGreaterThan(15)
    expect(
      ruledTables(
        lines,
        lines.map((_, index) => index),
        page.rules!,
      ),
    ).toEqual([])
    // The same rules around the known table's page do make one: the check above can fail.
    const grid = (await extractPdfText(bytes, { firstPage: 1, lastPage: 1, mode: 'plain', lines: true }))
      .pages[0]!
    expect(
      ruledTables(
        grid.lines!,
        grid.lines!.map((_, index) => index),
        grid.rules!,
      ),
    ).toHaveLength(1)
  })

  it('gives up on a page drawn with more rules than tables use, and on a grid too large to be one', () => {
    // Grids with a short text in every cell, which every other test takes for a table.
    const filledGrid = (rows: number, columns: number) => {
      const rules = [
        ...Array.from({ length: rows + 1 }, (_, r) => ({
          x0: 0,
          y0: r * 12,
          x1: columns * 40,
          y1: r * 12 + 0.5,
        })),
        ...Array.from({ length: columns + 1 }, (_, c) => ({
          x0: c * 40,
          y0: 0,
          x1: c * 40 + 0.5,
          y1: rows * 12,
        })),
      ]
      const lines = Array.from({ length: rows * columns }, (_, i) => ({
        text: `c${i}`,
        start: (i % columns) * 40 + 4,
        end: (i % columns) * 40 + 20,
        baseline: Math.floor(i / columns) * 12 + 3,
        size: 6,
        bold: false,
        direction: 0,
      }))
      return ruledTables(
        lines,
        lines.map((_, index) => index),
        rules,
      )
    }
    expect(filledGrid(20, 3)).toHaveLength(1)
    expect(filledGrid(MAX_PAGE_SEGMENTS, 2)).toEqual([])
    expect(filledGrid(150, 150)).toEqual([])
  })

  it('splits the narrow columns at their rules into one line per cell', async () => {
    const page = (
      await extractPdfText(Buffer.from(pdf), { firstPage: 2, lastPage: 2, mode: 'plain', lines: true })
    ).pages[0]!
    expect(page.text).toContain('r1 3.14 2.71 1.41')
    expect(page.lines!.map((line) => line.text)).toContain('3.14')
  })
})

// A real ruled table, checked by hand on the rendered page: SICP's figure 5.14 draws two memory
// vectors as a ruled grid of ten slots, some empty; its row and column labels stand outside it.
describe.runIf(corpusPresent)('extract_pdf mode=markdown on a ruled table in a corpus PDF', () => {
  it('long/sicp.pdf page 764: the memory vectors, empty slots kept in place', async () => {
    const run = await runTool(join(pdfCorpusDir, 'long/sicp.pdf'), {
      mode: 'markdown',
      ocr: 'off',
      first_page: 764,
      last_page: 764,
    })
    const markdown = run.files['sicp.md']!
    const tables = markdownTables(markdown)
    const vectors = tables.find((table) => table[0]?.includes('p5'))
    expect(vectors).toEqual([
      ['', 'p5', 'n3', '', 'n4', 'n1', '', 'n2', '', '...'],
      ['', 'p2', 'p4', '', 'e0', 'p7', '', 'e0', '', '...'],
    ])
    expect(markdown).toContain('Figure 5.14: Box-and-pointer and memory-vector representations')
  })
})
