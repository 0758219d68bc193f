// PDFs of ruled tables whose structure is known, one case a page: a fully ruled grid, a ruled table
// with narrow columns (its cells closer than the core's line-join gap), a booktabs-style table with
// rules only across, a table with merged cells (a column span and a row span) drawn with thin
// filled rectangles, a ruled table across a page break (header repeated), and a framed paragraph
// that is no table. The truth is each table's cells as GFM can hold them: a merged cell's text in
// its top-left cell, the cells it covers empty.
import type { FilledBox, PageSpec, Rule, TextRun } from '../support/pdf-writer.ts'
import { writePdf } from '../support/pdf-writer.ts'

export interface TableCase {
  name: string
  truth: string[][]
}

interface Span {
  row: number
  column: number
  rows: number
  columns: number
}

interface RuledTable {
  /** Column boundaries, left to right. */
  xs: number[]
  top: number
  rowHeight: number
  size: number
  /** Cells by grid position; a spanned cell's text at its top-left position, covered ones ''. */
  cells: string[][]
  spans?: Span[]
  /** Draw borders as thin filled rectangles instead of strokes. */
  filled?: boolean
}

/** Runs and borders of a ruled table: each cell (merged ones whole) draws its own four sides. */
function drawRuled(table: RuledTable): { runs: TextRun[]; rules: Rule[]; fills: FilledBox[] } {
  const { xs, top, rowHeight, size, cells } = table
  const ys = Array.from({ length: cells.length + 1 }, (_, r) => top - r * rowHeight)
  const covered = new Set<string>()
  const spanAt = new Map<string, Span>()
  for (const span of table.spans ?? []) {
    spanAt.set(`${span.row}:${span.column}`, span)
    for (let r = span.row; r < span.row + span.rows; r++)
      for (let c = span.column; c < span.column + span.columns; c++)
        if (r !== span.row || c !== span.column) covered.add(`${r}:${c}`)
  }
  const runs: TextRun[] = []
  const rules: Rule[] = []
  const fills: FilledBox[] = []
  const side = (x1: number, y1: number, x2: number, y2: number) => {
    if (table.filled)
      fills.push({
        x: Math.min(x1, x2) - 0.3,
        y: Math.min(y1, y2) - 0.3,
        width: Math.abs(x2 - x1) + 0.6,
        height: Math.abs(y2 - y1) + 0.6,
      })
    else rules.push({ x1, y1, x2, y2 })
  }
  cells.forEach((row, r) => {
    row.forEach((text, c) => {
      if (covered.has(`${r}:${c}`)) return
      const span = spanAt.get(`${r}:${c}`) ?? { row: r, column: c, rows: 1, columns: 1 }
      const [left, right] = [xs[c]!, xs[c + span.columns]!]
      const [upper, lower] = [ys[r]!, ys[r + span.rows]!]
      side(left, upper, right, upper)
      side(left, lower, right, lower)
      side(left, lower, left, upper)
      side(right, lower, right, upper)
      // Text sits in the middle of the (merged) cell's height, as table layouts place it.
      if (text) runs.push({ x: left + 3, y: (upper + lower) / 2 - size * 0.35, size, text })
    })
  })
  return { runs, rules, fills }
}

const heading = (text: string, y = 740): TextRun => ({ x: 72, y, size: 14, font: 'Helvetica-Bold', text })
const prose = (text: string, y: number): TextRun => ({ x: 72, y, size: 10, font: 'Times-Roman', text })

