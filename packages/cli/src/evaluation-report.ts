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

/** The lines above an answer report: the data set, its split and role, the selection, the answerer. */
export function reportHeader(details: Record<string, string>): string {
  return `${Object.entries(details)
    .map(([key, value]) => `${key}: ${value}`)
    .join("\n")}\n`;
}

/** A Markdown table of answer results. */
export function answerTable(result: AnswerEvaluation): string {
  const percent = (value: number) => (Number.isNaN(value) ? "n/a" : `${(value * 100).toFixed(1)} %`);
  const counts = (tally: Record<string, number>) =>
    Object.entries(tally)
      .map(([name, count]) => `${name} ${count}`)
      .join(", ") || "none";
  const milliseconds = (value: number | null) => (value === null ? "n/a" : `${Math.round(value)} ms`);
  const { generation } = result;
  const tokensPerSecond =
    generation.tokensPerSecond === null
      ? "not reported by the service"
      : `${generation.tokensPerSecond.toFixed(1)} (${generation.outputTokens} tokens over ${generation.answers} answers${generation.includesPrompt ? ", prompt processing included" : ""})`;
  const table = result.scorer === "all-items" ? " (every item of the answer)" : "";
  return `${[
    "| measure | value |",
    "|---|---|",
    `| questions scored (failed, left out) | ${result.questions} (${result.failed}) |`,
    `| answerable questions | ${result.answerable} |`,
    `| exact match (callout, answerable) | ${percent(result.exactMatch)} |`,
    `| token F1 (callout, answerable) | ${percent(result.f1)} |`,
    `| gold answer in the callout${table} | ${percent(result.calloutContainsAnswerRate)} |`,
    `| gold answer anywhere in the answer | ${percent(result.containsAnswerRate)} |`,
    `| gold document retrieved | ${percent(result.retrievedRate)} |`,
    `| gold document cited | ${percent(result.citedRate)} |`,
    `| citation precision (cited passages holding a gold answer) | ${percent(result.citationPrecision)} of ${result.citedPassages} |`,
    `| answered callouts carrying a citation | ${percent(result.calloutCitationRate)} of ${result.answered} |`,
    `| answerable questions abstained on | ${percent(result.falseAbstentionRate)} |`,
    `| unanswerable questions | ${result.unanswerable} |`,
    `| abstention precision | ${percent(result.abstentionPrecision)} |`,
    `| abstention recall | ${percent(result.abstentionRecall)} |`,
    `| abstentions by reason | ${counts(result.abstentionReasons)} |`,
    `| exact match / F1, all questions (SQuAD 2.0) | ${percent(result.overallExactMatch)} / ${percent(result.overallF1)} |`,
    `| answer modes | ${counts(result.answerModes)} |`,
    `| valid Answer JSON (model outputs) | ${percent(result.validJsonRate)} of ${result.modelOutputs} |`,
    `| extractive fallbacks by reason | ${counts(result.fallbackReasons)} |`,
    `| latency per question p50 / p95 | ${milliseconds(result.latency.p50Ms)} / ${milliseconds(result.latency.p95Ms)} |`,
    `| generation tokens/s | ${tokensPerSecond} |`,
    `| cited summary nodes | ${result.summarySources} |`,
    `| unsupported citations | ${result.unsupportedCitations} |`,
  ].join("\n")}\n`;
}

/** A horizontal bar chart of the answer measures (shares in [0, 1]), as SVG. */
export function answerChart(result: AnswerEvaluation): string {
  const bars: [string, number, string][] = [
    ["exact match", result.exactMatch, "#3b6fb6"],
    ["token F1", result.f1, "#3b6fb6"],
    ["gold answer in callout", result.calloutContainsAnswerRate, "#3b6fb6"],
    ["gold document cited", result.citedRate, "#5a9e4b"],
    ["citation precision", result.citationPrecision, "#5a9e4b"],
    ["cited callouts", result.calloutCitationRate, "#5a9e4b"],
    ["false abstentions", result.falseAbstentionRate, "#c0504d"],
    ["abstention precision", result.abstentionPrecision, "#e08a2e"],
    ["abstention recall", result.abstentionRecall, "#e08a2e"],
  ];
  const left = 170;
  const plot = 320;
  const rowHeight = 24;
  const height = bars.length * rowHeight + 30;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${left + plot + 70}" height="${height}" role="img" aria-label="answer measures">`,
  ];
  for (let tick = 0; tick <= 5; tick++) {
    const x = left + (tick / 5) * plot;
    parts.push(
      `<line x1="${x}" y1="4" x2="${x}" y2="${height - 22}" stroke="#ddd"/><text x="${x}" y="${height - 8}" font-size="10" text-anchor="middle">${(tick / 5).toFixed(1)}</text>`,
    );
  }
  bars.forEach(([name, value, color], index) => {
    const y = 6 + index * rowHeight;
    const known = !Number.isNaN(value);
    const width = known ? Math.max(0, Math.min(1, value)) * plot : 0;
    parts.push(`<text x="${left - 8}" y="${y + 14}" font-size="11" text-anchor="end">${escapeHtml(name)}</text>`);
    parts.push(
      `<rect x="${left}" y="${y}" width="${width}" height="${rowHeight - 8}" fill="${color}"><title>${escapeHtml(name)}</title></rect>`,
    );
    parts.push(`<text x="${left + width + 4}" y="${y + 13}" font-size="10">${known ? value.toFixed(3) : "n/a"}</text>`);
  });
  parts.push("</svg>");
  return parts.join("");
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
    sections.push("<h2>Answers</h2>", answerChart(answers), `<pre>${escapeHtml(answerTable(answers))}</pre>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:72rem}table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}dt{font-weight:600}</style>
</head><body><h1>${escapeHtml(title)}</h1><dl>${Object.entries(details)
    .map(([key, value]) => `<dt>${escapeHtml(key)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join("")}</dl>${sections.join("\n")}</body></html>\n`;
}
