// A PDF whose flow is known: footnotes with superscript references on three pages (one note
// continued at the foot of the next page, one marked *, one at the foot of the left column of a
// two-column page),
// a table caption above its table and a figure caption, and four page breaks, two inside a text
// that goes on (a paragraph hyphenated across the break, a list item) and two that end one (a full
// stop, a heading). The body is set in Courier, whose glyphs are all 0.6 em wide, so a superscript
// can be placed right after its word exactly as a typesetter does; it is raised 3 points at 6 pt,
// within the baseline tolerance that keeps it on its line (native/pdf-core/src/layout.rs), as
// TeX's superscripts are. Markdown is scored against what is written here.
import type { PageSpec, Rule, StandardFont, TextRun } from '../support/pdf-writer.ts'
import { writePdf } from '../support/pdf-writer.ts'
import { wrap } from './scanned.ts'

export interface FlowTruth {
  /** Each note: the word its reference is attached to, its label and its whole text. */
  footnotes: { word: string; label: string; text: string }[]
  /** Captions, and the opening of the block that follows each one ("table" for a table). */
  captions: { text: string; next: string }[]
  /** Per page break: the words that end one page's text and open the next, and whether they are one block. */
  breaks: { before: string; after: string; joined: boolean }[]
  /** Whole sentences that only exist when the break is joined with its hyphenation mended. */
  mended: string[]
  /** Opening words of each block, in reading order. */
  order: string[]
  headings: { level: number; text: string }[]
  table: string[][]
}

const BODY = 10
const LEADING = 14
const NOTE = 8
const SUPERSCRIPT = 6
const RISE = 3
const COURIER_ADVANCE = 0.6

const advance = (text: string, size: number) => text.length * size * COURIER_ADVANCE

/** Runs of one line; `{n}` in the text is a superscript marker set tight against what precedes it. */
function courierLine(x: number, y: number, text: string, size = BODY): TextRun[] {
  const runs: TextRun[] = []
  let at = x
  for (const [index, part] of text.split(/\{([^}]+)\}/).entries()) {
    if (part === '') continue
    const superscript = index % 2 === 1
    const runSize = superscript ? SUPERSCRIPT : size
    runs.push({ x: at, y: superscript ? y + RISE : y, size: runSize, font: 'Courier', text: part })
    at += advance(part, runSize)
  }
  return runs
}

class FlowPage {
  runs: TextRun[] = []
  rules: Rule[] = []
  y = 700
  constructor(number: number) {
    this.runs.push({ x: 72, y: 760, size: 8, font: 'Helvetica', text: 'Firing Notes, a draft' })
    this.runs.push({ x: 300, y: 40, size: 9, font: 'Helvetica', text: String(number) })
  }
  heading(text: string, size: number, font: StandardFont = 'Helvetica-Bold') {
    this.y -= size * 0.6
    this.runs.push({ x: 72, y: this.y, size, font, text })
    this.y -= size * 1.6
  }
  lines(lines: readonly string[], x = 72, size = BODY) {
    for (const line of lines) {
      this.runs.push(...courierLine(x, this.y, line, size))
      this.y -= LEADING
    }
    this.y -= LEADING * 0.6
  }
  row(cells: readonly string[], xs: readonly number[]) {
    cells.forEach((text, i) => {
      this.runs.push({ x: xs[i]!, y: this.y, size: BODY, font: 'Helvetica', text })
    })
    this.y -= LEADING * 1.3
  }
  /** Notes at the foot, under a short rule, from `top` down. */
  notes(lines: readonly string[], x = 72, top = 120) {
    this.rules.push({ x1: x, y1: top + 12, x2: x + 120, y2: top + 12 })
    lines.forEach((line, i) => {
      this.runs.push(...courierLine(x, top - i * (NOTE + 2), line, NOTE))
    })
  }
  spec(): PageSpec {
    return { runs: this.runs, rules: this.rules }
  }
}

/** The first words of a text, up to its first superscript. */
const opening = (text: string) => text.split('{')[0]!.split(' ').slice(0, 4).join(' ')

