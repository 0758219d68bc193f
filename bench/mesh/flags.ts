// The row filters the mesh benches share: `--only=a,b` keeps rows whose name contains a word, and
// `--optimize-only` skips the simplify runs.
const argv = process.argv

export const onlyWords: string[] | undefined = argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',')
  .filter(Boolean)

export const optimizeOnly = argv.includes('--optimize-only')
