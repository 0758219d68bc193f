// Ruled tables are found before the rest of the page's layout; this puts each back among the
// page's regions where its first line stood in the producer's order (plain mode's order).
import type { Region, TableRegion } from '../page-layout.ts'

export function placeTables(
  regions: readonly Region[],
  tables: readonly TableRegion[],
  kept: readonly number[],
): Region[] {
  if (tables.length === 0) return [...regions]
  const position = new Map(kept.map((index, order) => [index, order]))
  const first = (lines: readonly number[]) =>
    Math.min(...lines.map((index) => position.get(index) ?? Infinity))
  const at = (region: Region) => (region.kind === 'line' ? first([region.index]) : first(region.lines))
  const placed = [...regions]
  for (const table of [...tables].sort((a, b) => first(a.lines) - first(b.lines))) {
    const where = placed.findIndex((region) => at(region) > first(table.lines))
    placed.splice(where < 0 ? placed.length : where, 0, table)
  }
  return placed
}
