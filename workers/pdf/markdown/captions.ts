// Captions: a line opening with "Figure 3:", "Fig. 2.", "Table 1 —" (or the German, French, Spanish
// and Italian words) is a caption. It becomes a block of its own, so it stays beside its figure or
// table, and is never run into the body text around it or read as a table row. The number must be
// followed by a separator and a space: "Table 3 shows that …" or "Abbildung 1.8a zeigt …" at the start
// of a line is body text.
import { terminalPunctuation } from './join-line.ts'
import type { MarkdownLine } from './types.ts'

const captionPattern =
  /^(?:Figure|Fig\.|Table|Tab\.|Abbildung|Abb\.|Tabelle|Tableau|Tabla|Figura|Tabella)\s*\d+(?:[.-]\d+)*[a-z]?\s*(?:[:.|—–-](?=\s|$)|$)/u

export const isCaption = (text: string): boolean => captionPattern.test(text)

/** Captions are set in italics; asterisks of their own are escaped so the emphasis holds. */
export const renderCaption = (text: string): string => `*${text.replace(/\*/g, '\\*')}*`

/**
 * Whether `line` goes on with the caption above it: right below, in the same size and weight, within
 * the caption's width (a centred caption's last line is shorter and starts further in), and the
 * caption's text not ended.
 */
export function continuesCaption(
  caption: { text: string; first: MarkdownLine; last: MarkdownLine },
  line: MarkdownLine,
  spacing: number,
): boolean {
  const gap = caption.last.baseline - line.baseline
  return (
    gap > 0 &&
    gap <= spacing * 1.35 &&
    Math.abs(caption.last.size - line.size) < 0.5 &&
    caption.last.bold === line.bold &&
    line.start >= caption.first.start - line.size &&
    line.end <= caption.first.end + line.size &&
    !terminalPunctuation.test(caption.last.text)
  )
}
