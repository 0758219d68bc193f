// Running headers, footers and page numbers: lines at the top or bottom of a page whose text,
// with its digits blurred, comes back at about the same height on many pages. They are left out of
// the Markdown and reported per page.
import type { MarkdownLine } from './types.ts'

export type RunningKind = 'header' | 'footer' | 'page_number'

/** Text left out of the Markdown, by why: running lines, or a table's header repeated after a page break. */
export type LeftOutKind = RunningKind | 'repeated_table_header'

export interface RunningLine {
  text: string
  kind: LeftOutKind
}

/** How many lines at each end of a page may be running lines. */
const EDGE_LINES = 2
/** Baselines of one running line differ by at most this many points between pages. */
const HEIGHT_TOLERANCE = 6
/** A text must recur on at least this share of the pages (and on 2 pages at least). */
const RECURRENCE = 0.5

const pageNumberPattern =
  /^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$/i

const blur = (text: string) => text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim()

/** The candidates of a page: its topmost and bottommost lines, with whether each is at the top. */
function edges(lines: readonly MarkdownLine[]): { index: number; top: boolean }[] {
  const order = lines
    .map((line, index) => ({ index, baseline: line.baseline, direction: line.direction }))
    .filter((line) => line.direction === 0)
    .sort((a, b) => b.baseline - a.baseline)
  const top = order.slice(0, EDGE_LINES).map(({ index }) => ({ index, top: true }))
  const bottom = order
    .slice(Math.max(EDGE_LINES, order.length - EDGE_LINES))
    .map(({ index }) => ({ index, top: false }))
  return [...top, ...bottom]
}

/**
 * For each page, the indexes of its running lines and what they are. A page number needs no
 * recurrence of its text (the numbers change) but of its place and form.
 */
export function findRunningLines(pages: readonly (readonly MarkdownLine[])[]): Map<number, RunningKind>[] {
  const found = pages.map(() => new Map<number, RunningKind>())
  if (pages.length < 2) return found
  const needed = Math.max(2, Math.ceil(pages.length * RECURRENCE))
  const groups = new Map<string, { page: number; index: number; baseline: number; top: boolean }[]>()
  pages.forEach((lines, page) => {
    for (const { index, top } of edges(lines)) {
      const line = lines[index]!
      const numberLike = pageNumberPattern.test(line.text.trim())
      const key = `${top ? 'top' : 'bottom'}|${numberLike ? '<page number>' : blur(line.text)}`
      const group = groups.get(key) ?? []
      group.push({ page, index, baseline: line.baseline, top })
      groups.set(key, group)
    }
  })
  for (const [key, members] of groups) {
    // Members at about the same height as most of the group.
    const baselines = members.map((member) => member.baseline).sort((a, b) => a - b)
    const median = baselines[Math.floor(baselines.length / 2)]!
    const steady = members.filter((member) => Math.abs(member.baseline - median) <= HEIGHT_TOLERANCE)
    const pagesSeen = new Set(steady.map((member) => member.page))
    if (pagesSeen.size < needed) continue
    const kind: RunningKind = key.endsWith('|<page number>')
      ? 'page_number'
      : key.startsWith('top')
        ? 'header'
        : 'footer'
    for (const member of steady) found[member.page]!.set(member.index, kind)
  }
  return found
}
