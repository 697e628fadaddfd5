#!/usr/bin/env node
/**
 * Evaluates and fits `answerFromTable` (packages/core/src/answering/table-operations.ts) on
 * WikiTableQuestions-150 (../shared/data/qa/wikitablequestions-150): each question is asked of its
 * whole table (no retrieval). The 75 tables whose `table_file` sorts first are the tuning half,
 * the other 75 the report half (never fitted on).
 *
 * Usage:
 *   node scripts/calibration/table-operations-eval.mjs --split tuning|report [--verbose] [--errors N]
 *   node scripts/calibration/table-operations-eval.mjs --fit [--folds 10]
 *
 * Scoring ("gold in answer"): every item of answers[] is present in the answer text, after SQuAD
 * normalisation (lower case, punctuation and articles removed) on word boundaries; an item that is
 * a number matches any number of the text of equal value ("1,200" matches "1200").
 *
 * `--fit` fits the log-linear model on the tuning half only: features of every candidate plan,
 * a plan labelled right when its answer holds the gold answer (training on denotations, Pasupat &
 * Liang 2015); maximum likelihood of the right plans with L2 regularisation (Adam); the
 * regularisation chosen by cross-validation over tables; the calibration (a logistic regression of
 * correctness on the chosen answer's linear score and probability, Platt scaling with two inputs)
 * fitted on the cross-validated predictions. Writes
 * packages/core/src/answering/table-operations-model.json.
 *
 * The TypeScript module is bundled with esbuild (a dependency of the build tools) into a
 * temporary file first, so the script needs no build.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import Papa from "papaparse";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDirectory = resolve(root, "../shared/data/qa/wikitablequestions-150");
const modelPath = resolve(root, "packages/core/src/answering/table-operations-model.json");
/** Tables in the tuning half: the first 75 `table_file`s in sort order (the data set's README). */
const tuningTables = 75;
/** Regularisation strengths tried by cross-validation (L2 weight per question). */
const regularisationGrid = [0.0003, 0.001, 0.003, 0.01];
/** Adam steps and step size of the fit (enough for the objective to settle to 1e-4 per question). */
const adamSteps = 300;
const adamRate = 0.05;
/** Score thresholds at which precision and coverage are printed. */
const thresholds = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

const { values: argv } = parseArgs({
  options: {
    split: { type: "string", default: "tuning" },
    fit: { type: "boolean", default: false },
    folds: { type: "string", default: "10" },
    verbose: { type: "boolean", default: false },
    errors: { type: "string", default: "0" },
  },
});

