// Writes PDFs whose content is known exactly: text runs at given positions in the standard fonts,
// ruling lines (stroked, or filled as thin rectangles the way many producers draw table borders),
// and full-page grey images (a "scan"). Tests of OCR and of structure score the
// extraction against what was written here.
import { deflateSync } from 'node:zlib'

export type StandardFont = 'Helvetica' | 'Helvetica-Bold' | 'Times-Roman' | 'Times-Bold' | 'Courier'

export interface TextRun {
  x: number
  /** Baseline, from the bottom of the page (PDF space). */
  y: number
  size: number
  font?: StandardFont
  text: string
}

export interface Rule {
  x1: number
  y1: number
  x2: number
  y2: number
  /** Line width in points (0.5 unless given). */
  width?: number
}

/** A filled rectangle: a thin one is a rule, a large one a shaded area. */
export interface FilledBox {
  x: number
  y: number
  width: number
  height: number
}

export interface GreyImage {
  width: number
  height: number
  /** One byte per pixel, rows from the top. */
  pixels: Uint8Array
}

export interface PageSpec {
  width?: number
  height?: number
  runs?: TextRun[]
  rules?: Rule[]
  fills?: FilledBox[]
  /** Drawn over the whole page, under the text. */
  image?: GreyImage
}

const fonts: StandardFont[] = ['Helvetica', 'Helvetica-Bold', 'Times-Roman', 'Times-Bold', 'Courier']

/** WinAnsi codes of the characters outside Latin-1 that the tests use. */
const winAnsi: Record<string, string> = {
  '•': '\x95',
  '–': '\x96',
  '—': '\x97',
  '’': '\x92',
  '“': '\x93',
  '”': '\x94',
}

/** A PDF literal string in WinAnsi. */
function literal(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[•–—’“”]/g, (c) => winAnsi[c]!)})`
}

export function writePdf(pages: PageSpec[]): Buffer {
  const bodies: (string | Buffer)[] = []
  const add = (body: string | Buffer) => {
    bodies.push(body)
    return bodies.length
  }
  const stream = (dictionary: string, data: Buffer) =>
    Buffer.concat([
      Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ])
  const catalog = add('')
  const pagesId = add('')
  const fontIds = fonts.map((name) =>
    add(`<< /Type /Font /Subtype /Type1 /BaseFont /${name} /Encoding /WinAnsiEncoding >>`),
  )
  const fontResources = fonts.map((_, index) => `/F${index} ${fontIds[index]} 0 R`).join(' ')
  const kids: number[] = []
  for (const page of pages) {
    const width = page.width ?? 612
    const height = page.height ?? 792
    const ops: string[] = []
    let xobjects = ''
    if (page.image) {
      const { width: w, height: h, pixels } = page.image
      const image = add(
        stream(
          `/Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
          deflateSync(pixels),
        ),
      )
      xobjects = `/XObject << /Im0 ${image} 0 R >>`
      ops.push(`q ${width} 0 0 ${height} 0 0 cm /Im0 Do Q`)
    }
    for (const rule of page.rules ?? [])
      ops.push(`${rule.width ?? 0.5} w ${rule.x1} ${rule.y1} m ${rule.x2} ${rule.y2} l S`)
    for (const box of page.fills ?? []) ops.push(`${box.x} ${box.y} ${box.width} ${box.height} re f`)
    for (const run of page.runs ?? []) {
      const font = fonts.indexOf(run.font ?? 'Helvetica')
      ops.push(`BT /F${font} ${run.size} Tf ${run.x} ${run.y} Td ${literal(run.text)} Tj ET`)
    }
    const content = add(stream('', Buffer.from(ops.join('\n'), 'latin1')))
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${width} ${height}] /Contents ${content} 0 R /Resources << /Font << ${fontResources} >> ${xobjects} >> >>`,
      ),
    )
  }
  bodies[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`
  bodies[pagesId - 1] =
    `<< /Type /Pages /Kids [${kids.map((id) => `${id} 0 R`).join(' ')}] /Count ${kids.length} >>`
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')]
  let length = parts[0]!.length
  const offsets: number[] = []
  bodies.forEach((body, index) => {
    offsets.push(length)
    const chunk = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ])
    parts.push(chunk)
    length += chunk.length
  })
  let trailer = `xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) trailer += `${String(offset).padStart(10, '0')} 00000 n \n`
  trailer += `trailer\n<< /Size ${bodies.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${length}\n%%EOF\n`
  parts.push(Buffer.from(trailer, 'latin1'))
  return Buffer.concat(parts)
}

/** Reads a binary PGM (P5, 8-bit), as pdftoppm -gray writes it. */
export function readPgm(data: Buffer): GreyImage {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(data.subarray(0, 64).toString('latin1'))
  if (header === null) throw new Error('not a binary PGM')
  if (header[3] !== '255') throw new Error('not an 8-bit PGM')
  const width = Number(header[1])
  const height = Number(header[2])
  const start = header[0].length
  return { width, height, pixels: data.subarray(start, start + width * height) }
}
