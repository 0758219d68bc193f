// Tables drawn with ruling lines. A grid of rules gives the cells, merged cells included, and each
// text line goes to the cell its middle lies in. Rules only across the page (top, middle and bottom
// rules, as booktabs draws them) give the table's extent and rows; columns then come from where
// the text stands. A GFM cell cannot span: a merged cell's text goes in its top-left cell and the
// cells it covers stay empty, so every word is written once and columns keep their places.
import type { TableRegion } from '../page-layout.ts'
import type { MarkdownLine } from '../types.ts'
import { findGrids, type Grid, looseHorizontals } from './grids.ts'
import { type PageRule, type Segment, SNAP, splitRules } from './segments.ts'

/** Text between rules only across is a table when its cells are short, as in tables, not prose. */
const MAX_MEAN_CELL_CHARS = 32
/** Shorter rules are tick marks, boxes around symbols, underlines of a word: no cell borders. */
const MIN_TABLE_RULE = 6
/** A table fills most of its cells; a figure drawn with boxes and axes leaves most empty. */
const MIN_FILLED_SHARE = 0.6
/** Far above a page of real tables (the core keeps at most 10,000 rules a page): past it the page
 * is a drawing, and pairing every rule with every other would cost too much. */
export const MAX_PAGE_SEGMENTS = 3000

/** Where a line is read to be: the middle of its extent, a little above the baseline. */
const anchor = (line: MarkdownLine) => ({
  x: (line.start + line.end) / 2,
  y: line.baseline + 0.3 * line.size,
})

/** Cell texts in reading order: top to bottom, then left to right. */
function joinCell(lines: readonly MarkdownLine[]): string {
  return [...lines]
    .sort((a, b) => b.baseline - a.baseline || a.start - b.start)
    .map((line) => line.text.trim())
    .join(' ')
}

/** Drops rows left with no text, and columns with no text that are too narrow to hold any (a
 * doubled border); a wide empty column stays, as empty slots of a ruled table carry meaning. */
function withoutEmpty(rows: string[][], widths?: readonly number[]): string[][] {
  const filled = rows.filter((row) => row.some((cell) => cell !== ''))
  const width = Math.max(0, ...filled.map((row) => row.length))
  const keep = Array.from(
    { length: width },
    (_, c) => (widths?.[c] ?? 0) >= MIN_TABLE_RULE || filled.some((row) => (row[c] ?? '') !== ''),
  )
  return filled.map((row) => row.filter((_, c) => keep[c]))
}

/** Boxes of a diagram joined by lines leave rows of one label among empty cells; a table's rows
 * hold several cells each, but for the odd row of one cell spanning the table. */
function isTable(rows: readonly string[][]): boolean {
  const cells = rows.flat().filter((cell) => cell !== '')
  const lonely = rows.filter((row) => row.filter((cell) => cell !== '').length <= 1)
  return (
    rows.length >= 2 &&
    (rows[0]?.length ?? 0) >= 2 &&
    cells.length >= 3 &&
    lonely.length <= 0.25 * rows.length
  )
}

function tableOfGrid(
  grid: Grid,
  lines: readonly MarkdownLine[],
  candidates: readonly number[],
): TableRegion | null {
  const { xs, ys } = grid
  const owner = new Map<string, number>()
  grid.cells.forEach((cell, index) => {
    for (let r = cell.row; r < cell.row + cell.rowSpan; r++)
      for (let c = cell.column; c < cell.column + cell.columnSpan; c++) owner.set(`${r}:${c}`, index)
  })
  const members = grid.cells.map(() => [] as MarkdownLine[])
  const taken: number[] = []
  for (const index of candidates) {
    const { x, y } = anchor(lines[index]!)
    const column = xs.findIndex((left, c) => c < xs.length - 1 && x >= left && x < xs[c + 1]!)
    const row = ys.findIndex((top, r) => r < ys.length - 1 && y <= top && y > ys[r + 1]!)
    if (column < 0 || row < 0) continue
    members[owner.get(`${row}:${column}`)!]!.push(lines[index]!)
    taken.push(index)
  }
  // Labels side by side on one baseline in one cell are the tick labels of a plot's axis, not a
  // cell's text; and a figure of boxes leaves most of its cells empty. Cells too small for text
  // (the gaps between borders drawn apart) do not count.
  const roomy = grid.cells.flatMap((cell, index) =>
    xs[cell.column + cell.columnSpan]! - xs[cell.column]! >= MIN_TABLE_RULE &&
    ys[cell.row]! - ys[cell.row + cell.rowSpan]! >= MIN_TABLE_RULE
      ? [members[index]!]
      : [],
  )
  const filled = members.filter((cell) => cell.length > 0)
  const sideBySide = filled.filter((cell) =>
    cell.some((a, i) => cell.some((b, j) => j > i && Math.abs(a.baseline - b.baseline) < 0.5 * a.size)),
  )
  if (filled.length < MIN_FILLED_SHARE * roomy.length || sideBySide.length > 0.1 * filled.length) return null
  const rows = Array.from({ length: ys.length - 1 }, () => new Array<string>(xs.length - 1).fill(''))
  grid.cells.forEach((cell, index) => {
    rows[cell.row]![cell.column] = joinCell(members[index]!)
  })
  const kept = withoutEmpty(
    rows,
    xs.slice(1).map((x, c) => x - xs[c]!),
  )
  if (!isTable(kept)) return null
  return { kind: 'table', rows: kept, lines: taken, top: ys[0]! }
}

