// Footnotes: notes set smaller than the body at the foot of a page or of a column, each opened by a
// marker (a number or *, †, ‡, §), referred to from the body by the same marker set tight against a
// word ("kiln1", "kiln.1": the PDF core keeps a superscript on its line, at the line's size, so the
// raised, smaller glyph arrives as a character attached to the word). They become GFM footnotes:
// `[^1]` in place of the marker and the definition `[^1]: …` right after the block that refers to
// it. A note continued at the foot of the next page is joined to it; a note with no reference found
// stays a paragraph of its page, so no text is lost.
import { isCaption } from './captions.ts'
import { joinLine, terminalPunctuation } from './join-line.ts'
import type { Region } from './page-layout.ts'
import type { Block, MarkdownLine } from './types.ts'

export interface Footnote {
  /** Null for text that continues the last note of the page before. */
  marker: string | null
  /** The note without its marker, lines joined. */
  text: string
  /** The note as plain mode has it, lines joined: kept when no reference is found. */
  raw: string
}

/** Notes are set at most this share of the body size. */
const NOTE_SIZE_RATIO = 0.92
/** A footnote area opens within this many lines of the top of its run of small lines. */
const MAX_AREA_START = 120
/** Notes linked per page; more (only a hostile page has them) stay paragraphs, so time stays linear. */
const MAX_NOTES_PER_PAGE = 200

const symbolMarker = /^([*†‡§¶]{1,3})\s*(?=\S)/u
/**
 * A number opens a note when a space, a letter (a superscript marker set tight: "18abs also …") or an
 * opening quote follows; "1975)," does not.
 */
