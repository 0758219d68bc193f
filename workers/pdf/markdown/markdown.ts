// Markdown from the lines of a PDF: headings from font size and weight relative to the body text,
// paragraphs and list items joined across line breaks with line-end hyphenation repaired, tables as
// GFM tables (one table across a page break is joined), running headers, footers and page numbers
// left out and reported, captions kept as blocks of their own, footnotes as GFM footnotes next to
// the paragraph that refers to them, paragraphs joined across page breaks. Every other character of
// plain mode's text is kept, once.
import { continuesCaption, isCaption, renderCaption } from './captions.ts'
import { FootnoteLinker, noteLeftOpen, splitFootnotes } from './footnotes.ts'
import { joinLine, terminalPunctuation } from './join-line.ts'
import { joinAcrossPages } from './page-joins.ts'
import { pageRegions, type Region } from './page-layout.ts'
import { findRunningLines, type RunningLine } from './running-lines.ts'
import type { Block, MarkdownLine, MarkdownPageInput } from './types.ts'

export { joinLine }

export interface MarkdownPage {
  number: number
  markdown: string
  running: RunningLine[]
  headings: { level: number; text: string }[]
  tables: number
}

export interface MarkdownDocument {
  markdown: string
  pages: MarkdownPage[]
}

const bulletPattern = /^([•●▪◦‣∙·*–-])\s+/
const orderedPattern = /^(\d{1,3}|[a-z])([.)])\s+/
/** Lines this much larger than the body text are headings. */
const HEADING_RATIO = 1.15

const roundSize = (size: number) => Math.round(size * 2) / 2

/** The body text's size: the size most characters are set in. */
function bodySize(pages: readonly MarkdownPageInput[]): number {
  const counts = new Map<number, number>()
  for (const page of pages)
    for (const line of page.lines) {
      const size = roundSize(line.size)
      counts.set(size, (counts.get(size) ?? 0) + line.text.length)
    }
  let best = 10
  let most = -1
  for (const [size, count] of counts)
    if (count > most) {
      most = count
      best = size
    }
  return best
}

/** Heading levels by size: the largest heading size is level 1; bold body-size lines come last. */
function headingLevels(pages: readonly MarkdownPageInput[], body: number) {
  const sizes = new Set<number>()
  for (const page of pages)
    for (const line of page.lines)
      if (line.size >= body * HEADING_RATIO && line.text.length <= 120) sizes.add(roundSize(line.size))
  const ranked = [...sizes].sort((a, b) => b - a).slice(0, 5)
  return {
    bySize: (size: number) => {
      const rank = ranked.indexOf(roundSize(size))
      return rank < 0 ? null : rank + 1
    },
    bold: Math.min(6, ranked.length + 1),
  }
}