/** Rules across of (nearly) the same extent, two or more: the frame of a booktabs-style table. */
function ruleStacks(horizontal: readonly Segment[]): Segment[][] {
  const stacks: Segment[][] = []
  for (const rule of [...horizontal].sort((a, b) => b.at - a.at)) {
    const stack = stacks.find(
      (s) => Math.abs(s[0]!.from - rule.from) <= 2 * SNAP && Math.abs(s[0]!.to - rule.to) <= 2 * SNAP,
    )
    if (stack) stack.push(rule)
    else stacks.push([rule])
  }
  return stacks.filter((stack) => stack.length >= 2)
}

/** Columns where text stands: x-extents of the body rows' lines that overlap are one column. */
function columnsOf(lines: readonly MarkdownLine[]): { start: number; end: number }[] {
  const extents = [...lines].sort((a, b) => a.start - b.start)
  const columns: { start: number; end: number }[] = []
  for (const line of extents) {
    const column = columns.at(-1)
    if (column && line.start <= column.end + 0.5 * line.size) column.end = Math.max(column.end, line.end)
    else columns.push({ start: line.start, end: line.end })
  }
  return columns
}

function tableOfStack(
  stack: readonly Segment[],
  lines: readonly MarkdownLine[],
  candidates: readonly number[],
): TableRegion | null {
  const top = stack[0]!.at
  const bottom = stack.at(-1)!.at
  const inside = candidates.filter((index) => {
    const { x, y } = anchor(lines[index]!)
    return y < top && y > bottom && x >= stack[0]!.from - SNAP && x <= stack[0]!.to + SNAP
  })
  if (inside.length < 4) return null
  // Below the second rule is the body; the header above it may hold cells spanning columns.
  const body = stack.length >= 3 ? inside.filter((index) => lines[index]!.baseline < stack[1]!.at) : inside
  const columns = columnsOf(body.map((index) => lines[index]!))
  if (columns.length < 2) return null
  const rows: { baseline: number; cells: MarkdownLine[][] }[] = []
  for (const index of [...inside].sort((a, b) => lines[b]!.baseline - lines[a]!.baseline)) {
    const line = lines[index]!
    let row = rows.at(-1)
    if (!row || row.baseline - line.baseline > 0.5 * line.size) {
      row = { baseline: line.baseline, cells: columns.map(() => []) }
      rows.push(row)
    }
    const overlap = (c: { start: number; end: number }) =>
      Math.min(line.end, c.end) - Math.max(line.start, c.start)
    let best = 0
    columns.forEach((column, c) => {
      if (overlap(column) > overlap(columns[best]!)) best = c
    })
    row.cells[best]!.push(line)
  }
  const texts = withoutEmpty(rows.map((row) => row.cells.map(joinCell)))
  const filled = texts.flat().filter((cell) => cell !== '')
  const meanChars = filled.reduce((sum, cell) => sum + cell.length, 0) / Math.max(1, filled.length)
  if (!isTable(texts) || meanChars > MAX_MEAN_CELL_CHARS) return null
  return { kind: 'table', rows: texts, lines: inside, top }
}

/** The ruled tables of one page, from its rules and the lines still free (running lines left out). */
export function ruledTables(
  lines: readonly MarkdownLine[],
  kept: readonly number[],
  rules: readonly PageRule[],
): TableRegion[] {
  if (rules.length === 0) return []
  const split = splitRules(rules)
  const long = (segment: Segment) => segment.to - segment.from >= MIN_TABLE_RULE
  const horizontal = split.horizontal.filter(long)
  const vertical = split.vertical.filter(long)
  if (horizontal.length + vertical.length > MAX_PAGE_SEGMENTS) return []
  const free = new Set(kept.filter((index) => lines[index]!.direction === 0))
  const tables: TableRegion[] = []
  const claim = (table: TableRegion | null) => {
    if (!table) return
    tables.push(table)
    for (const index of table.lines) free.delete(index)
  }
  for (const grid of findGrids(horizontal, vertical)) claim(tableOfGrid(grid, lines, [...free]))
  for (const stack of ruleStacks(looseHorizontals(horizontal, vertical)))
    claim(tableOfStack(stack, lines, [...free]))
  return tables
}
