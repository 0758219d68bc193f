// Lines of an OCR page in the geometry Markdown reads (PDF points, up is +y), from the words'
// pixel boxes: a page that was a scan gets headings, paragraphs and tables like one with a text layer.
// Tesseract's line runs across table columns, so a line is cut where a gap is much wider than a
// word space, as the PDF core cuts lines of a text layer.
import type { OcrWord } from '../tesseract.ts'
import type { MarkdownLine } from './types.ts'

/**
 * A word box's height over the font size, by the letters it holds (typical Latin faces): from
 * descender to ascender, from baseline to ascender or capital, or the x-height alone.
 */
function heightPerSize(text: string): number {
  const ascends = /[\p{Lu}\p{N}bdfhklt'"?!]/u.test(text)
  if (/[gjpqy(),;]/.test(text)) return ascends ? 0.95 : 0.72
  return ascends ? 0.73 : 0.5
}
/** A gap wider than this many line heights separates two cells. */
const CELL_GAP = 1.5

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

function lineOf(words: readonly OcrWord[], toPoints: number, heightPx: number, size: number): MarkdownLine {
  const left = Math.min(...words.map((word) => word.box[0]))
  const right = Math.max(...words.map((word) => word.box[0] + word.box[2]))
  const bottom = median(words.map((word) => word.box[1] + word.box[3]))
  return {
    text: words.map((word) => word.text).join(' '),
    start: left * toPoints,
    end: right * toPoints,
    baseline: (heightPx - bottom) * toPoints,
    size,
    bold: false,
    direction: 0,
  }
}

export function ocrLines(words: readonly OcrWord[], dpi: number, heightPx: number): MarkdownLine[] {
  const toPoints = 72 / dpi
  const byLine = new Map<number, OcrWord[]>()
  for (const word of words) byLine.set(word.line, [...(byLine.get(word.line) ?? []), word])
  const lines: MarkdownLine[] = []
  for (const members of byLine.values()) {
    const sorted = [...members].sort((a, b) => a.box[0] - b.box[0])
    const height = Math.max(...sorted.map((word) => word.box[3]))
    // Whole points, from the words' heights by their letters: the median word decides.
    const size = Math.round(median(sorted.map((word) => (word.box[3] * toPoints) / heightPerSize(word.text))))
    let cell: OcrWord[] = []
    for (const word of sorted) {
      const previous = cell.at(-1)
      if (previous && word.box[0] - (previous.box[0] + previous.box[2]) > CELL_GAP * height) {
        lines.push(lineOf(cell, toPoints, heightPx, size))
        cell = []
      }
      cell.push(word)
    }
    if (cell.length > 0) lines.push(lineOf(cell, toPoints, heightPx, size))
  }
  return lines
}
