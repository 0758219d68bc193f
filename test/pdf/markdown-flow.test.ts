// mode=markdown scored on the flow of a PDF whose structure is known (test/pdf/structured-flow.ts):
// footnote placement (reference, definition right after its block, text exact), caption adjacency,
// paragraph joins across page breaks (precision and recall), reading order; then SICP's first
// chapter pages from the corpus against expectations checked by hand on the rendered pages.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildMarkdown } from '../../workers/pdf/markdown/markdown.ts'
import { continuesAcrossPages } from '../../workers/pdf/markdown/page-joins.ts'
import type { Block, MarkdownLine } from '../../workers/pdf/markdown/types.ts'
import { corpusPresent, pdfCorpusDir } from './corpus.ts'
import { wordDifferences } from './markdown-flow-words.ts'
import { runTool } from './run-tool.ts'
import { cellScores, markdownTables, orderScore } from './structured.ts'
import { flowPdf } from './structured-flow.ts'

interface PageJson {
  text: string
  running: { text: string; kind: string }[]
}

interface Extraction {
  markdown: string
  pages: PageJson[]
  plain: string
}

async function extract(
  path: string,
  range: { first_page?: number; last_page?: number } = {},
): Promise<Extraction> {
  const markdownRun = await runTool(path, { mode: 'markdown', ocr: 'off', ...range })
  const plainRun = await runTool(path, { mode: 'plain', ocr: 'off', ...range })
  const file = (files: Record<string, string>, suffix: string) =>
    files[Object.keys(files).find((name) => name.endsWith(suffix))!]!
  return {
    markdown: file(markdownRun.files, '.md'),
    pages: JSON.parse(file(markdownRun.files, '.pages.json')).pages,
    plain: file(plainRun.files, '.txt'),
  }
}

/** Blocks of the Markdown, page markers left out. */
const blocksOf = (markdown: string) =>
  markdown
    .split(/\n{2,}/)
    .map((block) => block.trim())
    .filter((block) => block !== '' && !/^<!-- page \d+ -->$/.test(block))

/** The footnote definitions right after the body block that holds `reference`. */
function definitionsAfter(blocks: readonly string[], reference: string): string[] {
  const at = blocks.findIndex((block) => block.includes(reference) && !block.startsWith('[^'))
  if (at < 0) return []
  let end = at + 1
  while (end < blocks.length && blocks[end]!.startsWith('[^')) end++
  return blocks.slice(at + 1, end)
}

/** Whether the note is referenced after `word`, defined with `text` exactly, right after its block. */
const footnotePlaced = (blocks: readonly string[], note: { word: string; label: string; text: string }) =>
  definitionsAfter(blocks, `${note.word}[^${note.label}]`).includes(`[^${note.label}]: ${note.text}`)

function expectNothingLostOrAdded({ markdown, pages, plain }: Extraction) {
  const running = pages.flatMap((page) => page.running.map((line) => line.text)).join('\n')
  const words = wordDifferences(
    `${markdown.replace(/<!-- page \d+ -->/g, '')}\n${running}`,
    plain.replace(/--- page \d+ ---/g, ''),
  )
  expect(words).toEqual({ lost: [], added: [] })
}

