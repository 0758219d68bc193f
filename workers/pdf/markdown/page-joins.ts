// Paragraphs across page breaks: a page whose last body block is a paragraph (or list item) left
// unfinished, and a next page whose first body block goes on with it in the same size and weight,
// hold one paragraph. It is written once, where it began, with a word hyphenated across the break
// mended; the footnote definitions of the part on the next page move along with it. Headings,
// tables, captions and footnotes are never joined, and neither is a change of font size.
import { joinLine, terminalPunctuation } from './join-line.ts'
import type { Block, MarkdownLine } from './types.ts'

type TextBlock = Block & { kind: 'paragraph' | 'item' }

/** Footnote definitions and unreferenced notes follow the body; they are not where a page's text ends. */
const trailing = (block: Block) => block.kind === 'footnote' || block.kind === 'note'

/** Opens with a lower-case word or punctuation that cannot start a sentence (a digit can: "3.4.1 …"). */
const continuingStart = /^[\p{Ll},;)\]’”-]/u

/**
 * Whether the next page's first paragraph goes on with `before`. `fullLine` says whether a line
 * reaches the end of its column: a sentence cut by the page break ends on a full line, a title
 * without punctuation does not.
 */
export function continuesAcrossPages(
  before: TextBlock,
  after: Block,
  fullLine: (line: MarkdownLine) => boolean,
): boolean {
  if (after.kind !== 'paragraph') return false
  if (Math.abs(before.last.size - after.first.size) >= 0.5 || before.last.bold !== after.first.bold)
    return false
  const text = before.text.trimEnd()
  if (terminalPunctuation.test(text)) return false
  if (continuingStart.test(after.text)) return true
  // A capital after an unfinished line: only when that line ran to the column's end, and what follows
  // is more than one short line (a running header the page's layout did not give away, say).
  const oneShortLine = after.first === after.last && !terminalPunctuation.test(after.text)
  return /[\p{L},]$/u.test(text) && fullLine(before.last) && !oneShortLine
}

/**
 * Joins paragraphs across page breaks in place. `fullLine(page, line)` tells whether a line of
 * page `page` reaches its column's end.
 */
export function joinAcrossPages(
  pages: Block[][],
  fullLine: (page: number, line: MarkdownLine) => boolean,
): void {
  // The block the text of the page before ends with, and the page it lives on.
  let open: { block: TextBlock; page: number } | null = null
  for (let page = 0; page < pages.length; page++) {
    const blocks = pages[page]!
    const first = blocks.findIndex((block) => !trailing(block))
    const next = first < 0 ? undefined : blocks[first]
    if (
      open &&
      next &&
      first === 0 &&
      continuesAcrossPages(open.block, next, (line) => fullLine(open!.page, line))
    ) {
      const continuation = next as TextBlock
      open.block.text = joinLine(open.block.text, continuation.text)
      open.block.last = continuation.last
      // The continuation's footnote definitions follow it: move them behind the joined paragraph.
      let end = 1
      while (end < blocks.length && blocks[end]!.kind === 'footnote') end++
      const moved = blocks.splice(0, end).slice(1)
      const home = pages[open.page]!
      let at = home.indexOf(open.block) + 1
      while (at < home.length && home[at]!.kind === 'footnote') at++
      home.splice(at, 0, ...moved)
      if (!blocks.some((block) => !trailing(block))) continue
    }
    const last = blocks.findLast((block) => !trailing(block))
    open = last && (last.kind === 'paragraph' || last.kind === 'item') ? { block: last, page } : null
  }
}