export function rulesSetPdf(): { pdf: Buffer; cases: TableCase[]; framedText: string[] } {
  const pages: PageSpec[] = []
  const cases: TableCase[] = []

  const grid = [
    ['Station', 'Latitude', 'Altitude (m)', 'Opened'],
    ['Aberdeen', '57.15', '65', '1868'],
    ['Bergen | Florida', '60.39', '12', '1904'],
    ['Coimbra', '40.20', '141', '1866'],
    ['Dundee', '56.46', '45', '1921'],
  ]
  const one = drawRuled({ xs: [72, 200, 300, 420, 520], top: 700, rowHeight: 20, size: 10, cells: grid })
  pages.push({
    runs: [heading('Weather stations'), prose('The stations below report every hour.', 715), ...one.runs],
    rules: one.rules,
  })
  cases.push({ name: 'fully ruled grid', truth: grid })

  const narrow = [
    ['Run', 'A', 'B', 'C', 'D', 'E', 'F', 'G'],
    ['r1', '3.14', '2.71', '1.41', '1.73', '0.57', '4.66', '2.50'],
    ['r2', '6.02', '1.60', '9.81', '8.31', '6.67', '2.99', '1.38'],
    ['r3', '0.01', '0.10', '1.00', '10.0', '99.9', '12.3', '45.6'],
  ]
  const two = drawRuled({
    xs: Array.from({ length: 9 }, (_, i) => 72 + i * 30),
    top: 700,
    rowHeight: 14,
    size: 8,
    cells: narrow,
  })
  pages.push({
    runs: [heading('Measurements'), prose('Eight narrow columns of readings.', 715), ...two.runs],
    rules: two.rules,
  })
  cases.push({ name: 'narrow-column ruled table', truth: narrow })

  const booktabs = [
    ['Model', 'Parameters', 'Accuracy'],
    ['Baseline', '1.2M', '71.3'],
    ['Wide', '4.8M', '74.9'],
    ['Deep', '5.1M', '76.2'],
  ]
  const three: TextRun[] = [heading('Results'), prose('Accuracy on the held-out set.', 715)]
  const columnsX = [72, 200, 330]
  booktabs.forEach((row, r) => {
    row.forEach((text, c) => {
      three.push({ x: columnsX[c]!, y: 680 - r * 16 - (r > 0 ? 4 : 0), size: 10, text })
    })
  })
  pages.push({
    runs: [...three, prose('The deep model is best by a small margin.', 590)],
    rules: [
      { x1: 70, y1: 695, x2: 420, y2: 695, width: 1 },
      { x1: 70, y1: 672, x2: 420, y2: 672, width: 0.5 },
      { x1: 70, y1: 620, x2: 420, y2: 620, width: 1 },
    ],
  })
  cases.push({ name: 'booktabs-style table', truth: booktabs })

  const merged = [
    ['Region', 'Sales', '', 'Staff'],
    ['', 'H1', 'H2', ''],
    ['North', '120', '135', '14'],
    ['', '98', '101', '9'],
    ['South', '88', '93', '11'],
  ]
  const four = drawRuled({
    xs: [72, 180, 260, 340, 420],
    top: 700,
    rowHeight: 18,
    size: 10,
    cells: merged,
    filled: true,
    spans: [
      { row: 0, column: 0, rows: 2, columns: 1 },
      { row: 0, column: 1, rows: 1, columns: 2 },
      { row: 0, column: 3, rows: 2, columns: 1 },
      { row: 2, column: 0, rows: 2, columns: 1 },
    ],
  })
  pages.push({
    runs: [heading('Sales by region'), prose('Half-year sales with merged headers.', 715), ...four.runs],
    fills: four.fills,
  })
  cases.push({ name: 'merged cells (column and row spans)', truth: merged })

  const header = ['Part', 'Supplier', 'Stock']
  const firstHalf = [
    header,
    ['Bolt M4', 'Acme', '1200'],
    ['Nut M4', 'Acme', '3400'],
    ['Washer', 'Brill', '800'],
  ]
  const secondHalf = [header, ['Spring', 'Coil & Co', '150'], ['Pin', 'Brill', '95']]
  const xs = [72, 200, 330, 420]
  const five = drawRuled({ xs, top: 160, rowHeight: 20, size: 10, cells: firstHalf })
  const six = drawRuled({ xs, top: 740, rowHeight: 20, size: 10, cells: secondHalf })
  pages.push({
    runs: [heading('Inventory'), prose('The inventory continues on the next page.', 715), ...five.runs],
    rules: five.rules,
  })
  pages.push({ runs: [...six.runs, prose('End of the inventory.', 600)], rules: six.rules })
  cases.push({ name: 'ruled table across a page break', truth: [...firstHalf, ...secondHalf.slice(1)] })

  const framedText = [
    'Note: this paragraph is set in a frame to draw the eye,',
    'as documents do with warnings and summaries; it is text,',
    'not a table of one cell.',
  ]
  pages.push({
    runs: [heading('A framed note'), ...framedText.map((text, i) => prose(text, 690 - i * 14))],
    rules: [
      { x1: 66, y1: 705, x2: 400, y2: 705 },
      { x1: 66, y1: 655, x2: 400, y2: 655 },
      { x1: 66, y1: 655, x2: 66, y2: 705 },
      { x1: 400, y1: 655, x2: 400, y2: 705 },
    ],
  })
  pages.push(figuresPage())
  return { pdf: writePdf(pages), cases, framedText }
}

/** Figures drawn with rules that are no tables, each failing one test of ruled-tables.ts: a plot's
 * crossing axes with tick labels side by side, a lattice of boxes mostly empty, and boxes in two
 * columns whose rows mostly hold one label. */
function figuresPage(): PageSpec {
  const runs: TextRun[] = [heading('Figures')]
  const rules: Rule[] = [
    { x1: 72, y1: 600, x2: 372, y2: 600 },
    { x1: 222, y1: 520, x2: 222, y2: 680 },
    // The plot's frame.
    { x1: 72, y1: 520, x2: 372, y2: 520 },
    { x1: 72, y1: 680, x2: 372, y2: 680 },
    { x1: 72, y1: 520, x2: 72, y2: 680 },
    { x1: 372, y1: 520, x2: 372, y2: 680 },
  ]
  for (const [text, x] of [
    ['-2', 100],
    ['-1', 160],
    ['1', 250],
    ['2', 310],
  ] as const)
    runs.push({ x, y: 588, size: 8, text })
  for (const [text, y] of [
    ['1', 630],
    ['2', 660],
  ] as const)
    runs.push({ x: 210, y, size: 8, text })
  runs.push({ x: 320, y: 660, size: 8, text: 'f(x)' })
  // A lattice of 4 by 3 boxes, half of them labelled, every row and column with two labels.
  for (let i = 0; i <= 4; i++) rules.push({ x1: 72 + i * 80, y1: 390, x2: 72 + i * 80, y2: 480 })
  for (let i = 0; i <= 3; i++) rules.push({ x1: 72, y1: 480 - i * 30, x2: 392, y2: 480 - i * 30 })
  const lattice = [
    ['in', 0, 0],
    ['sort', 0, 1],
    ['merge', 1, 2],
    ['out', 1, 3],
    ['log', 2, 0],
    ['end', 2, 3],
  ] as const
  for (const [text, row, column] of lattice)
    runs.push({ x: 76 + column * 80, y: 460 - row * 30, size: 10, text })
  const labels = [
    ['Start', ''],
    ['', 'Step'],
    ['Stop', 'End'],
    ['Go', 'Halt'],
  ]
  for (let r = 0; r <= 4; r++) rules.push({ x1: 72, y1: 340 - r * 24, x2: 272, y2: 340 - r * 24 })
  for (const x of [72, 172, 272]) rules.push({ x1: x, y1: 244, x2: x, y2: 340 })
  labels.forEach((row, r) => {
    row.forEach((text, c) => {
      if (text) runs.push({ x: 76 + c * 100, y: 324 - r * 24, size: 10, text })
    })
  })
  return { runs, rules }
}