describe('extract_pdf mode=markdown on a document of known flow', () => {
  const { pdf, truth } = flowPdf()
  const path = join(mkdtempSync(join(tmpdir(), 'kiln-md-flow-')), 'firing.pdf')
  writeFileSync(path, pdf)
  let extraction: Extraction
  let blocks: string[] = []
  beforeAll(async () => {
    extraction = await extract(path)
    blocks = blocksOf(extraction.markdown)
  })

  it('writes each footnote as [^n] at its reference and its whole text right after that block', () => {
    const placed = truth.footnotes.filter((note) => footnotePlaced(blocks, note)).length
    console.log(`markdown footnotes: ${placed} of ${truth.footnotes.length} placed, text exact`)
    expect(placed).toBe(truth.footnotes.length)
    // The notes' text is in their definitions only, not left in the body as well.
    for (const note of truth.footnotes)
      expect(extraction.markdown.split(note.text.slice(0, 24)).length - 1).toBe(1)
  })

  it('keeps each caption as its own block beside what it belongs to', () => {
    const adjacent = truth.captions.filter(({ text, next }) => {
      const at = blocks.indexOf(`*${text}*`)
      if (at < 0) return false
      const following = blocks[at + 1] ?? ''
      return next === 'table' ? following.startsWith('|') : following.startsWith(next)
    }).length
    console.log(`markdown captions: ${adjacent} of ${truth.captions.length} adjacent, on their own`)
    expect(adjacent).toBe(truth.captions.length)
  })

  it('joins a paragraph and a list item across page breaks, and only those', () => {
    const joinedInMarkdown = truth.breaks.map(({ before, after }) =>
      blocks.some((block) => block.includes(before) && block.includes(after)),
    )
    const truePositives = truth.breaks.filter((b, i) => b.joined && joinedInMarkdown[i]).length
    const precision = truePositives / Math.max(1, joinedInMarkdown.filter(Boolean).length)
    const recall = truePositives / truth.breaks.filter((b) => b.joined).length
    console.log(`markdown page joins: precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`)
    expect({ precision, recall }).toEqual({ precision: 1, recall: 1 })
    for (const sentence of truth.mended) expect(extraction.markdown).toContain(sentence)
  })

  it('reads blocks in order across columns, footnotes and joins; headings and the table intact', () => {
    const score = orderScore(extraction.markdown, truth.order)
    console.log(`markdown flow reading order: ${score.toFixed(2)} of consecutive pairs in order`)
    expect(score).toBe(1)
    const headings = [...extraction.markdown.matchAll(/^(#{1,6}) (.+)$/gm)].map((m) => ({
      level: m[1]!.length,
      text: m[2]!,
    }))
    expect(headings).toEqual(truth.headings)
    const tables = markdownTables(extraction.markdown)
    expect(tables).toHaveLength(1)
    expect(cellScores(tables[0]!, truth.table)).toEqual({ precision: 1, recall: 1 })
  })

  it("keeps plain mode's words: markers and mended words account for every difference", () => {
    expectNothingLostOrAdded(extraction)
  })
})

describe('joining across a page break', () => {
  const line = (text: string, end = 540, size = 10): MarkdownLine => ({
    text,
    start: 72,
    end,
    baseline: 100,
    size,
    bold: false,
    direction: 0,
  })
  const paragraph = (first: MarkdownLine, last = first) =>
    ({
      kind: 'paragraph',
      text: first === last ? first.text : `${first.text} ${last.text}`,
      first,
      last,
    }) as Block & {
      kind: 'paragraph'
    }
  const full = (l: MarkdownLine) => l.end >= 530
  const cut = paragraph(line('the kiln was loaded on Friday and fired over the'))

  it('joins what goes on, in the same size, and nothing else', () => {
    expect(continuesAcrossPages(cut, paragraph(line('weekend, slowly.', 200)), full)).toBe(true)
    expect(
      continuesAcrossPages(
        cut,
        paragraph(line('Weekend Pottery Classes', 300), line('were full.', 200)),
        full,
      ),
    ).toBe(true)
    // A stray running header: one short line in capitals.
    expect(continuesAcrossPages(cut, paragraph(line('Chapter 3: Firing', 200)), full)).toBe(false)
    expect(continuesAcrossPages(cut, paragraph(line('weekend, slowly.', 200, 8)), full)).toBe(false)
    expect(
      continuesAcrossPages(paragraph(line('It was fired.')), paragraph(line('then it cooled.', 200)), full),
    ).toBe(false)
    expect(continuesAcrossPages(cut, { kind: 'heading', level: 2, text: 'weekend', size: 14 }, full)).toBe(
      false,
    )
  })
})