export function flowPdf(): { pdf: Buffer; truth: FlowTruth } {
  const order: string[] = []
  const pages: PageSpec[] = []

  const one = new FlowPage(1)
  one.heading('Firing Notes', 18)
  const paragraphA =
    'The workshop fired its new kiln{1} forty times this year, twice as often as the old one, and lost fewer pieces to cracks than ever before.'
  order.push(opening(paragraphA))
  one.lines(wrap(paragraphA, 70))
  const tableCaption = 'Table 1: Pieces fired per month, by kind.'
  order.push(opening(tableCaption))
  one.lines([tableCaption])
  const columns = [72, 240, 400]
  const table = [
    ['Month', 'Bowls', 'Plates'],
    ['March', '120', '80'],
    ['April', '140', '95'],
  ]
  order.push('| Month | Bowls')
  for (const row of table) one.row(row, columns)
  one.y -= LEADING
  // A paragraph cut by the page break in the middle of a hyphenated word.
  const paragraphBOne = [
    'Every glaze{2} was tested on small tiles before it went on the pots,',
    'because the colour after firing depends on the atmosphere, on the',
    'thickness of the coat and above all on the peak tempera-',
  ]
  const paragraphBTwo = ['ture, which the cones tell more truly than the thermocouple.']
  order.push(opening(paragraphBOne[0]!))
  one.lines(paragraphBOne)
  one.notes([
    '1 The kiln is fired with gas and reaches 1280 degrees in about ten hours.',
    '2 A glaze is a thin layer of glass fused to the',
  ])
  pages.push(one.spec())

  const two = new FlowPage(2)
  two.lines(paragraphBTwo)
  const paragraphC =
    'Three cones{3} stand in front of the spy hole on every firing, and the firing ends when the middle one bends over.'
  order.push(opening(paragraphC))
  two.lines(wrap(paragraphC, 70))
  // Room for a figure, then its caption under it, in a smaller size.
  two.y -= 120
  const figureCaption = 'Figure 1: The kiln seen from its door, with the shelves loaded.'
  order.push(opening(figureCaption))
  two.lines([figureCaption], 72, 9)
  const paragraphD = 'The second half of the year is described on the next page{*}, column by column.'
  order.push(opening(paragraphD))
  two.lines(wrap(paragraphD, 70))
  two.notes([
    'surface of the pot in the second firing.',
    '3 Cones are small pyramids of clay that bend at a known temperature.',
    '* Page 3 is set in two columns.',
  ])
  pages.push(two.spec())

  const three = new FlowPage(3)
  three.heading('Two Columns', 14)
  const left = wrap(
    'The left column tells how pots are thrown: the clay is centred on the wheel{4} and opened with both thumbs, then the walls are pulled up in three passes.',
    36,
  )
  const right = wrap(
    'The right column tells how they are finished: they are trimmed when leather hard and dried under cloth, and the steps that follow are listed in the closing remarks',
    36,
  )
  order.push(opening(left[0]!))
  const top = three.y
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i]) three.runs.push(...courierLine(72, three.y, left[i]!))
    if (right[i]) three.runs.push(...courierLine(330, three.y, right[i]!))
    three.y -= LEADING
  }
  order.push(opening(right[0]!))
  // The note sits at the foot of the left column, above where the right column ends.
  three.notes(['4 The wheel is driven by a quiet', 'electric motor.'], 72, top - LEADING * (left.length + 1))
  pages.push(three.spec())

  const four = new FlowPage(4)
  four.heading('Closing Remarks', 14)
  const paragraphE = 'Before each firing the same two steps are followed:'
  order.push(opening(paragraphE))
  four.lines([paragraphE])
  order.push('Load the kiln the', 'Check the cones through')
  four.lines(['• Load the kiln the evening before.'])
  four.lines(['• Check the cones through the spy hole every hour and write down the'])
  pages.push(four.spec())

  const five = new FlowPage(5)
  five.lines(['time at which each of them bends.'], 84)
  const paragraphF = 'That is all for this year.'
  order.push(opening(paragraphF))
  five.lines([paragraphF])
  pages.push(five.spec())

  return {
    pdf: writePdf(pages),
    truth: {
      footnotes: [
        {
          word: 'kiln',
          label: '1',
          text: 'The kiln is fired with gas and reaches 1280 degrees in about ten hours.',
        },
        {
          word: 'glaze',
          label: '2',
          text: 'A glaze is a thin layer of glass fused to the surface of the pot in the second firing.',
        },
        {
          word: 'cones',
          label: '3',
          text: 'Cones are small pyramids of clay that bend at a known temperature.',
        },
        { word: 'wheel', label: '4', text: 'The wheel is driven by a quiet electric motor.' },
        { word: 'page', label: 'star', text: 'Page 3 is set in two columns.' },
      ],
      captions: [
        { text: tableCaption, next: 'table' },
        { text: figureCaption, next: opening(paragraphD) },
      ],
      breaks: [
        { before: 'the peak', after: 'the cones tell more', joined: true },
        { before: 'column by column.', after: 'Two Columns', joined: false },
        { before: 'the closing remarks', after: 'Closing Remarks', joined: false },
        { before: 'write down the', after: 'time at which each', joined: true },
      ],
      mended: [
        'on the peak temperature, which the cones tell more truly than the thermocouple.',
        'write down the time at which each of them bends.',
      ],
      order,
      headings: [
        { level: 1, text: 'Firing Notes' },
        { level: 2, text: 'Two Columns' },
        { level: 2, text: 'Closing Remarks' },
      ],
      table,
    },
  }
}