async function loadModule() {
  const directory = mkdtempSync(join(tmpdir(), "table-operations-"));
  const outfile = join(directory, "bundle.mjs");
  try {
    await build({
      stdin: {
        contents: [
          'export * from "./packages/core/src/answering/table-operations.ts";',
          'export { normalizeAnswer } from "./packages/core/src/evaluation/answer-metrics.ts";',
        ].join("\n"),
        resolveDir: root,
        loader: "ts",
      },
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      logLevel: "error",
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function loadQuestions() {
  const questions = readFileSync(join(dataDirectory, "questions.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
  const files = [...new Set(questions.map((question) => question.table_file))].sort();
  const tuning = new Set(files.slice(0, tuningTables));
  const tables = new Map();
  for (const file of files) {
    const parsed = Papa.parse(readFileSync(join(dataDirectory, file), "utf8"), { escapeChar: "\\", quoteChar: '"', skipEmptyLines: true });
    const [header = [], ...rows] = parsed.data;
    tables.set(file, { header, rows });
  }
  return { questions, tuning, tables };
}

const numberPattern = /^[-+]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?$/;

/** Whether every gold item is in `text` (SQuAD normalisation; numbers compared by value). */
function goldInAnswer(text, answers, normalizeAnswer) {
  const haystack = ` ${normalizeAnswer(text)} `;
  const numbers = (text.match(/[-+]?\d[\d,]*(\.\d+)?/g) ?? []).map((number) => Number(number.replace(/,/g, "")));
  return answers.every((answer) => {
    const trimmed = answer.trim();
    if (numberPattern.test(trimmed) && /\d/.test(trimmed)) {
      const gold = Number(trimmed.replace(/,/g, ""));
      return numbers.some((number) => Math.abs(number - gold) <= 1e-9 * Math.max(1, Math.abs(gold)));
    }
    const needle = normalizeAnswer(answer);
    return needle !== "" && haystack.includes(` ${needle} `);
  });
}

/** Per question: candidates as sparse feature vectors over `names`, with labels and answer texts. */
function featurize(module, items, tables, normalizeAnswer) {
  const names = new Map();
  const index = (name) => {
    if (!names.has(name)) names.set(name, names.size);
    return names.get(name);
  };
  const examples = items.map((item) => {
    const candidates = module.tableAnswerCandidates(item.question, tables.get(item.table_file), { weights: {} });
    return {
      item,
      candidates: candidates.map((candidate) => ({
        features: Object.entries(candidate.features).map(([name, value]) => [index(name), value]),
        correct: goldInAnswer(candidate.text, item.answers, normalizeAnswer),
        text: candidate.text.toLowerCase(),
      })),
    };
  });
  return { names: [...names.keys()], examples };
}

function scores(candidates, weights) {
  return candidates.map((candidate) => candidate.features.reduce((sum, [index, value]) => sum + weights[index] * value, 0));
}

/** Maximum likelihood of the right candidates (log of their summed probability) with L2, by Adam. */
function fitWeights(examples, size, regularisation) {
  const weights = new Float64Array(size);
  const first = new Float64Array(size);
  const second = new Float64Array(size);
  const usable = examples.filter((example) => example.candidates.some((candidate) => candidate.correct));
  for (let step = 1; step <= adamSteps; step++) {
    const gradient = new Float64Array(size);
    for (const { candidates } of usable) {
      const logits = scores(candidates, weights);
      const top = Math.max(...logits);
      const masses = logits.map((logit) => Math.exp(logit - top));
      const total = masses.reduce((sum, mass) => sum + mass, 0);
      const right = candidates.reduce((sum, candidate, at) => sum + (candidate.correct ? masses[at] : 0), 0);
      candidates.forEach((candidate, at) => {
        const coefficient = (candidate.correct ? masses[at] / right : 0) - masses[at] / total;
        if (coefficient === 0) return;
        for (const [index, value] of candidate.features) gradient[index] += coefficient * value;
      });
    }
    for (let index = 0; index < size; index++) {
      const g = gradient[index] / usable.length - regularisation * weights[index];
      first[index] = 0.9 * first[index] + 0.1 * g;
      second[index] = 0.999 * second[index] + 0.001 * g * g;
      const corrected = first[index] / (1 - 0.9 ** step);
      const scale = Math.sqrt(second[index] / (1 - 0.999 ** step)) + 1e-8;
      weights[index] += (adamRate * corrected) / scale;
    }
  }
  return weights;
}

/** Clip of a probability before its logit (the module's `probabilityClip`): keeps a lone answer's p = 1 finite. */
const probabilityClip = 1e-3;

/** The answer chosen under `weights` (the best-scoring plan's), its probability (summed over plans with its text), its best linear score and correctness. */
function choose(example, weights) {
  if (example.candidates.length === 0) return { probability: 0, logit: 0, correct: false, answered: false };
  const logits = scores(example.candidates, weights);
  const top = Math.max(...logits);
  const byText = new Map();
  let total = 0;
  example.candidates.forEach((candidate, at) => {
    const mass = Math.exp(logits[at] - top);
    total += mass;
    const entry = byText.get(candidate.text) ?? { mass: 0, logit: Number.NEGATIVE_INFINITY, correct: candidate.correct };
    entry.mass += mass;
    entry.logit = Math.max(entry.logit, logits[at]);
    byText.set(candidate.text, entry);
  });
  const best = [...byText.values()].sort((a, b) => b.logit - a.logit)[0];
  return { probability: best.mass / total, logit: best.logit, correct: best.correct, answered: true };
}

/** The calibration inputs of a chosen answer: its best plan's linear score and the logit of its clipped probability. */
function calibrationInputs(prediction) {
  const p = Math.min(1 - probabilityClip, Math.max(probabilityClip, prediction.probability));
  return [prediction.logit, Math.log(p / (1 - p))];
}

/**
 * Logistic regression of correctness on the chosen answer's linear score and probability logit:
 * Platt scaling (Platt, 1999, "Probabilistic outputs for support vector machines") with a second
 * input, and Platt's smoothed targets ((N+ + 1)/(N+ + 2) for a right answer, 1/(N- + 2) for a
 * wrong one) so that separable data keeps finite weights; Newton's method with backtracking.
 */
function fitCalibration(predictions) {
  const answered = predictions.filter((prediction) => prediction.answered);
  const positives = answered.filter((prediction) => prediction.correct).length;
  const negatives = answered.length - positives;
  const points = answered.map((prediction) => ({
    x: [...calibrationInputs(prediction), 1],
    y: prediction.correct ? (positives + 1) / (positives + 2) : 1 / (negatives + 2),
  }));
  const size = 3;
  const dot = (w, x) => w.reduce((sum, value, index) => sum + value * x[index], 0);
  const loss = (w) =>
    points.reduce((sum, { x, y }) => {
      const z = dot(w, x);
      return sum + Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - y * z;
    }, 0);
  let w = [0, 1, 0];
  for (let iteration = 0; iteration < 100; iteration++) {
    const gradient = new Array(size).fill(0);
    const hessian = Array.from({ length: size }, (_, i) => Array.from({ length: size }, (_, j) => (i === j ? 1e-9 : 0)));
    for (const { x, y } of points) {
      const p = 1 / (1 + Math.exp(-dot(w, x)));
      for (let i = 0; i < size; i++) {
        gradient[i] += (y - p) * x[i];
        for (let j = 0; j < size; j++) hessian[i][j] += p * (1 - p) * x[i] * x[j];
      }
    }
    const step = solve(hessian, gradient);
    const current = loss(w);
    let scale = 1;
    while (scale > 1e-6 && loss(w.map((value, index) => value + scale * step[index])) > current) scale /= 2;
    w = w.map((value, index) => value + scale * step[index]);
    if (step.reduce((sum, value) => sum + Math.abs(scale * value), 0) < 1e-9) break;
  }
  return { score: w[0], probability: w[1], intercept: w[2] };
}

/** Solves `matrix` x = `vector` by Gaussian elimination with partial pivoting. */
function solve(matrix, vector) {
  const n = vector.length;
  const a = matrix.map((row, index) => [...row, vector[index]]);
  for (let column = 0; column < n; column++) {
    let pivot = column;
    for (let row = column + 1; row < n; row++) if (Math.abs(a[row][column]) > Math.abs(a[pivot][column])) pivot = row;
    [a[column], a[pivot]] = [a[pivot], a[column]];
    for (let row = column + 1; row < n; row++) {
      const factor = a[row][column] / a[column][column];
      for (let k = column; k <= n; k++) a[row][k] -= factor * a[column][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let row = n - 1; row >= 0; row--) {
    let sum = a[row][n];
    for (let k = row + 1; k < n; k++) sum -= a[row][k] * x[k];
    x[row] = sum / a[row][row];
  }
  return x;
}

function foldOf(file, folds) {
  let hash = 0;
  for (const character of file) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return hash % folds;
}

async function fitModel(module, { questions, tuning, tables }) {
  const { normalizeAnswer } = module;
  const items = questions.filter((question) => tuning.has(question.table_file));
  const started = Date.now();
  const { names, examples } = featurize(module, items, tables, normalizeAnswer);
  const candidateCount = examples.reduce((sum, example) => sum + example.candidates.length, 0);
  const oracle = examples.filter((example) => example.candidates.some((candidate) => candidate.correct)).length;
  console.log(
    `tuning: ${items.length} questions, ${candidateCount} candidates, ${names.length} features, oracle ${oracle}/${items.length} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  const folds = Number(argv.folds);
  let best;
  for (const regularisation of regularisationGrid) {
    const predictions = new Array(examples.length);
    for (let fold = 0; fold < folds; fold++) {
      const train = examples.filter((example) => foldOf(example.item.table_file, folds) !== fold);
      const weights = fitWeights(train, names.length, regularisation);
      examples.forEach((example, at) => {
        if (foldOf(example.item.table_file, folds) === fold) predictions[at] = choose(example, weights);
      });
    }
    const accuracy = predictions.filter((prediction) => prediction.correct).length / examples.length;
    console.log(`  L2 ${regularisation}: cross-validated accuracy ${(100 * accuracy).toFixed(1)} %`);
    if (!best || accuracy > best.accuracy) best = { regularisation, accuracy, predictions };
  }
  const weights = fitWeights(examples, names.length, best.regularisation);
  const calibration = fitCalibration(best.predictions);
  console.log("cross-validated predictions, calibrated: score threshold, answered, right, precision, gold in answer of all questions");
  const calibrated = best.predictions.map((prediction) => {
    const [logit, probability] = calibrationInputs(prediction);
    const z = calibration.score * logit + calibration.probability * probability + calibration.intercept;
    return { ...prediction, score: prediction.answered ? 1 / (1 + Math.exp(-z)) : -1 };
  });
  const atThresholds = {};
  for (const threshold of thresholds) {
    const kept = calibrated.filter((prediction) => prediction.score >= threshold);
    const right = kept.filter((prediction) => prediction.correct).length;
    atThresholds[threshold.toFixed(1)] = { answered: kept.length, right };
    const precision = kept.length === 0 ? "  -" : ((100 * right) / kept.length).toFixed(0).padStart(3);
    console.log(
      `  >= ${threshold.toFixed(1)}  ${String(kept.length).padStart(4)}  ${String(right).padStart(4)}  ${precision} %  ${((100 * right) / examples.length).toFixed(1)} %`,
    );
  }
  const fitted = examples.map((example) => choose(example, weights));
  const tuningAccuracy = fitted.filter((prediction) => prediction.correct).length / examples.length;
  const output = {
    description:
      "Weights of the log-linear model over table-question plans (table-features.ts) and the calibration of the chosen answer's score (a logistic regression on its linear score and probability, fitted on cross-validated predictions). " +
      "Fitted by `node scripts/calibration/table-operations-eval.mjs --fit` on the tuning half of wikitablequestions-150 only " +
      "(the 75 tables whose table_file sorts first); do not edit by hand.",
    data: `wikitablequestions-150 tuning half: ${items.length} questions, ${candidateCount} candidate plans`,
    regularisation: best.regularisation,
    figures: {
      crossValidatedAccuracy: Number(best.accuracy.toFixed(4)),
      tuningAccuracy: Number(tuningAccuracy.toFixed(4)),
      oracle: Number((oracle / items.length).toFixed(4)),
      crossValidatedAtScoreThresholds: atThresholds,
      folds,
    },
    calibration: Object.fromEntries(Object.entries(calibration).map(([name, value]) => [name, Number(value.toFixed(4))])),
    weights: Object.fromEntries(
      names
        .map((name, index) => [name, Number(weights[index].toFixed(4))])
        .filter(([, weight]) => weight !== 0)
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
  };
  writeFileSync(modelPath, `${JSON.stringify(output, null, 2)}\n`);
  console.log(
    `L2 ${best.regularisation}; cross-validated ${(100 * best.accuracy).toFixed(1)} %, fitted ${(100 * tuningAccuracy).toFixed(1)} %; calibration ${JSON.stringify(calibration)}`,
  );
  console.log(`wrote ${modelPath}`);
}

function evaluate(module, { questions, tuning, tables }) {
  const { normalizeAnswer } = module;
  const split = argv.split;
  if (split !== "tuning" && split !== "report") throw new Error(`--split must be tuning or report, not ${split}`);
  const items = questions.filter((question) => tuning.has(question.table_file) === (split === "tuning"));
  const started = Date.now();
  const outcomes = items.map((item) => {
    const answer = module.answerFromTable(item.question, tables.get(item.table_file));
    const correct = answer ? goldInAnswer(answer.text, item.answers, normalizeAnswer) : false;
    return { item, answer, correct };
  });
  const seconds = (Date.now() - started) / 1000;
  const correct = outcomes.filter((outcome) => outcome.correct).length;
  const answered = outcomes.filter((outcome) => outcome.answer).length;
  console.log(
    `${split} half: ${items.length} questions over ${new Set(items.map((item) => item.table_file)).size} tables (${seconds.toFixed(1)} s)`,
  );
  console.log(`gold in answer: ${correct}/${items.length} = ${((100 * correct) / items.length).toFixed(1)} % (answered ${answered})`);
  const byOperation = new Map();
  for (const outcome of outcomes) {
    const operation = outcome.answer?.operation ?? "(none)";
    const entry = byOperation.get(operation) ?? { count: 0, correct: 0 };
    entry.count++;
    entry.correct += outcome.correct ? 1 : 0;
    byOperation.set(operation, entry);
  }
  console.log("\nper operation chosen: answers, right, precision");
  for (const [operation, { count, correct: right }] of [...byOperation.entries()].sort((a, b) => b[1].count - a[1].count)) {
    console.log(
      `  ${operation.padEnd(11)} ${String(count).padStart(4)} ${String(right).padStart(4)}  ${((100 * right) / count).toFixed(0).padStart(3)} %`,
    );
  }
  console.log("\nscore threshold: answered (coverage), right, precision, gold in answer of all questions");
  for (const threshold of thresholds) {
    const kept = outcomes.filter((outcome) => outcome.answer && outcome.answer.score >= threshold);
    const right = kept.filter((outcome) => outcome.correct).length;
    console.log(
      `  >= ${threshold.toFixed(1)}  ${String(kept.length).padStart(4)} (${((100 * kept.length) / items.length).toFixed(0).padStart(3)} %)  ${String(right).padStart(4)}  ${kept.length === 0 ? "  -" : ((100 * right) / kept.length).toFixed(0).padStart(3)} %  ${((100 * right) / items.length).toFixed(1)} %`,
    );
  }
  const shown = argv.verbose ? outcomes : outcomes.filter((outcome) => !outcome.correct).slice(0, Number(argv.errors));
  for (const { item, answer, correct: right } of shown) {
    console.log(`\n${right ? "OK " : "BAD"} ${item.question} => gold ${JSON.stringify(item.answers)} [${item.table_file}]`);
    console.log(
      answer
        ? `    ${answer.operation} ${JSON.stringify(answer.text)} score ${answer.score.toFixed(2)}: ${answer.explanation}`
        : "    (no answer)",
    );
  }
}

const module = await loadModule();
const data = loadQuestions();
if (argv.fit) await fitModel(module, data);
else evaluate(module, data);