describe('footnotes on pages built line by line', () => {
  const at = (text: string, baseline: number, size = 10): MarkdownLine => ({
    text,
    start: 72,
    end: 72 + text.length * 5,
    baseline,
    size,
    bold: false,
    direction: 0,
  })
  const body = (count: number, top = 700) =>
    Array.from({ length: count }, (_, i) =>
      at(`Body line ${i} of the page, set in the body size of the text.`, top - i * 14),
    )

  it('keeps a note whose reference is missing as a paragraph of its page, so no text is lost', () => {
    const lines = [...body(8), at('1 A note that nothing refers to.', 120, 8)]
    const { markdown } = buildMarkdown([{ number: 1, lines }])
    expect(markdown).not.toContain('[^')
    expect(markdown).toContain('\n\n1 A note that nothing refers to.')
  })

  it('links a hostile page of thousands of notes no further than its cap, and keeps every word', () => {
    // More body text than notes, so that the body size stays the body's.
    const notes = Array.from({ length: 2000 }, (_, i) => at(`${(i % 999) + 1} note`, -3600 - i * 10, 8))
    const lines = [at('A body line refers to it.1 And on.', 700), ...body(300, 686), ...notes]
    const { markdown } = buildMarkdown([{ number: 1, lines }])
    expect(markdown).toContain('refers to it.[^1] And on.')
    expect((markdown.match(/^\[\^/gm) ?? []).length).toBeLessThanOrEqual(200)
    const plain = lines.map((line) => line.text).join('\n')
    expect(wordDifferences(markdown.replace(/<!-- page \d+ -->/g, ''), plain)).toEqual({
      lost: [],
      added: [],
    })
  })
})

describe('the words check itself', () => {
  it('accepts mended words and markers set apart, and catches a lost or an added word', () => {
    expect(wordDifferences('kiln[^1] temperature', 'kiln1 tempera-\nture')).toEqual({ lost: [], added: [] })
    expect(wordDifferences('[^1]: The Lisp', '1The Lisp')).toEqual({ lost: [], added: [] })
    expect(wordDifferences('kiln[^1-2] page[^star]', 'kiln1 page*')).toEqual({ lost: [], added: [] })
    expect(wordDifferences('the kiln', 'the hot kiln')).toEqual({ lost: ['hot'], added: [] })
    expect(wordDifferences('the kiln kiln', 'the kiln')).toEqual({ lost: [], added: ['kiln'] })
  })
})

// SICP (XeTeX) pages 30 to 34 (the book's pages 2 to 6), checked by hand on the rendered pages: three
// numbered footnotes whose superscript references sit after a full stop, and four page breaks that
// each cut a paragraph, two of them inside a hyphenated word.
describe.runIf(corpusPresent)('extract_pdf mode=markdown on a corpus book with footnotes', () => {
  let extraction: Extraction
  let blocks: string[] = []
  beforeAll(async () => {
    extraction = await extract(join(pdfCorpusDir, 'long/sicp.pdf'), { first_page: 30, last_page: 34 })
    blocks = blocksOf(extraction.markdown)
  })

  it('long/sicp.pdf: footnotes 1 to 3 referenced where they are and defined right after their paragraph', () => {
    const notes = [
      {
        word: 'Center.',
        marker: '1',
        text: 'The Lisp 1 Programmer’s Manual appeared in 1960, and the Lisp 1.5',
      },
      {
        word: 'Scheme.',
        marker: '2',
        text: 'The two dialects in which most major Lisp programs of the 1970s',
      },
      {
        word: 'effectiveness.',
        marker: '3',
        text: 'One such special application was a breakthrough computation',
      },
    ]
    for (const note of notes) {
      const definitions = definitionsAfter(blocks, `${note.word}[^${note.marker}]`)
      expect(
        definitions.some((block) => block.startsWith(`[^${note.marker}]: ${note.text}`)),
        note.word,
      ).toBe(true)
    }
    expect(extraction.markdown).toContain('[^3]: One such special application')
    expect(extraction.markdown).toContain(
      'software tools written in Lisp (Abelson et al. 1992; Sussman and Wisdom 1992).',
    )
  })

  it('long/sicp.pdf: paragraphs cut by a page break are one, hyphenated words mended', () => {
    for (const joined of [
      'Well-designed computational systems, like well-designed automobiles',
      'new data objects known as atoms and lists, which most strikingly set it apart',
      'Over the years, however, Lisp compilers have been developed',
      'Above and beyond these considerations, programming in Lisp is great fun.',
    ])
      expect(extraction.markdown).toContain(joined)
    // A new paragraph after a full stop stays apart, its footnote marker notwithstanding.
    expect(blocks.some((block) => block.startsWith('Because of its experimental character'))).toBe(true)
  })

  it("long/sicp.pdf: plain mode's words, none lost or added", () => {
    expectNothingLostOrAdded(extraction)
  })
})