const escapeText = (text: string) => text.replace(/^([#>+]|\d+\.\s|[-*]\s)/, '\\$1')
const escapeCell = (text: string) => text.replace(/\|/g, '\\|').trim()

function blocksOfPage(
  lines: readonly MarkdownLine[],
  regions: readonly Region[],
  body: number,
  levels: ReturnType<typeof headingLevels>,
): Block[] {
  const blocks: Block[] = []
  let previous: MarkdownLine | null = null
  const spacing = lineSpacing(lines, regions, body)
  for (const region of regions) {
    if (region.kind === 'table') {
      blocks.push({ kind: 'table', rows: region.rows })
      previous = null
      continue
    }
    const line = lines[region.index]!
    const text = line.text.trim()
    const last = blocks.at(-1)
    const close =
      previous !== null &&
      ((previous.baseline > line.baseline &&
        previous.baseline - line.baseline <= spacing * 1.35 &&
        Math.abs(previous.start - line.start) < 6 * body) ||
        continuesInNextColumn(previous, line))
    // A caption is a block of its own, whatever its weight; its lines run on until one ends it. A
    // sentence running on to "Figure 2. …" at a line's start is no caption.
    if (
      isCaption(text) &&
      !(
        close &&
        (last?.kind === 'paragraph' || last?.kind === 'item') &&
        !terminalPunctuation.test(previous!.text)
      )
    ) {
      blocks.push({ kind: 'caption', text, first: line, last: line })
      previous = line
      continue
    }
    if (last?.kind === 'caption' && continuesCaption(last, line, spacing)) {
      last.text = joinLine(last.text, text)
      last.last = line
      previous = line
      continue
    }
    const sizeLevel = levels.bySize(line.size)
    const boldHeading =
      line.bold &&
      roundSize(line.size) <= body &&
      text.length <= 80 &&
      !/[.,;:]$/.test(text) &&
      line.direction === 0
    // A line ending a sentence or clause is text, however large.
    const headingShaped = line.direction === 0 && text.length <= 120 && !/[.,;]$/.test(text)
    const level = headingShaped ? (sizeLevel ?? (boldHeading ? levels.bold : null)) : null
    if (level !== null) {
      if (last?.kind === 'heading' && last.level === level && close && Math.abs(last.size - line.size) < 0.5)
        last.text = joinLine(last.text, text)
      else blocks.push({ kind: 'heading', level, text, size: line.size })
      previous = line
      continue
    }
    const bullet = bulletPattern.exec(text)
    const ordered = bullet ? null : orderedPattern.exec(text)
    if (bullet)
      blocks.push({ kind: 'item', marker: '-', text: text.slice(bullet[0].length), first: line, last: line })
    else if (ordered && (ordered[1]!.length > 1 || /\d/.test(ordered[1]!) || last?.kind === 'item'))
      blocks.push({
        kind: 'item',
        marker: `${ordered[1]}${ordered[2]}`,
        text: text.slice(ordered[0].length),
        first: line,
        last: line,
      })
    else if (
      close &&
      (last?.kind === 'paragraph' || last?.kind === 'item') &&
      !endsParagraph(previous!, line, body)
    ) {
      last.text = joinLine(last.text, text)
      last.last = line
    } else blocks.push({ kind: 'paragraph', text, first: line, last: line })
    previous = line
  }
  return blocks
}

/** From the foot of one column to the head of the next, mid-sentence: the paragraph goes on. */
function continuesInNextColumn(previous: MarkdownLine, line: MarkdownLine): boolean {
  return (
    line.baseline > previous.baseline &&
    line.start >= previous.end &&
    Math.abs(line.size - previous.size) < 0.5 &&
    !/[.!?:]["')\]]?$/.test(previous.text.trim())
  )
}

/**
 * A sentence's end closes its paragraph even when the next line follows closely: when its line is
 * short, or when the next line starts elsewhere (indented as a paragraph's first line is).
 */
function endsParagraph(previous: MarkdownLine, line: MarkdownLine, body: number): boolean {
  // A footnote marker may follow the full stop ("… called Scheme.2").
  if (!/[.!?:]["')\]”’]?(?:\d{1,3}|[*†‡])?$/u.test(previous.text.trim())) return false
  const short = previous.end < line.end - 8 * body * 0.5
  const indent = line.start - previous.start
  // A first line indented, or a line back at the margin after an indented one (the end of a
  // list item's or a quotation's run-over lines).
  return short || (Math.abs(indent) > 0.8 * body && Math.abs(indent) < 4 * body)
}

/** The usual distance between baselines of body text on the page. */
function lineSpacing(lines: readonly MarkdownLine[], regions: readonly Region[], body: number): number {
  const gaps: number[] = []
  let previous: MarkdownLine | null = null
  for (const region of regions) {
    if (region.kind !== 'line') {
      previous = null
      continue
    }
    const line = lines[region.index]!
    if (previous && Math.abs(line.size - body) < 0.5 && Math.abs(previous.size - body) < 0.5) {
      const gap = previous.baseline - line.baseline
      if (gap > 0.5 * body && gap < 3 * body) gaps.push(gap)
    }
    previous = line
  }
  if (gaps.length === 0) return body * 1.25
  gaps.sort((a, b) => a - b)
  return gaps[Math.floor(gaps.length / 2)]!
}

/** A line that runs to the end of its column: as far as the longest line starting where it starts. */
function reachesColumnEnd(lines: readonly MarkdownLine[], line: MarkdownLine, body: number): boolean {
  let end = line.end
  for (const other of lines)
    if (Math.abs(other.start - line.start) < 3 * body && Math.abs(other.size - line.size) < 0.5)
      end = Math.max(end, other.end)
  return line.end >= end - 2 * body
}

function renderTable(rows: readonly string[][]): string {
  const width = Math.max(...rows.map((row) => row.length))
  const cells = (row: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => escapeCell(row[i] ?? '')).join(' | ')} |`
  const [head, ...rest] = rows
  return [cells(head ?? []), `|${' --- |'.repeat(width)}`, ...rest.map(cells)].join('\n')
}

function renderBlock(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text}`
    case 'paragraph':
    case 'note':
      return escapeText(block.text)
    case 'caption':
      return renderCaption(block.text)
    case 'footnote':
      return `[^${block.label}]: ${block.text}`
    case 'item':
      return `${block.marker} ${block.text}`
    case 'table':
      return renderTable(block.rows)
  }
}

/** Blocks apart by a blank line; the items of one list stay together. */
const renderBlocks = (blocks: readonly Block[]) =>
  blocks
    .map((block, index) => {
      const separator =
        index === 0 ? '' : block.kind === 'item' && blocks[index - 1]!.kind === 'item' ? '\n' : '\n\n'
      return separator + renderBlock(block)
    })
    .join('')

/** A table continued on the next page: same columns; a repeated header row is dropped. */
function continues(before: Block | undefined, after: Block | undefined): boolean {
  return (
    before?.kind === 'table' && after?.kind === 'table' && before.rows[0]?.length === after.rows[0]?.length
  )
}

export function buildMarkdown(pages: readonly MarkdownPageInput[]): MarkdownDocument {
  const body = bodySize(pages)
  const levels = headingLevels(pages, body)
  const running = findRunningLines(pages.map((page) => page.lines))
  const linker = new FootnoteLinker()
  let notesOpen = false
  const pageBlocks = pages.map((page, pageIndex) => {
    const kept = page.lines.map((_, index) => index).filter((index) => !running[pageIndex]!.has(index))
    const { regions, notes } = splitFootnotes(page.lines, pageRegions(page.lines, kept), body, notesOpen)
    notesOpen = noteLeftOpen(notes)
    return linker.link(blocksOfPage(page.lines, regions, body, levels), notes)
  })
  // One table across a page break becomes one table, where it started.
  const repeatedHeaders = new Map<number, string>()
  for (let index = 1; index < pageBlocks.length; index++) {
    const before = pageBlocks[index - 1]!.at(-1)
    const after = pageBlocks[index]![0]
    if (continues(before, after) && before?.kind === 'table' && after?.kind === 'table') {
      const [head, ...rest] = after.rows
      const repeated = head?.join('\u0000') === before.rows[0]?.join('\u0000')
      before.rows.push(...(repeated ? rest : after.rows))
      if (repeated) repeatedHeaders.set(index, head!.join(' | '))
      pageBlocks[index]!.shift()
    }
  }
  joinAcrossPages(pageBlocks, (page, line) => reachesColumnEnd(pages[page]!.lines, line, body))
  const rendered: MarkdownPage[] = pages.map((page, index) => {
    const blocks = pageBlocks[index]!
    return {
      number: page.number,
      markdown: renderBlocks(blocks),
      running: [
        ...[...running[index]!].map(([line, kind]): RunningLine => ({ text: page.lines[line]!.text, kind })),
        ...(repeatedHeaders.has(index)
          ? [{ text: repeatedHeaders.get(index)!, kind: 'repeated_table_header' as const }]
          : []),
      ],
      headings: blocks.flatMap((block) =>
        block.kind === 'heading' ? [{ level: block.level, text: block.text }] : [],
      ),
      tables: blocks.filter((block) => block.kind === 'table').length,
    }
  })
  const markdown = rendered
    .map((page) => `<!-- page ${page.number} -->\n\n${page.markdown}`.trimEnd())
    .join('\n\n')
  return { markdown: `${markdown}\n`, pages: rendered }
}