const numberMarker = /^(\d{1,3})(?:\s+|(?=[\p{L}"“‘(]))(?=\S)/u

function noteMarker(text: string, previous: string | null): string | null {
  const symbol = symbolMarker.exec(text)
  if (symbol) return symbol[1]!
  const number = numberMarker.exec(text)
  if (!number) return null
  // Notes are numbered in sequence: after note 3 comes 4, whatever else a line starts with.
  if (previous !== null && /^\d+$/.test(previous) && Number(number[1]) !== Number(previous) + 1) return null
  return number[1]!
}

const markerLength = (text: string, marker: string) =>
  text.startsWith(marker) ? marker.length + (/^\s*/u.exec(text.slice(marker.length))?.[0].length ?? 0) : 0

/**
 * Splits the footnote areas off a page's regions: the tail of a run of smaller lines that ends a
 * column (nothing follows, or the next line is higher up: the top of the next column). The area
 * opens with the first note whose marker the page's text refers to; smaller lines above it (code,
 * a figure's labels) stay in the body. When the page before ended inside a note (`continuing`), the
 * whole run is the area: its first lines finish that note.
 */
export function splitFootnotes(
  lines: readonly MarkdownLine[],
  regions: readonly Region[],
  body: number,
  continuing: boolean,
): { regions: Region[]; notes: Footnote[] } {
  const small = (region: Region | undefined): region is Region & { kind: 'line' } =>
    region?.kind === 'line' &&
    lines[region.index]!.direction === 0 &&
    lines[region.index]!.size <= body * NOTE_SIZE_RATIO
  const kept: Region[] = []
  const notes: Footnote[] = []
  let index = 0
  while (index < regions.length) {
    if (!small(regions[index])) {
      kept.push(regions[index]!)
      index++
      continue
    }
    let end = index
    while (small(regions[end])) end++
    const run = regions.slice(index, end) as (Region & { kind: 'line' })[]
    index = end
    const next = regions[end]
    const lastLine = lines[run.at(-1)!.index]!
    const endsColumn =
      next === undefined || (next.kind === 'line' && lines[next.index]!.baseline > lastLine.baseline)
    const texts = run.map((region) => lines[region.index]!.text.trim())
    const from = !endsColumn
      ? -1
      : continuing
        ? 0
        : firstReferencedNote(
            run.map((region) => region.index),
            lines,
          )
    // A small caption under a figure at the foot of a column is a caption, not a note.
    if (from < 0 || isCaption(texts[from]!)) {
      kept.push(...run)
      continue
    }
    kept.push(...run.slice(0, from))
    notes.push(...notesOf(texts.slice(from)))
    continuing = false
  }
  return { regions: kept, notes }
}

/** The first line of the run opening a note whose marker the rest of the page refers to, or -1. */
function firstReferencedNote(run: readonly number[], lines: readonly MarkdownLine[]): number {
  const inRun = new Set(run)
  let outside: string | null = null
  const referencedOutside = new Map<string, boolean>()
  for (const [at, index] of run.slice(0, MAX_AREA_START).entries()) {
    const text = lines[index]!.text.trim()
    const marker = noteMarker(text, null)
    // A note says something: a figure's label ("2 t") is no note.
    if (marker === null || !/\p{L}{3}/u.test(text.slice(marker.length))) continue
    outside ??= lines
      .filter((_, line) => !inRun.has(line))
      .map((line) => line.text)
      .join('\n')
    let referenced = referencedOutside.get(marker)
    if (referenced === undefined) {
      referenced = referenceIndex(outside, marker) >= 0
      referencedOutside.set(marker, referenced)
    }
    // Small body lines above the notes (code, say) may hold the reference too.
    if (referenced || run.slice(0, at).some((line) => referenceIndex(lines[line]!.text, marker) >= 0))
      return at
  }
  return -1
}

/** Whether the last note of a page runs on to the next page: its text does not end a sentence. */
export const noteLeftOpen = (notes: readonly Footnote[]): boolean =>
  notes.length > 0 && !terminalPunctuation.test(notes.at(-1)!.text)

/** The notes of an area; text before the first marker continues the last note of the page before. */
function notesOf(texts: readonly string[]): Footnote[] {
  const notes: Footnote[] = []
  let previous: string | null = null
  for (const text of texts) {
    const marker = noteMarker(text, previous)
    if (marker !== null) {
      const rest = text.slice(markerLength(text, marker))
      notes.push({ marker, text: rest, raw: text })
      previous = marker
    } else if (notes.length > 0) {
      const note = notes.at(-1)!
      note.text = joinLine(note.text, text)
      note.raw = joinLine(note.raw, text)
    } else notes.push({ marker: null, text, raw: text })
  }
  return notes
}

/** Markers repeat page after page: each pattern is compiled once. */
const referencePatterns = new Map<string, RegExp>()

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Where `marker` refers to a note in `text`: right after a word or a closing
 * punctuation mark, and not part of a longer number or word. Numbers never follow a digit.
 */
export function referenceIndex(text: string, marker: string): number {
  let pattern = referencePatterns.get(marker)
  if (!pattern) {
    const before = /^\d+$/.test(marker) ? '[\\p{L}.,;:!?)\\]"\'”’]' : '\\S'
    pattern = new RegExp(`(?<=${before})${escapeRegExp(marker)}(?![\\p{L}\\p{N}])`, 'u')
    referencePatterns.set(marker, pattern)
  }
  return pattern.exec(text)?.index ?? -1
}

const symbolNames: Record<string, string> = {
  '*': 'star',
  '†': 'dagger',
  '‡': 'double-dagger',
  '§': 'section',
  '¶': 'pilcrow',
}

const labelOf = (marker: string) =>
  /^\d+$/.test(marker) ? marker : [...marker].map((symbol) => symbolNames[symbol]).join('-')

const referable = (block: Block): block is Block & { kind: 'paragraph' | 'item' | 'caption' | 'heading' } =>
  block.kind === 'paragraph' || block.kind === 'item' || block.kind === 'caption' || block.kind === 'heading'

/**
 * Links the notes of one page after another. Labels are the notes' own numbers (a second note 1
 * becomes `1-2`), so a reader sees the document's numbers; symbols are named, as GitHub wants
 * labels of letters and digits (`*` becomes `star`, `††` `dagger-dagger`). A note continued on the next page is
 * joined to the note it continues.
 */
export class FootnoteLinker {
  private readonly used = new Set<string>()
  /** The block the last note went to, while the next page may continue it. */
  private open: { text: string } | null = null

  /** The page's blocks with each note's definition after the block that refers to it. */
  link(blocks: readonly Block[], notes: readonly Footnote[]): Block[] {
    const after = new Map<Block, Block[]>()
    const unreferenced: Block[] = []
    for (const [index, note] of notes.entries()) {
      if (index >= MAX_NOTES_PER_PAGE) {
        unreferenced.push({ kind: 'note' as const, text: note.raw })
        continue
      }
      if (note.marker === null) {
        if (this.open) this.open.text = joinLine(this.open.text, note.text)
        else {
          const block = { kind: 'note' as const, text: note.raw }
          unreferenced.push(block)
          this.open = block
        }
        continue
      }
      const marker = note.marker
      const site = blocks.find((block) => referable(block) && referenceIndex(block.text, marker) >= 0)
      if (!site || !referable(site)) {
        const block = { kind: 'note' as const, text: note.raw }
        unreferenced.push(block)
        this.open = block
        continue
      }
      const named = labelOf(marker)
      let label = named
      for (let n = 2; this.used.has(label); n++) label = `${named}-${n}`
      this.used.add(label)
      const at = referenceIndex(site.text, marker)
      site.text = `${site.text.slice(0, at)}[^${label}]${site.text.slice(at + marker.length)}`
      const definition = { kind: 'footnote' as const, label, text: note.text }
      after.set(site, [...(after.get(site) ?? []), definition])
      this.open = definition
    }
    if (notes.length === 0) this.open = null
    return [...blocks.flatMap((block) => [block, ...(after.get(block) ?? [])]), ...unreferenced]
  }
}
