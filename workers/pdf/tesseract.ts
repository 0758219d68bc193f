// Tesseract (Debian's tesseract-ocr) as a child process, one page at a time: the page's grey pixels
// go in as a temporary PGM file (read faster than from stdin), TSV comes back on stdout. A separate process per page keeps the engine's memory out
// of the worker: it is capped by prlimit, killed when the job is aborted (timeout) or when the page
// takes longer than its own limit, and a failed page cannot take the job's process with it.
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { DomainError } from '../../domain/errors.ts'

const tesseractPath = 'tesseract'
/** Address space of one recognition: the LSTM engine needs a few hundred MB for a dense page. */
const memoryLimitBytes = 1536 * 1024 * 1024
/** One page may take this long; a page over it fails the job with a clear timeout. */
export const pageTimeoutMs = 90_000

export interface OcrWord {
  text: string
  /** Tesseract's word confidence, 0–100. */
  confidence: number
  /** Pixel box in the rendered page: left, top, width, height. */
  box: [number, number, number, number]
  line: number
}

export interface OcrPage {
  text: string
  words: OcrWord[]
  /** Mean word confidence (0–100), null when no word was found. */
  confidence: number | null
}

/** What an aborted OCR run (the job's time limit) throws, wherever it was stopped. */
export const stoppedError = () =>
  new DomainError('timeout', 'The job was stopped while recognising its pages.', {
    hint: 'Extract fewer pages per job with first_page and last_page.',
  })

let installed: Promise<string[]> | undefined

/** The language packs the engine offers on this machine (`tesseract --list-langs`). */
export function installedLanguages(): Promise<string[]> {
  installed ??= promisify(execFile)(tesseractPath, ['--list-langs'], { timeout: 15_000 }).then(
    ({ stdout }) =>
      stdout
        .split('\n')
        .slice(1)
        .map((line) => line.trim())
        .filter((line) => line !== '' && line !== 'osd'),
    () => [],
  )
  return installed
}

/**
 * Refuses languages the engine does not have, naming the ones it does. False when the engine is not
 * installed on this worker at all: extraction then goes on without OCR, as with ocr "off".
 */
export async function checkLanguages(languages: readonly string[]): Promise<boolean> {
  const available = await installedLanguages()
  if (available.length === 0) return false
  const missing = languages.filter((language) => !available.includes(language))
  if (missing.length > 0)
    throw new DomainError(
      'invalid_options',
      `OCR language${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not installed.`,
      { hint: `Choose languages among: ${available.join(', ')}.` },
    )
  return true
}

/** Turns Tesseract's TSV into text (one line per recognised line, a blank line between blocks) and words. */
export function parseTsv(tsv: string): OcrPage {
  const words: OcrWord[] = []
  const lines: string[] = []
  let current: string[] = []
  let lineKey = ''
  let blockKey = ''
  const flush = () => {
    if (current.length > 0) lines.push(current.join(' '))
    current = []
  }
  for (const row of tsv.split('\n').slice(1)) {
    const cells = row.split('\t')
    if (cells.length < 12 || cells[0] !== '5') continue
    const text = (cells.slice(11).join('\t') ?? '').trim()
    const confidence = Number(cells[10])
    if (text === '' || confidence < 0) continue
    const block = `${cells[2]}`
    const key = `${cells[2]}.${cells[3]}.${cells[4]}`
    if (key !== lineKey) {
      flush()
      if (block !== blockKey && lines.length > 0) lines.push('')
      lineKey = key
      blockKey = block
    }
    current.push(text)
    words.push({
      text,
      confidence: Math.round(confidence * 10) / 10,
      box: [Number(cells[6]), Number(cells[7]), Number(cells[8]), Number(cells[9])],
      line: lines.length,
    })
  }
  flush()
  const confidence =
    words.length === 0
      ? null
      : Math.round((words.reduce((sum, word) => sum + word.confidence, 0) / words.length) * 10) / 10
  return { text: lines.join('\n'), words, confidence }
}

export interface RecogniseRequest {
  /** Binary PGM, as the PDF core renders pages. */
  image: Uint8Array
  languages: readonly string[]
  dpi: number
  signal: AbortSignal
}

/** Recognises one page image; aborting the signal kills the engine at once. */
export async function recognise(request: RecogniseRequest): Promise<OcrPage> {
  request.signal.throwIfAborted()
  const dir = await mkdtemp(join(tmpdir(), 'kiln-ocr-'))
  try {
    const imagePath = join(dir, 'page.pgm')
    await writeFile(imagePath, request.image)
    return await runEngine(imagePath, request)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function runEngine(imagePath: string, { languages, dpi, signal }: RecogniseRequest): Promise<OcrPage> {
  signal.throwIfAborted()
  return new Promise((resolve, reject) => {
    const child = spawn(
      'prlimit',
      [
        `--as=${memoryLimitBytes}`,
        '--',
        tesseractPath,
        imagePath,
        'stdout',
        '-l',
        languages.join('+'),
        '--dpi',
        String(Math.round(dpi)),
        'tsv',
      ],
      // One thread per engine: the worker's cores are shared with other jobs.
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
    )
    const out: Buffer[] = []
    const err: Buffer[] = []
    let failure: DomainError | null = null
    const stop = (reason: DomainError) => {
      failure ??= reason
      child.kill('SIGKILL')
    }
    const onAbort = () => stop(stoppedError())
    signal.addEventListener('abort', onAbort, { once: true })
    const timer = setTimeout(
      () =>
        stop(
          new DomainError('timeout', `Recognising one page took longer than ${pageTimeoutMs / 1000} s.`, {
            hint: 'The page is too dense or too large to recognise; try ocr "off" or another range.',
          }),
        ),
      pageTimeoutMs,
    )
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', () =>
      stop(
        new DomainError('internal', 'OCR is not available on this worker.', {
          hint: 'Retry later, or set ocr to "off".',
        }),
      ),
    )
    child.on('close', (code) => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      if (failure) return reject(failure)
      if (code !== 0) {
        const detail = Buffer.concat(err).toString('utf8')
        const outOfMemory = /alloc|memory/i.test(detail)
        return reject(
          new DomainError(
            outOfMemory ? 'out_of_memory' : 'internal',
            outOfMemory
              ? 'Recognising a page needed more memory than a job may use.'
              : 'The OCR engine failed on a page.',
            { hint: 'Try ocr "off", or extract the other pages with first_page and last_page.' },
          ),
        )
      }
      resolve(parseTsv(Buffer.concat(out).toString('utf8')))
    })
  })
}
