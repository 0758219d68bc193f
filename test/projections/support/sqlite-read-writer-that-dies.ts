// The read store's writer thread (sqlite-read-writer.ts), dying just after it answers its first commit.
import { dieAfterFirstAnswer } from '../../support/dies-after-first-answer.ts'

dieAfterFirstAnswer()
await import('../../../projections/sqlite-read-writer.ts')
