// Joining text across a line, column or page break.

/** Joins a line to the text before it: a word broken by a hyphen at the line end is mended. */
export function joinLine(before: string, line: string): string {
  // Only the end of `before` is looked at: it grows with each line of a paragraph.
  if (before.endsWith('-') && /\p{L}-$/u.test(before.slice(-2)) && /^\p{Ll}/u.test(line))
    return before.slice(0, -1) + line
  return `${before} ${line}`
}

/** Ends a sentence or a clause that stands alone: the block it ends is complete. */
export const terminalPunctuation = /[.!?:]["')\]”’]?$/u
