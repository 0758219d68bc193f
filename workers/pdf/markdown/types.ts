// The line geometry Markdown is built from: what the PDF core returns per page (PdfLine, PdfRule).
import type { PageRule } from './tables/segments.ts'

export interface MarkdownLine {
  text: string
  /** Extent along the writing direction and baseline, in PDF points (up is +y). */
  start: number
  end: number
  baseline: number
  size: number
  bold: boolean
  /** Quarter turns counter-clockwise from horizontal. */
  direction: number
}

export interface MarkdownPageInput {
  number: number
  lines: readonly MarkdownLine[]
  /** Ruling lines drawn on the page (table borders); none for OCR pages. */
  rules?: readonly PageRule[]
}
