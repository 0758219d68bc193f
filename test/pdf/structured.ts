// A PDF whose structure is known: headings, paragraphs with a hyphenated line end, lists, a table
// that runs across a page break (its header repeated), a page in two columns written row by row
// (left, right, left, …, so content order is not reading order), and a running header and page
// number on every page. Markdown is scored against what is written here.
import type { PageSpec, StandardFont, TextRun } from '../support/pdf-writer.ts'
import { writePdf } from '../support/pdf-writer.ts'
import { wrap } from './scanned.ts'

export interface StructuredTruth {
  headings: { level: number; text: string }[]
  /** Cells of the one table, its header first, as it should be after joining across the break. */
  table: string[][]
  /** Opening words of each paragraph or item, in reading order. */
  order: string[]
  running: string[]
  /** The lines of the two columns on page 2. */
  columns: { left: string[]; right: string[] }
}

const body = 10
const leading = 14

class PageWriter {
  runs: TextRun[] = []
  y = 700
  constructor(number: number) {
    this.runs.push({ x: 72, y: 760, size: 8, font: 'Helvetica', text: 'Kiln Quarterly Report' })
    this.runs.push({ x: 300, y: 40, size: 9, font: 'Helvetica', text: String(number) })
  }
  heading(text: string, size: number, font: StandardFont = 'Helvetica-Bold') {
    this.y -= size * 0.6
    this.runs.push({ x: 72, y: this.y, size, font, text })
    this.y -= size * 1.6
  }
  lines(lines: string[], x = 72, font: StandardFont = 'Times-Roman') {
    for (const line of lines) {
      this.runs.push({ x, y: this.y, size: body, font, text: line })
      this.y -= leading
    }
    this.y -= leading * 0.6
  }
  row(cells: string[], xs: number[]) {
    cells.forEach((text, i) => {
      this.runs.push({ x: xs[i]!, y: this.y, size: body, font: 'Helvetica', text })
    })
    this.y -= leading * 1.3
  }
}

const tableColumns = [72, 240, 400]

export function structuredPdf(): { pdf: Buffer; truth: StructuredTruth } {
  const pages: PageSpec[] = []
  const order: string[] = []
  const para = (writer: PageWriter, text: string, width = 90, x = 72) => {
    order.push(text.split(' ').slice(0, 4).join(' '))
    writer.lines(wrap(text, width), x)
  }

  const one = new PageWriter(1)
  one.heading('Annual Review of the Workshop', 20)
  para(
    one,
    'This review covers the twelve months of work in the pottery, from the first firing of the new kiln to the last delivery before the winter break, and sets out what changed.',
  )
  // A word broken at the line end by a hyphen, as typesetters do.
  order.push('The firing schedule was')
  one.lines([
    'The firing schedule was changed in spring so that the glaze kiln could run at night, which doubled produc-',
    'tion without a second shift and kept the energy bill within the budget agreed in January.',
  ])
  one.heading('Sales and Orders', 14)
  para(
    one,
    'Restaurants remained the largest customers, followed by shops in the old town and private buyers.',
  )
  for (const item of [
    '• Plates and bowls sold in sets of six',
    '• Cups sold singly or in pairs',
    '• Vases made to order',
  ]) {
    order.push(item.slice(2).split(' ').slice(0, 4).join(' '))
    one.lines([item])
  }
  one.heading('Notes on delivery', body, 'Times-Bold')
  para(one, 'Deliveries inside the town are made by bicycle; everything else goes by post in double boxes.')
  one.row(['Item', 'Pieces', 'Price'], tableColumns)
  one.row(['Bowl', '120', '8.50'], tableColumns)
  one.row(['Plate', '340', '11.00'], tableColumns)
  one.row(['Cup', '510', '6.25'], tableColumns)
  pages.push({ runs: one.runs })

  const two = new PageWriter(2)
  two.row(['Item', 'Pieces', 'Price'], tableColumns)
  two.row(['Vase', '45', '32.00'], tableColumns)
  two.row(['Jug', '80', '18.75'], tableColumns)
  two.y -= leading
  two.heading('Two Columns', 14)
  const left = wrap(
    'The left column begins here and tells how the clay is prepared: it is soaked, wedged by hand and left to rest for a week before it is thrown on the wheel, so that the water spreads evenly through it.',
    44,
  )
  const right = wrap(
    'The right column follows and tells how the pieces are finished: they are trimmed when leather hard, dried slowly under cloth, fired once to biscuit and then glazed and fired again.',
    44,
  )
  order.push('The left column begins', 'The right column follows')
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i]) two.runs.push({ x: 72, y: two.y, size: body, font: 'Times-Roman', text: left[i]! })
    if (right[i]) two.runs.push({ x: 330, y: two.y, size: body, font: 'Times-Roman', text: right[i]! })
    two.y -= leading
  }
  pages.push({ runs: two.runs })

  const three = new PageWriter(3)
  three.heading('Closing Remarks', 14)
  para(
    three,
    'Next year the workshop will open a second kiln and offer evening classes for beginners twice a week.',
  )
  for (const item of ['1. Order the second kiln by March', '2. Hire one more potter for the classes']) {
    order.push(item.slice(3).split(' ').slice(0, 4).join(' '))
    three.lines([item])
  }
  pages.push({ runs: three.runs })

  return {
    pdf: writePdf(pages),
    truth: {
      headings: [
        { level: 1, text: 'Annual Review of the Workshop' },
        { level: 2, text: 'Sales and Orders' },
        { level: 3, text: 'Notes on delivery' },
        { level: 2, text: 'Two Columns' },
        { level: 2, text: 'Closing Remarks' },
      ],
      table: [
        ['Item', 'Pieces', 'Price'],
        ['Bowl', '120', '8.50'],
        ['Plate', '340', '11.00'],
        ['Cup', '510', '6.25'],
        ['Vase', '45', '32.00'],
        ['Jug', '80', '18.75'],
      ],
      order,
      running: ['Kiln Quarterly Report', '1', '2', '3'],
      columns: { left, right },
    },
  }
}

/** Cells of the GFM tables in `markdown`, header rows included, separator rows left out. */
export function markdownTables(markdown: string): string[][][] {
  const tables: string[][][] = []
  let current: string[][] | null = null
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      if (/^\|(\s*-{3,}\s*\|)+$/.test(line)) continue
      current ??= []
      current.push(
        line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim()),
      )
    } else if (current) {
      tables.push(current)
      current = null
    }
  }
  if (current) tables.push(current)
  return tables
}

/** Precision and recall of cells, matched by (row, column) position and text. */
export function cellScores(found: string[][], truth: string[][]): { precision: number; recall: number } {
  const key = (rows: string[][]) =>
    new Set(
      rows.flatMap((row, r) => row.map((cell, c) => `${r}:${c}:${cell}`)).filter((k) => !k.endsWith(':')),
    )
  const got = key(found)
  const want = key(truth)
  const hits = [...got].filter((cell) => want.has(cell)).length
  return { precision: hits / Math.max(1, got.size), recall: hits / Math.max(1, want.size) }
}

/** Share of consecutive pairs of `order` that appear in that order in `text` (1 = all in order). */
export function orderScore(text: string, order: readonly string[]): number {
  const positions = order.map((anchor) => text.indexOf(anchor))
  let right = 0
  for (let i = 1; i < positions.length; i++)
    if (positions[i - 1]! >= 0 && positions[i]! > positions[i - 1]!) right++
  return right / Math.max(1, positions.length - 1)
}

/** Word tokens, for "nothing lost or duplicated": letters and digits only, sorted. */
export function tokens(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).sort()
}
