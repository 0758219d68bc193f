// Pages per second on the corpus's long documents: our core (through the Node binding, one
// thread) against mutool, pdftotext and pdfjs-dist, all measured in this run on this machine.
// Each figure is the median of several runs; the ratios are what to read, not the absolute times.
// Run: node_modules/.bin/node bench/pdf/run.ts [runs]
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { extractPdfText } from '../../native/pdf.ts'
import { corpusPdfs, corpusPresent, pdfCorpusDir } from '../../test/pdf/corpus.ts'
import { peerInstalled } from '../../test/pdf/peers.ts'

if (!corpusPresent) {
  console.log(`no corpus at ${pdfCorpusDir}`)
  process.exit(0)
}
const runs = Number(process.argv[2] ?? 5)

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

function command(program: string, args: string[]): () => void {
  return () => {
    const result = spawnSync(program, args, { stdio: 'ignore' })
    if (result.status !== 0) throw new Error(`${program} failed`)
  }
}

async function pdfjsText(bytes: Buffer): Promise<void> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise
  for (let page = 1; page <= doc.numPages; page++) await (await doc.getPage(page)).getTextContent()
  await doc.destroy()
}

for (const file of corpusPdfs('long')) {
  const bytes = readFileSync(file)
  const ours = await extractPdfText(bytes, { firstPage: 1, mode: 'plain' })
  const pages = ours.pages.length
  const contenders: (readonly [string, () => Promise<unknown> | unknown])[] = [
    ['kiln pdf-core', () => extractPdfText(bytes, { firstPage: 1, mode: 'plain' })],
    ...(peerInstalled('mutool')
      ? [
          [
            'mutool draw -F txt',
            command('mutool', ['draw', '-q', '-F', 'txt', '-o', '/dev/null', file]),
          ] as const,
        ]
      : []),
    ...(peerInstalled('pdftotext')
      ? [['pdftotext', command('pdftotext', ['-q', file, '/dev/null'])] as const]
      : []),
    ['pdfjs-dist getTextContent', () => pdfjsText(bytes)],
  ]
  const rates = new Map<string, number>()
  for (const [name, work] of contenders) {
    await work()
    const times: number[] = []
    for (let run = 0; run < runs; run++) times.push(await timed(work))
    rates.set(name, pages / (median(times) / 1000))
  }
  const ourRate = rates.get('kiln pdf-core') ?? 0
  console.log(`\n${basename(file)}: ${pages} pages, median of ${runs} runs`)
  for (const [name, rate] of rates) {
    const ratio = name === 'kiln pdf-core' ? '' : `   kiln is ${(ourRate / rate).toFixed(2)}x`
    console.log(`  ${name.padEnd(28)} ${rate.toFixed(0).padStart(7)} pages/s${ratio}`)
  }
}
