// "Nothing lost or duplicated" when Markdown reshapes words at a break. Plain mode's words and
// Markdown's must be the same multiset, except that one word on one side may be two words of the
// other, side by side in the text: Markdown mends a word hyphenated across a line, column or page
// break ("tempera-" "ture" -> "temperature"; two breaks in one word make it three), and writes a footnote marker set tight against a word
// or a note's text as a separate `[^1]` ("kiln1" -> "kiln" "1", "1The" -> "1" "The"). Any other
// difference is a word lost or added.
import { tokens } from './structured.ts'

function counts(words: readonly string[]): Map<string, number> {
  const map = new Map<string, number>()
  for (const word of words) map.set(word, (map.get(word) ?? 0) + 1)
  return map
}

/** Words of `a` left over after taking away those of `b`. */
function surplus(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const left = new Map<string, number>()
  for (const [word, count] of a) {
    const rest = count - (b.get(word) ?? 0)
    if (rest > 0) left.set(word, rest)
  }
  return left
}

/** Takes `word` apart into up to `most` words of `parts`, taking them out of `parts`; false if it cannot. */
function takeApart(word: string, parts: Map<string, number>, most: number): boolean {
  for (let cut = 1; cut < word.length; cut++) {
    const head = word.slice(0, cut)
    if ((parts.get(head) ?? 0) === 0) continue
    parts.set(head, parts.get(head)! - 1)
    const tail = word.slice(cut)
    if ((parts.get(tail) ?? 0) > 0) {
      parts.set(tail, parts.get(tail)! - 1)
      return true
    }
    if (most > 2 && takeApart(tail, parts, most - 1)) return true
    parts.set(head, parts.get(head)! + 1)
  }
  return false
}

/**
 * Takes each word of `whole` apart into two or three words of `parts` (three: two breaks in one
 * word, as "program-" "design" after "pro-" "gram" gives "programdesign"); returns what could not be.
 */
function takeSplits(whole: Map<string, number>, parts: Map<string, number>): string[] {
  const unmatched: string[] = []
  for (const [word, count] of whole)
    for (let n = 0; n < count; n++) if (!takeApart(word, parts, 3)) unmatched.push(word)
  return unmatched
}

/**
 * Footnote labels back to the characters plain mode has: a number is the marker itself (`1-2`, the
 * second note 1, is "1"); a named symbol (`star`, `dagger`) has no letters or digits in plain mode.
 */
const markerCharacters = (markdown: string) =>
  markdown.replace(/\[\^(\d+)(?:-\d+)?\]/g, '[^$1]').replace(/\[\^[a-z]+(?:-[a-z]+)*(?:-\d+)?\]/g, '')

const listOf = (map: Map<string, number>) =>
  [...map].flatMap(([word, count]) => Array<string>(count).fill(word))

/** Words of one side that the other does not account for: empty when nothing is lost or added. */
export function wordDifferences(markdown: string, plain: string): { lost: string[]; added: string[] } {
  const md = counts(tokens(markerCharacters(markdown)))
  const pl = counts(tokens(plain))
  const plainLeft = surplus(pl, md)
  // Mended words are whole in Markdown, markers set apart are whole in plain mode.
  const markdownLeft = counts(takeSplits(surplus(md, pl), plainLeft))
  const lost = takeSplits(counts(listOf(plainLeft)), markdownLeft)
  return { lost: lost.sort(), added: listOf(markdownLeft).sort() }
}
