// Lines of an OCR page in the geometry Markdown reads (PDF points, up is +y), from the words'
// pixel boxes: a page that was a scan gets headings and paragraphs like one with a text layer.
import type { OcrWord } from '../tesseract.ts'
import type { MarkdownLine } from './types.ts'

/** Ascender-to-descender height of a line over its font size, for typical Latin faces. */
const HEIGHT_PER_SIZE = 0.95

export function ocrLines(words: readonly OcrWord[], dpi: number, heightPx: number): MarkdownLine[] {
  const toPoints = 72 / dpi
  const byLine = new Map<number, OcrWord[]>()
  for (const word of words) byLine.set(word.line, [...(byLine.get(word.line) ?? []), word])
  return [...byLine.values()].map((members) => {
    const left = Math.min(...members.map((word) => word.box[0]))
    const right = Math.max(...members.map((word) => word.box[0] + word.box[2]))
    const top = Math.min(...members.map((word) => word.box[1]))
    const bottom = Math.max(...members.map((word) => word.box[1] + word.box[3]))
    return {
      text: members.map((word) => word.text).join(' '),
      start: left * toPoints,
      end: right * toPoints,
      baseline: (heightPx - bottom) * toPoints,
      size: ((bottom - top) * toPoints) / HEIGHT_PER_SIZE,
      bold: false,
      direction: 0,
    }
  })
}
