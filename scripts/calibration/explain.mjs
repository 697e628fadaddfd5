#!/usr/bin/env node
/**
 * Prints how docqa ranked the answer units of a question (development aid): the top units with
 * their kind, score and non-zero features, and the abstention decision.
 *
 * Usage: DATA_DIR=… node scripts/calibration/explain.mjs --org acme --user ann@acme.example [--top 8] "question"
 */
import { parseArgs } from "node:util";
import { createRagService, loadConfig, silentLogger } from "@docqa/core";
import { insertAfter } from "@docqa/core/pipeline";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { org: { type: "string" }, user: { type: "string" }, top: { type: "string", default: "8" } },
});
let captured;
const capture = {
  name: "capture-evidence",
  async run(state) {
    captured = state;
  },
};
const service = createRagService({
  config: loadConfig(process.env),
  logger: silentLogger,
  stages: { predict: insertAfter("decide-answerable", capture) },
});
try {
  const principal = { userName: values.user, roles: [], groups: [] };
  const result = await service.predict({ orgId: values.org, principal, query: positionals.join(" "), memory: false });
  console.log(`Q: ${positionals.join(" ")}\nA: ${result.answer.callout_answer}`);
  console.log(
    `decision: ${JSON.stringify({ ...captured.answerability, signals: { ...captured.answerability?.signals, features: undefined } })}`,
  );
  console.log(`features: ${JSON.stringify(captured.answerability?.signals.features)}`);
  for (const entry of captured.context?.entries ?? []) {
    console.log(`context ${entry.key}: ${entry.chunk.docId} chunk ${entry.chunk.chunkIndex} (${entry.text.length} chars)`);
  }
  const [best] = captured.evidence.units;
  if (best?.row) console.log(`best unit's row: ${JSON.stringify(best.row.cells.map(({ key, value }) => `${key}: ${value}`))}`);
  for (const unit of captured.evidence.units.slice(0, Number(values.top))) {
    const features = Object.entries(unit.features)
      .filter(([, value]) => value !== 0)
      .map(([name, value]) => `${name}=${Number(value.toFixed(3))}`)
      .join(" ");
    console.log(
      `${unit.score.toFixed(3)} ${unit.kind.padEnd(8)} ${unit.entry.key} ${JSON.stringify(unit.text.slice(0, 90))} | ${features}${unit.unnamedField ? " unnamedField" : ""}`,
    );
  }
} finally {
  await service.close();
}
