// Character-level similarity of extracted text, page by page: 1 − Levenshtein / max length,
// summed over pages so long pages weigh more. Pages are compared pairwise because reading-order
// choices inside one page are what differs between extractors; across pages they agree.

/**
 * NFKC folds ligatures (ﬁ → fi) and presentation forms; format controls (bidi embeddings, which
 * pdftotext emits) and U+FFFD (which mutool emits for unmapped glyphs) are not text; whitespace
 * runs become one space.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\p{Cf}\uFFFD]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
}

/** Edit distance with one rolling row; common prefix and suffix are cut first, which makes near-equal pages cheap. */
export function levenshtein(a: string, b: string): number {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const left = a.slice(start, endA)
  const right = b.slice(start, endB)
  if (left.length === 0) return right.length
  if (right.length === 0) return left.length
  const row = new Int32Array(right.length + 1)
  for (let j = 0; j <= right.length; j++) row[j] = j
  for (let i = 1; i <= left.length; i++) {
    let diagonal = row[0] ?? 0
    row[0] = i
    const code = left.charCodeAt(i - 1)
    for (let j = 1; j <= right.length; j++) {
      const above = row[j] ?? 0
      const substitution = diagonal + (code === right.charCodeAt(j - 1) ? 0 : 1)
      const best = Math.min(above + 1, (row[j - 1] ?? 0) + 1, substitution)
      row[j] = best
      diagonal = above
    }
  }
  return row[right.length] ?? 0
}

export interface Similarity {
  ratio: number
  distance: number
  length: number
}

/** Pages beyond the shorter list count as entirely different; two empty documents are identical. */
export function pageSimilarity(ours: readonly string[], theirs: readonly string[]): Similarity {
  let distance = 0
  let length = 0
  const pages = Math.max(ours.length, theirs.length)
  for (let page = 0; page < pages; page++) {
    const a = normalizeText(ours[page] ?? '')
    const b = normalizeText(theirs[page] ?? '')
    distance += levenshtein(a, b)
    length += Math.max(a.length, b.length)
  }
  return { ratio: length === 0 ? 1 : 1 - distance / length, distance, length }
}
