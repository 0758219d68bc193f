// A minimal valid PDF for tests that need one without the shared corpus.
/** A one-page PDF whose text is `text`, with a correct cross-reference table. */
export function tinyPdf(text: string): Buffer {
  return pdfOfObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    pdfStream(`BT /F1 18 Tf 30 100 Td (${text}) Tj ET`),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ])
}

/** A stream object of `content` (Latin-1), with `dictionary` entries before its length. */
export function pdfStream(content: string, dictionary = ''): string {
  return `<< ${dictionary} /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`
}

/** A PDF of `objects` (numbered from 1, the first the catalog), with a correct cross-reference table. */
export function pdfOfObjects(objects: readonly string[]): Buffer {
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out))
    out += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = Buffer.byteLength(out)
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out)
}

export interface PdfPageSpec {
  content: string
  /** The page's resource dictionary; Helvetica is /F1 unless given. */
  resources?: string
  width?: number
  height?: number
}

/**
 * A PDF of `pages` in order, Helvetica as object 3, each page and its content next (objects 4 and
 * 5 for the first), then `objects`, numbered from `4 + 2 × pages.length` (see `objectAfterPages`).
 */
export function pdfOfPages(pages: readonly PdfPageSpec[], objects: readonly string[] = []): Buffer {
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ')
  return pdfOfObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...pages.flatMap((page, i) => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width ?? 300} ${page.height ?? 200}] /Contents ${5 + 2 * i} 0 R /Resources ${page.resources ?? '<< /Font << /F1 3 0 R >> >>'} >>`,
      pdfStream(page.content),
    ]),
    ...objects,
  ])
}

/** The number of the `index`th object after `pages` pages in `pdfOfPages`. */
export const objectAfterPages = (pages: number, index = 0) => 4 + 2 * pages + index

/** A page of `words` in 24-point Helvetica. */
export const textPage = (words: string): PdfPageSpec => ({
  content: `BT /F1 24 Tf 40 120 Td (${words}) Tj ET`,
})

/**
 * A page that shades with a PostScript function nested 100,000 deep, which overflows a renderer's
 * stack (hayro's did, ending its process), with the two objects it needs, numbered from `first`.
 */
export function overflowingPage(first: number): { page: PdfPageSpec; objects: string[] } {
  const depth = 100_000
  return {
    page: { content: '/S0 sh', resources: `<< /Shading << /S0 ${first} 0 R >> >>` },
    objects: [
      `<< /ShadingType 1 /ColorSpace /DeviceGray /Function ${first + 1} 0 R >>`,
      pdfStream(
        `{ ${'{ '.repeat(depth)}0.5 ${'} '.repeat(depth)}}`,
        '/FunctionType 4 /Domain [0 1 0 1] /Range [0 1]',
      ),
    ],
  }
}
