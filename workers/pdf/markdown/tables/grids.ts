// Grids from ruling lines: horizontal and vertical rules that cross or touch form one connected
// figure; its distinct rule positions cut it into rows and columns, and a cell whose inside has no
// rule between two grid columns (or rows) spans them, as a merged cell does.
import { covers, type Segment, SNAP, snapPositions } from './segments.ts'

export interface GridCell {
  row: number
  column: number
  rowSpan: number
  columnSpan: number
}

export interface Grid {
  /** Column boundaries, left to right. */
  xs: number[]
  /** Row boundaries, top to bottom (y decreasing). */
  ys: number[]
  /** Every grid position belongs to exactly one cell: its own, or a spanning one's. */
  cells: GridCell[]
  /** The rules of the grid, for rendering decisions above. */
  horizontal: Segment[]
  vertical: Segment[]
}

const touches = (horizontal: Segment, vertical: Segment) =>
  vertical.at >= horizontal.from - SNAP &&
  vertical.at <= horizontal.to + SNAP &&
  horizontal.at >= vertical.from - SNAP &&
  horizontal.at <= vertical.to + SNAP

/** Groups of rules that are connected through crossings (union-find over the segments). */
function connectedFigures(horizontal: readonly Segment[], vertical: readonly Segment[]) {
  const parent = Array.from({ length: horizontal.length + vertical.length }, (_, index) => index)
  const find = (index: number): number => {
    while (parent[index] !== index) {
      parent[index] = parent[parent[index]!]!
      index = parent[index]!
    }
    return index
  }
  horizontal.forEach((h, i) => {
    vertical.forEach((v, j) => {
      if (touches(h, v)) parent[find(i)] = find(horizontal.length + j)
    })
  })
  const figures = new Map<number, { horizontal: Segment[]; vertical: Segment[] }>()
  const figureOf = (index: number) => {
    const root = find(index)
    let figure = figures.get(root)
    if (!figure) {
      figure = { horizontal: [], vertical: [] }
      figures.set(root, figure)
    }
    return figure
  }
  horizontal.forEach((h, i) => {
    figureOf(i).horizontal.push(h)
  })
  vertical.forEach((v, j) => {
    figureOf(horizontal.length + j).vertical.push(v)
  })
  return [...figures.values()]
}

/** The grid of one figure; sides left open (no outer vertical rule) end where the rules end. */
function gridOf(horizontal: Segment[], vertical: Segment[]): Grid {
  const xs = snapPositions([
    ...vertical.map((v) => v.at),
    Math.min(...horizontal.map((h) => h.from)),
    Math.max(...horizontal.map((h) => h.to)),
  ])
  const ys = snapPositions([
    ...horizontal.map((h) => h.at),
    Math.min(...vertical.map((v) => v.from)),
    Math.max(...vertical.map((v) => v.to)),
  ]).reverse()
  const rows = ys.length - 1
  const columns = xs.length - 1
  const taken = Array.from({ length: rows }, () => new Array<boolean>(columns).fill(false))
  const cells: GridCell[] = []
  for (let row = 0; row < rows; row++) {
    const middleY = (ys[row]! + ys[row + 1]!) / 2
    for (let column = 0; column < columns; column++) {
      if (taken[row]![column]) continue
      let columnSpan = 1
      while (column + columnSpan < columns && !covers(vertical, xs[column + columnSpan]!, middleY))
        columnSpan++
      let rowSpan = 1
      const open = (boundary: number) => {
        for (let c = column; c < column + columnSpan; c++) {
          if (taken[boundary]![c]) return false
          if (covers(horizontal, ys[boundary]!, (xs[c]! + xs[c + 1]!) / 2)) return false
        }
        return true
      }
      while (row + rowSpan < rows && open(row + rowSpan)) rowSpan++
      for (let r = row; r < row + rowSpan; r++)
        for (let c = column; c < column + columnSpan; c++) taken[r]![c] = true
      cells.push({ row, column, rowSpan, columnSpan })
    }
  }
  return { xs, ys, cells, horizontal, vertical }
}

/** Grids of at least two rows and two columns of rule positions; a lone frame is no grid. */
/** More grid positions than a table on one page could show legibly: a drawing, not a table. */
const MAX_GRID_POSITIONS = 20_000

export function findGrids(horizontal: readonly Segment[], vertical: readonly Segment[]): Grid[] {
  return connectedFigures(horizontal, vertical)
    .filter((figure) => figure.horizontal.length >= 2 && figure.vertical.length >= 1)
    .filter((figure) => (figure.horizontal.length + 2) * (figure.vertical.length + 2) <= MAX_GRID_POSITIONS)
    .map((figure) => gridOf(figure.horizontal, figure.vertical))
    .filter((grid) => grid.xs.length >= 3 && grid.ys.length >= 3)
}

/** Rules that belong to no grid: candidates for tables ruled only across (booktabs). */
export function looseHorizontals(horizontal: readonly Segment[], vertical: readonly Segment[]): Segment[] {
  return horizontal.filter((h) => !vertical.some((v) => touches(h, v)))
}
