// Ruled tables as a real producer draws them: HTML tables with borders printed to PDF by headless
// Chromium (Skia draws each border as a thin filled rectangle and repeats a table's <thead> on
// every page). Scored cell by cell against the HTML they were printed from.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromium } from '../support/chromium.ts'
import { peerReady } from '../support/peers.ts'
import { runTool } from './run-tool.ts'
import { cellScores, markdownTables, tokens } from './structured.ts'

const ready = peerReady(
  'markdown tables printed by Chromium',
  !existsSync(chromiumPath) && `no Chromium at ${chromiumPath} (apt-get install chromium)`,
)

const merged = {
  html: `<table><tr><th rowspan="2">Month</th><th colspan="2">Orders</th><th rowspan="2">Note</th></tr>
    <tr><th>In</th><th>Out</th></tr>
    <tr><td>Jan</td><td>12</td><td>9</td><td>quiet</td></tr>
    <tr><td>Feb</td><td>15</td><td>14</td><td rowspan="2">two months</td></tr>
    <tr><td>Mar</td><td>8</td><td>7</td></tr></table>`,
  truth: [
    ['Month', 'Orders', '', 'Note'],
    ['', 'In', 'Out', ''],
    ['Jan', '12', '9', 'quiet'],
    ['Feb', '15', '14', 'two months'],
    ['Mar', '8', '7', ''],
  ],
}

const longRows = Array.from({ length: 60 }, (_, i) => [
  `Item ${i + 1}`,
  `${(i * 37) % 101}`,
  `${(i * 13) % 7}.5`,
])
const long = {
  html: `<table><thead><tr><th>Name</th><th>Count</th><th>Weight</th></tr></thead><tbody>${longRows
    .map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`,
  truth: [['Name', 'Count', 'Weight'], ...longRows],
}

/** Borders apart (cellspacing) in the bevelled style of the HTML border attribute: every cell is
 * its own box, each side filled as a thin trapezoid. */
const separate = {
  html: `<table class="separate" border="1" cellspacing="2"><tr><th>Code</th><th>Name</th><th>Qty</th></tr>
    <tr><td>A1</td><td>Anvil</td><td>2</td></tr>
    <tr><td>B7</td><td colspan="2">Bellows, on order</td></tr>
    <tr><td>C3</td><td>Crucible</td><td>5</td></tr></table>`,
  truth: [
    ['Code', 'Name', 'Qty'],
    ['A1', 'Anvil', '2'],
    ['B7', 'Bellows, on order', ''],
    ['C3', 'Crucible', '5'],
  ],
}

const framed = 'A framed paragraph that warns the reader about something important and is no table.'

const document = `<!doctype html><html><head><style>
  body { font-family: sans-serif; font-size: 11px }
  table { border-collapse: collapse; margin: 12px 0 }
  th, td { border: 1px solid black; padding: 3px 6px }
  .note { border: 1px solid black; padding: 8px; width: 300px }
  table.separate { border-collapse: separate }
  table.separate th, table.separate td { border: 1px inset grey }
</style></head><body>
<h1>Orders</h1><p>Orders by month, with merged cells.</p>${merged.html}
<div class="note">${framed}</div>
<p>A table with its borders apart.</p>${separate.html}
<h2>Stock</h2><p>A long table that runs over the page break.</p>${long.html}
<p>End of the stock list.</p></body></html>`

describe.runIf(ready)('extract_pdf mode=markdown on HTML tables printed by Chromium', () => {
  let markdown = ''
  let plainText = ''
  let repeated: string[] = []
  beforeAll(async () => {
    const browser = await launchChromium()
    const page = await browser.newPage()
    await page.setContent(document)
    const path = join(mkdtempSync(join(tmpdir(), 'kiln-md-html-')), 'orders.pdf')
    writeFileSync(path, await page.pdf({ format: 'A4' }))
    await browser.close()
    const run = await runTool(path, { mode: 'markdown', ocr: 'off' })
    markdown = run.files['orders.md']!
    const pages = JSON.parse(run.files['orders.pages.json']!).pages as {
      running: { text: string; kind: string }[]
    }[]
    repeated = pages
      .flatMap((page) => page.running.filter((line) => line.kind === 'repeated_table_header'))
      .map((line) => line.text)
    plainText = (await runTool(path, { mode: 'plain', ocr: 'off' })).files['orders.txt']!
  }, 60_000)

  it('writes merged cells in their top-left cells, cells with borders apart, and the long table as one table', () => {
    const tables = markdownTables(markdown)
    expect(tables).toHaveLength(3)
    for (const [name, found, truth] of [
      ['merged cells', tables[0]!, merged.truth],
      ['borders apart', tables[1]!, separate.truth],
      ['long table across pages', tables[2]!, long.truth],
    ] as const) {
      const { precision, recall } = cellScores(found, truth)
      console.log(`Chromium table "${name}": precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)}`)
      expect(found, name).toEqual(truth)
    }
    expect(repeated.length).toBeGreaterThan(0)
    expect(repeated.every((text) => text === 'Name | Count | Weight')).toBe(true)
  })

  it('keeps the framed paragraph as text', () => {
    // It opens a paragraph of its own (the paragraph after it may be joined to it).
    expect(markdown).toContain(`\n\n${framed}`)
  })

  it("keeps plain mode's words: none lost or duplicated", () => {
    const withoutMarkers = markdown.replace(/<!-- page \d+ -->/g, '')
    const headers = repeated.join('\n')
    expect(tokens(`${withoutMarkers}\n${headers}`)).toEqual(
      tokens(plainText.replace(/--- page \d+ ---/g, '')),
    )
  })
})
