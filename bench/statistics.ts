/**
 * Helpers shared by the benchmarks: percentiles and the printed table.
 */

/** One line of benchmark output: figures, and a baseline measured in the same run. */
export interface BenchmarkRow {
  benchmark: string;
  configuration: string;
  figures: Record<string, number>;
  baseline?: { name: string; value: number };
  /** The main figure divided by the baseline. */
  ratio?: number;
}

/**
 * A row of figure `name` measured in configuration `measured` against the same figure in
 * `baseline` (same run): "<name>: <measured>" with the baseline named "<name> <baseline>".
 */
export function comparedRow(
  benchmark: string,
  name: string,
  measured: { label: string; value: number },
  baseline: { label: string; value: number },
): BenchmarkRow {
  return {
    benchmark,
    configuration: `${name}: ${measured.label}`,
    figures: { [name]: measured.value },
    baseline: { name: `${name} ${baseline.label}`, value: baseline.value },
    ratio: measured.value / baseline.value,
  };
}

/** The p-th percentile (0 to 100) of `samples`, by the nearest-rank method. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((left, right) => left - right);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

const format = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toFixed(3));

/** Prints rows as a Markdown table. */
export function printRows(rows: readonly BenchmarkRow[]): void {
  console.log("| Benchmark | Configuration | Figures | Baseline (same run) | Ratio |");
  console.log("|---|---|---|---|---|");
  for (const row of rows) {
    const figures = Object.entries(row.figures)
      .map(([name, value]) => `${name} ${format(value)}`)
      .join(", ");
    const baseline = row.baseline ? `${row.baseline.name} ${format(row.baseline.value)}` : "";
    const ratio = row.ratio === undefined ? "" : `${format(row.ratio)}x`;
    console.log(`| ${row.benchmark} | ${row.configuration} | ${figures} | ${baseline} | ${ratio} |`);
  }
}
