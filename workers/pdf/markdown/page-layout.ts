// The regions of one page in reading order: tables (rows of cells set apart on a shared baseline,
// aligned in columns) and text lines; when the page is set in columns, the lines of each band are
// read column by column, whatever order the producer wrote them in.
import type { MarkdownLine } from './types.ts'

export interface TableRegion {
  kind: 'table'
  rows: string[][]
  /** Line indexes the table is made of. */
  lines: number[]
  top: number
}

export interface LineRegion {
  kind: 'line'
  index: number
}

export type Region = TableRegion | LineRegion

interface Row {
  baseline: number
  /** Line indexes, left to right. */
  cells: number[]
}

/** Cells of one table row hold short texts; two columns of prose hold long lines. */
const MAX_MEAN_CELL_CHARS = 32
/** A gutter between text columns is at least this wide (points). */
const MIN_GUTTER = 10

function rowsOf(lines: readonly MarkdownLine[], indexes: readonly number[]): Row[] {
  const sorted = [...indexes].sort((a, b) => lines[b]!.baseline - lines[a]!.baseline)
  const rows: Row[] = []
  for (const index of sorted) {
    const line = lines[index]!
    const row = rows.at(-1)
    if (row && Math.abs(row.baseline - line.baseline) <= 0.5 * line.size) row.cells.push(index)
    else rows.push({ baseline: line.baseline, cells: [index] })
  }
  for (const row of rows) row.cells.sort((a, b) => lines[a]!.start - lines[b]!.start)
  return rows
}

const overlap = (a: MarkdownLine, start: number, end: number) =>
  Math.min(a.end, end) - Math.max(a.start, start)

/** Runs of at least two consecutive multi-cell rows with short cells become tables. */
function findTables(lines: readonly MarkdownLine[], rows: readonly Row[]): TableRegion[] {
  const tables: TableRegion[] = []
  const tabular = (row: Row) => {
    if (row.cells.length < 2) return false
    const chars = row.cells.reduce((sum, index) => sum + lines[index]!.text.length, 0)
    return row.cells.length >= 3 || chars / row.cells.length <= MAX_MEAN_CELL_CHARS
  }
  let index = 0
  while (index < rows.length) {
    if (!tabular(rows[index]!)) {
      index++
      continue
    }
    let end = index + 1
    while (end < rows.length && tabular(rows[end]!)) end++
    const run = rows.slice(index, end)
    if (run.length >= 2) tables.push(tableOf(lines, run))
    index = end
  }
  return tables
}

/** Columns come from the widest row; every cell goes to the column it overlaps most. */
function tableOf(lines: readonly MarkdownLine[], run: readonly Row[]): TableRegion {
  const widest = run.reduce((best, row) => (row.cells.length > best.cells.length ? row : best))
  const columns = widest.cells.map((index) => ({ start: lines[index]!.start, end: lines[index]!.end }))
  // Columns span to the next column's start, so a cell wider than its header still lands right.
  const spans = columns.map((column, i) => ({
    start: i === 0 ? Number.NEGATIVE_INFINITY : column.start,
    end: i === columns.length - 1 ? Number.POSITIVE_INFINITY : columns[i + 1]!.start,
  }))
  const rows = run.map((row) => {
    const cells = columns.map(() => [] as string[])
    for (const index of row.cells) {
      const line = lines[index]!
      let best = 0
      let bestOverlap = Number.NEGATIVE_INFINITY
      spans.forEach((span, i) => {
        const amount = overlap(line, span.start, span.end)
        if (amount > bestOverlap) {
          bestOverlap = amount
          best = i
        }
      })
      cells[best]!.push(line.text)
    }
    return cells.map((parts) => parts.join(' '))
  })
  return {
    kind: 'table',
    rows,
    lines: run.flatMap((row) => row.cells),
    top: run[0]!.baseline,
  }
}

/** The x-range of a gutter between two text columns, or null for a page in one column. */
function findGutter(lines: readonly MarkdownLine[], indexes: readonly number[]): [number, number] | null {
  const horizontal = indexes.filter((index) => lines[index]!.direction === 0)
  if (horizontal.length < 6) return null
  const left = Math.min(...horizontal.map((index) => lines[index]!.start))
  const right = Math.max(...horizontal.map((index) => lines[index]!.end))
  const middle = (left + right) / 2
  // Ends of lines that stop near the middle and starts of lines that begin after it.
  const stops = horizontal
    .map((index) => lines[index]!)
    .filter((line) => line.end <= middle + (right - left) * 0.15)
  const starts = horizontal
    .map((index) => lines[index]!)
    .filter((line) => line.start >= middle - (right - left) * 0.15)
  if (stops.length < 3 || starts.length < 3) return null
  const stopsAt = Math.max(...stops.map((line) => line.end))
  const startsAt = Math.min(...starts.map((line) => line.start))
  if (startsAt - stopsAt < MIN_GUTTER) return null
  // Columns hold most of the page's lines; a few lines crossing the gutter (titles) are allowed.
  const crossing = horizontal.filter((index) => {
    const line = lines[index]!
    return line.start < startsAt - 1 && line.end > stopsAt + 1
  })
  if (crossing.length > horizontal.length / 4) return null
  return [stopsAt, startsAt]
}

/** Regions of the page (running lines already left out) in reading order. */
export function pageRegions(lines: readonly MarkdownLine[], kept: readonly number[]): Region[] {
  const rows = rowsOf(lines, kept)
  const tables = findTables(lines, rows)
  const inTable = new Map<number, TableRegion>()
  for (const table of tables) for (const index of table.lines) inTable.set(index, table)
  const free = kept.filter((index) => !inTable.has(index))
  const gutter = findGutter(lines, free)
  if (!gutter) {
    // One column: the producer's order (plain mode's), each table where its first line was.
    const regions: Region[] = []
    const placed = new Set<TableRegion>()
    for (const index of kept) {
      const table = inTable.get(index)
      if (!table) regions.push({ kind: 'line', index })
      else if (!placed.has(table)) {
        placed.add(table)
        regions.push(table)
      }
    }
    return regions
  }
  // Bands between lines or tables that cross the gutter; in each band, the left column first.
  const [stopsAt, startsAt] = gutter
  const spanning = (line: MarkdownLine) => line.start < startsAt - 1 && line.end > stopsAt + 1
  const items: { top: number; region: Region; side: 'span' | 'left' | 'right' }[] = []
  for (const index of free) {
    const line = lines[index]!
    const side = spanning(line) ? 'span' : line.end <= stopsAt + 1 ? 'left' : 'right'
    items.push({ top: line.baseline, region: { kind: 'line', index }, side })
  }
  for (const table of tables) items.push({ top: table.top, region: table, side: 'span' })
  items.sort((a, b) => b.top - a.top)
  const regions: Region[] = []
  let left: Region[] = []
  let right: Region[] = []
  const flush = () => {
    regions.push(...left, ...right)
    left = []
    right = []
  }
  for (const item of items) {
    if (item.side === 'span') {
      flush()
      regions.push(item.region)
    } else (item.side === 'left' ? left : right).push(item.region)
  }
  flush()
  return regions
}
