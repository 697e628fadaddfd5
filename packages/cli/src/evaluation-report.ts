/**
 * Rendering of `docqa eval` results: a text table for terminals and a self-contained HTML report
 * with an inline SVG bar chart (no scripts, no external resources).
 */
import type { AnswerEvaluation, RetrievalMetrics } from "@docqa/core/evaluation";

/** One evaluated retrieval configuration. */
export interface RetrievalRow {
  name: string;
  description: string;
  metrics: RetrievalMetrics;
  /** Mean milliseconds per query. */
  msPerQuery: number;
}

const figure = (value: number) => (Number.isNaN(value) ? "n/a" : value.toFixed(4));

/** A Markdown table of retrieval results. */
export function retrievalTable(rows: readonly RetrievalRow[]): string {
  const lines = ["| configuration | nDCG@10 | recall@10 | recall@100 | MRR@10 | queries | ms/query |", "|---|---|---|---|---|---|---|"];
  for (const row of rows) {
    const { ndcgAt10, recallAt10, recallAt100, mrrAt10, queries } = row.metrics;
    lines.push(
      `| ${row.name} | ${figure(ndcgAt10)} | ${figure(recallAt10)} | ${figure(recallAt100)} | ${figure(mrrAt10)} | ${queries} | ${row.msPerQuery.toFixed(2)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A Markdown table of answer results. */
export function answerTable(result: AnswerEvaluation): string {
  const percent = (value: number) => (Number.isNaN(value) ? "n/a" : `${(value * 100).toFixed(1)} %`);
  return `${[
    "| measure | value |",
    "|---|---|",
    `| answerable questions | ${result.answerable} |`,
    `| gold paragraph retrieved | ${percent(result.retrievedRate)} |`,
    `| gold paragraph cited | ${percent(result.citedRate)} |`,
    `| gold answer in the answer | ${percent(result.containsAnswerRate)} |`,
    `| unanswerable questions | ${result.unanswerable} |`,
    `| abstention precision | ${percent(result.abstentionPrecision)} |`,
    `| abstention recall | ${percent(result.abstentionRecall)} |`,
  ].join("\n")}\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A grouped bar chart (nDCG@10, recall@100) of the configurations, as SVG. */
export function retrievalChart(rows: readonly RetrievalRow[]): string {
  const series: [string, (metrics: RetrievalMetrics) => number, string][] = [
    ["nDCG@10", (metrics) => metrics.ndcgAt10, "#3b6fb6"],
    ["recall@100", (metrics) => metrics.recallAt100, "#e08a2e"],
  ];
  const barWidth = 22;
  const groupWidth = series.length * barWidth + 28;
  const height = 260;
  const top = 20;
  const plot = 190;
  const left = 40;
  const width = left + rows.length * groupWidth + 20;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + 40}" role="img" aria-label="retrieval metrics by configuration">`,
  ];
  for (let tick = 0; tick <= 5; tick++) {
    const y = top + plot - (tick / 5) * plot;
    parts.push(
      `<line x1="${left}" y1="${y}" x2="${width - 10}" y2="${y}" stroke="#ddd"/><text x="${left - 6}" y="${y + 4}" font-size="10" text-anchor="end">${(tick / 5).toFixed(1)}</text>`,
    );
  }
  rows.forEach((row, index) => {
    const x0 = left + 10 + index * groupWidth;
    series.forEach(([, value, color], seriesIndex) => {
      const v = Math.max(0, Math.min(1, value(row.metrics)));
      const barHeight = v * plot;
      const x = x0 + seriesIndex * barWidth;
      parts.push(
        `<rect x="${x}" y="${top + plot - barHeight}" width="${barWidth - 3}" height="${barHeight}" fill="${color}"><title>${escapeHtml(row.name)}: ${v.toFixed(4)}</title></rect>`,
      );
      parts.push(
        `<text x="${x + (barWidth - 3) / 2}" y="${top + plot - barHeight - 3}" font-size="8" text-anchor="middle">${v.toFixed(3)}</text>`,
      );
    });
    parts.push(
      `<text x="${x0 + (series.length * barWidth) / 2}" y="${top + plot + 14}" font-size="10" text-anchor="middle">${escapeHtml(row.name)}</text>`,
    );
  });
  series.forEach(([name, , color], index) => {
    parts.push(
      `<rect x="${left + index * 110}" y="${height + 15}" width="10" height="10" fill="${color}"/><text x="${left + 14 + index * 110}" y="${height + 24}" font-size="11">${name}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("");
}

/** The self-contained HTML report. */
export function htmlReport(
  title: string,
  details: Record<string, string>,
  rows: readonly RetrievalRow[],
  answers?: AnswerEvaluation,
): string {
  const table = (header: string[], body: string[][]) =>
    `<table><thead><tr>${header.map((cell) => `<th>${escapeHtml(cell)}</th>`).join("")}</tr></thead><tbody>${body
      .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join("")}</tr>`)
      .join("")}</tbody></table>`;
  const sections: string[] = [];
  if (rows.length > 0) {
    sections.push(
      "<h2>Retrieval</h2>",
      retrievalChart(rows),
      table(
        ["configuration", "description", "nDCG@10", "recall@10", "recall@100", "MRR@10", "queries", "ms/query"],
        rows.map((row) => [
          row.name,
          row.description,
          figure(row.metrics.ndcgAt10),
          figure(row.metrics.recallAt10),
          figure(row.metrics.recallAt100),
          figure(row.metrics.mrrAt10),
          String(row.metrics.queries),
          row.msPerQuery.toFixed(2),
        ]),
      ),
    );
  }
  if (answers) {
    sections.push("<h2>Answers</h2>", `<pre>${escapeHtml(answerTable(answers))}</pre>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:72rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}dt{font-weight:600}</style>
</head><body><h1>${escapeHtml(title)}</h1><dl>${Object.entries(details)
    .map(([key, value]) => `<dt>${escapeHtml(key)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join("")}</dl>${sections.join("\n")}</body></html>\n`;
}
