#!/usr/bin/env node
// Calibrates the abstention thresholds (docs/answering.md#abstention) from `docqa eval --json`
// outputs recorded with the thresholds off:
//
//   ABSTAIN_MIN_PASSAGE_COVERAGE=0 ABSTAIN_MIN_PASSAGE_SPECIFICITY=0 ABSTAIN_TYPED_MIN_PASSAGE_COVERAGE=0 ABSTAIN_MIN_DENSE=-1 EXTRACTIVE_MIN_COVERAGE=0 ABSTENTION_CHECKS=all \
//     docqa eval <set> --json > run.json
//
// Every outcome carries the decision's signals (best passage coverage and specificity, best-sentence coverage,
// best dense signal, the answer type asked for and whether the best sentence offers it); this script replays the threshold checks on them for a grid of thresholds and
// prints, per grid point and input file, the abstention precision and recall (a file with both
// kinds of question), the share abstained (a file of unanswerable questions only), or the share
// of answerable questions abstained on. The checks that need no threshold (missing names and
// numbers, negation, contradiction) are kept as the run made them.
//
// Usage: node scripts/calibrate-abstention.mjs run1.json run2.json ... [passage=0.25,0.3 specificity=0.25,0.3 typed=0,0.45 dense=0.4,0.5 sentence=0.1,0.15]
// With a single value for each threshold it also prints, per file, what `docqa eval` would report
// with those defaults: gold answer in the callout and token F1 over answerable questions (an
// abstention counts as a miss), abstention precision and recall.
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const files = process.argv.slice(2).filter((argument) => !argument.startsWith("--") && !argument.includes("="));
const gridArguments = process.argv.slice(2).filter((argument) => argument.includes("="));
const grid = {
  passage: [0, 0.25, 0.3, 0.4],
  specificity: [0, 0.25, 0.3],
  typed: [0, 0.35, 0.4, 0.45, 0.5],
  dense: [-1, 0.4, 0.45, 0.5, 0.55],
  sentence: [0, 0.1, 0.15, 0.2],
};
for (const argument of gridArguments) {
  const [name, values] = argument.split("=");
  if (name in grid) grid[name] = values.split(",").map(Number);
}
/** Best-sentence coverage up to which a low dense signal counts (decideAnswerable's `propositionCoverage`). */
const propositionCoverage = 0.5;
/** Passage coverage from which the specificity check does not apply (decideAnswerable's `topicalCoverage`). */
const topicalCoverage = 0.65;

const runs = files.map((file) => ({ name: basename(file, ".json"), outcomes: JSON.parse(readFileSync(file, "utf8")).outcomes }));

/** Whether the thresholds make the service abstain on `outcome`. */
function abstains(outcome, thresholds) {
  if (outcome.abstained) return true; // a threshold-free check, or no documents
  const signals = outcome.signals;
  if (!signals) return false;
  if (signals.dense === null && signals.passageCoverage < thresholds.passage) return true;
  // ABSTAIN_MIN_PASSAGE_SPECIFICITY: a passage sharing only common words with a question it barely covers.
  const specificity = signals.passageSpecificity ?? Number.POSITIVE_INFINITY;
  if (signals.dense === null && specificity < thresholds.specificity && signals.passageCoverage < topicalCoverage) return true;
  // ABSTAIN_TYPED_MIN_PASSAGE_COVERAGE: a number asked of a marginal passage whose best sentence offers none.
  const typedMiss = signals.expectedType === "number" && signals.answerTypeOffered === false;
  if (signals.dense === null && typedMiss && signals.passageCoverage < thresholds.typed) return true;
  if (signals.dense !== null && signals.dense < thresholds.dense && signals.sentenceCoverage < propositionCoverage) return true;
  return signals.sentenceCoverage < thresholds.sentence;
}

function describe(outcomes, thresholds) {
  const answerable = outcomes.filter((outcome) => outcome.answerable);
  const unanswerable = outcomes.filter((outcome) => !outcome.answerable);
  const abstained = outcomes.filter((outcome) => abstains(outcome, thresholds));
  const falseAbstentions = answerable.filter((outcome) => abstains(outcome, thresholds)).length;
  const trueAbstentions = unanswerable.filter((outcome) => abstains(outcome, thresholds)).length;
  const percent = (value) => `${(value * 100).toFixed(1)}`;
  if (answerable.length === 0) return `abst ${percent(trueAbstentions / unanswerable.length)}`;
  if (unanswerable.length === 0) return `false ${percent(falseAbstentions / answerable.length)}`;
  const precision = abstained.length === 0 ? Number.NaN : trueAbstentions / abstained.length;
  return `P ${percent(precision)} R ${percent(trueAbstentions / unanswerable.length)} false ${percent(falseAbstentions / answerable.length)}`;
}

console.log(["passage", "specificity", "typed", "dense", "sentence", ...runs.map((run) => run.name)].join("\t"));
for (const passage of grid.passage) {
  for (const specificity of grid.specificity) {
    for (const typed of grid.typed) {
      for (const dense of grid.dense) {
        for (const sentence of grid.sentence) {
          const thresholds = { passage, specificity, typed, dense, sentence };
          console.log([passage, specificity, typed, dense, sentence, ...runs.map((run) => describe(run.outcomes, thresholds))].join("\t"));
        }
      }
    }
  }
}

if (Object.values(grid).every((values) => values.length === 1)) {
  const thresholds = {
    passage: grid.passage[0],
    specificity: grid.specificity[0],
    typed: grid.typed[0],
    dense: grid.dense[0],
    sentence: grid.sentence[0],
  };
  console.log("\nfile\tanswerable\tgold in callout\ttoken F1\tunanswerable\tabstention precision\tabstention recall");
  for (const run of runs) {
    const answerable = run.outcomes.filter((outcome) => outcome.answerable);
    const unanswerable = run.outcomes.filter((outcome) => !outcome.answerable);
    const kept = answerable.filter((outcome) => !abstains(outcome, thresholds));
    const abstained = run.outcomes.filter((outcome) => abstains(outcome, thresholds));
    const share = (part, whole) => (whole === 0 ? "n/a" : (part / whole).toFixed(3));
    console.log(
      [
        run.name,
        answerable.length,
        share(kept.filter((outcome) => outcome.calloutContainsAnswer).length, answerable.length),
        share(
          kept.reduce((sum, outcome) => sum + outcome.f1, 0),
          answerable.length,
        ),
        unanswerable.length,
        share(abstained.filter((outcome) => !outcome.answerable).length, abstained.length),
        share(unanswerable.filter((outcome) => abstains(outcome, thresholds)).length, unanswerable.length),
      ].join("\t"),
    );
  }
}
