// The line geometry Markdown is built from: what the PDF core returns per page (PdfLine), and the
// blocks Markdown is written from.

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
}

/** Text blocks keep their first and last line: joins across page breaks compare their geometry. */
export interface TextSpan {
  text: string
  first: MarkdownLine
  last: MarkdownLine
}

export type Block =
  | { kind: 'heading'; level: number; text: string; size: number }
  | ({ kind: 'paragraph' } & TextSpan)
  | ({ kind: 'item'; marker: string } & TextSpan)
  | ({ kind: 'caption' } & TextSpan)
  | { kind: 'table'; rows: string[][] }
  | { kind: 'footnote'; label: string; text: string }
  /** A footnote whose reference was not found: a paragraph, never joined to the body. */
  | { kind: 'note'; text: string }
