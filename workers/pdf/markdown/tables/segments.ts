// Ruling lines as the PDF core reports them (boxes) turned into horizontal and vertical segments,
// with the pieces of one drawn line joined: producers often draw a rule cell by cell, or twice.
export interface PageRule {
  x0: number
  y0: number
  x1: number
  y1: number
}

/** A horizontal segment lies at y = `at` from x = `from` to `to`; a vertical one at x = `at`. */
export interface Segment {
  at: number
  from: number
  to: number
}

/** Positions this close (points) are one line: strokes of different widths, rounding. */
export const SNAP = 2

export function splitRules(rules: readonly PageRule[]): { horizontal: Segment[]; vertical: Segment[] } {
  const horizontal: Segment[] = []
  const vertical: Segment[] = []
  for (const rule of rules) {
    const width = rule.x1 - rule.x0
    const height = rule.y1 - rule.y0
    if (width >= height) horizontal.push({ at: (rule.y0 + rule.y1) / 2, from: rule.x0, to: rule.x1 })
    else vertical.push({ at: (rule.x0 + rule.x1) / 2, from: rule.y0, to: rule.y1 })
  }
  return { horizontal: joinSegments(horizontal), vertical: joinSegments(vertical) }
}

/** Segments on one line (within SNAP) that touch or overlap become one. */
export function joinSegments(segments: readonly Segment[]): Segment[] {
  const sorted = [...segments].sort((a, b) => a.at - b.at || a.from - b.from)
  const lines: Segment[][] = []
  for (const segment of sorted) {
    const line = lines.at(-1)
    if (line && segment.at - line[0]!.at <= SNAP) line.push(segment)
    else lines.push([segment])
  }
  const joined: Segment[] = []
  for (const line of lines) {
    const at = line.reduce((sum, segment) => sum + segment.at, 0) / line.length
    const pieces = [...line].sort((a, b) => a.from - b.from)
    let current: Segment | null = null
    for (const piece of pieces) {
      if (current && piece.from <= current.to + SNAP) current.to = Math.max(current.to, piece.to)
      else {
        current = { at, from: piece.from, to: piece.to }
        joined.push(current)
      }
    }
  }
  return joined
}

/** Sorted positions with those within SNAP of each other taken as one (their mean). */
export function snapPositions(values: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b)
  const groups: number[][] = []
  for (const value of sorted) {
    const group = groups.at(-1)
    if (group && value - group.at(-1)! <= SNAP) group.push(value)
    else groups.push([value])
  }
  return groups.map((group) => group.reduce((sum, value) => sum + value, 0) / group.length)
}

/** Some segment of `segments` lies at `at` and covers `point` along its length. */
export const covers = (segments: readonly Segment[], at: number, point: number) =>
  segments.some(
    (segment) =>
      Math.abs(segment.at - at) <= SNAP && segment.from - SNAP <= point && point <= segment.to + SNAP,
  )
