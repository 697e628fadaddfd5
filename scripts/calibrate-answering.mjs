#!/usr/bin/env node
/**
 * Fits the answering models (the unit scorer, the relevance and answerability models) on the
 * calibration splits and writes `packages/core/src/answering/fitted-weights.json`, with the figures
 * they reach on the calibration and report splits. One command:
 *
 *   npm run calibrate:answering                 # BM25 only and every embedding model in ../shared/data/models
 *   npm run calibrate:answering -- --only lexical
 *   npm run calibrate:answering -- --reuse      # refit from the feature dumps of the last run
 *
 * Splits (../shared/data/qa; see docs/answering.md):
 *   tuning:    squad-v2-dev-calibration (all 4,371 questions; 1,500 sampled out of corpus),
 *              wikitablequestions-150, the 75 tables that sort first (297 questions), and lookup
 *              questions generated from those tables (dump-features.mjs, lookupQuestions)
 *   reporting: squad-v2-dev-test (all 4,597; 1,500 sampled out of corpus), the other 75 tables
 *              (303 questions) and lookups generated from them, and the same lookups about an
 *              attribute their table lacks (wtq-attributes-report: unanswerable, the abstention
 *              recall there). Report dumps are never given to the fit; their figures are printed.
 *   near topic (figures only, on both SQuAD splits): the out-of-corpus sample's questions asked
 *              with only their own paragraph removed (dump-features.mjs --condition near), so the
 *              context is about their subject and does not answer them: the share declined.
 *
 * Steps: builds the packages if needed; dumps features with scripts/calibration/dump-features.mjs
 * (docqa's own pipeline) into .calibration/<configuration>/; fits with
 * scripts/calibration/fit_answering.py (scikit-learn, in a virtual environment under .tools/
 * installed from PyPI at pinned versions); writes the JSON file that answer-model.ts imports.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    only: { type: "string" },
    reuse: { type: "boolean", default: false },
    "ooc-sample": { type: "string", default: "1500" },
  },
});

/** scikit-learn, numpy and SciPy versions of the fit (PyPI; SciPy solves the unit scorer's conditional logit). */
const pythonPackages = ["scikit-learn==1.7.2", "numpy==2.3.4", "scipy==1.17.1"];
const venv = join(root, ".tools/calibration-venv");
const python = join(venv, "bin/python");
const modelsRoot = resolve(root, "../shared/data/models");

/** The configurations: BM25 only, and one per embedding model family found on disk. */
const configurations = [
  { name: "lexical", family: undefined, env: { EMBED_PROVIDER: "none" } },
  {
    name: "bge",
    family: "bge-(small|base|large)-en",
    env: { EMBED_MODEL_PATH: modelsRoot, EMBED_MODEL_NAME: "Xenova/bge-small-en-v1.5", EMBED_DIMENSION: "384" },
    needs: join(modelsRoot, "Xenova/bge-small-en-v1.5"),
  },
  {
    name: "minilm",
    family: "all-MiniLM",
    env: { EMBED_MODEL_PATH: modelsRoot, EMBED_MODEL_NAME: "Xenova/all-MiniLM-L6-v2", EMBED_DIMENSION: "384" },
    needs: join(modelsRoot, "Xenova/all-MiniLM-L6-v2"),
  },
].filter((configuration) => (values.only ? configuration.name === values.only : true));

const run = (command, args, env = {}) =>
  execFileSync(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });

if (!existsSync(python)) {
  run("python3", ["-m", "venv", venv]);
  run(python, ["-m", "pip", "install", "--quiet", ...pythonPackages]);
}
if (!existsSync(join(root, "packages/core/dist/index.js"))) run("npm", ["run", "build", "--silent"]);

const dumps = [
  { set: "squad-calibration", condition: "in", role: "in" },
  { set: "squad-calibration", condition: "ooc", role: "ooc", sample: values["ooc-sample"] },
  { set: "wtq-calibration", condition: "in", role: "in" },
  { set: "wtq-calibration", condition: "ooc", role: "ooc" },
  { set: "wtq-lookups-calibration", condition: "in", role: "in" },
  { set: "wtq-lookups-calibration", condition: "ooc", role: "ooc" },
  { set: "squad-test", condition: "in", role: "report-in" },
  { set: "squad-test", condition: "ooc", role: "report-ooc", sample: values["ooc-sample"] },
  { set: "squad-calibration", condition: "near", role: "near", sample: values["ooc-sample"] },
  { set: "squad-test", condition: "near", role: "report-near", sample: values["ooc-sample"] },
  { set: "wtq-report", condition: "in", role: "report-in" },
  { set: "wtq-report", condition: "ooc", role: "report-ooc" },
  { set: "wtq-lookups-report", condition: "in", role: "report-in" },
  { set: "wtq-lookups-report", condition: "ooc", role: "report-ooc" },
  { set: "wtq-attributes-report", condition: "in", role: "report-in" },
];

const fitted = {};
for (const configuration of configurations) {
  if (configuration.needs && !existsSync(configuration.needs)) {
    process.stderr.write(`calibrate-answering: ${configuration.name}: ${configuration.needs} is missing; skipped\n`);
    continue;
  }
  const folder = join(root, ".calibration", configuration.name);
  mkdirSync(folder, { recursive: true });
  const files = { in: [], ooc: [], near: [], "report-in": [], "report-ooc": [], "report-near": [] };
  for (const dump of dumps) {
    const out = join(folder, `${dump.set}-${dump.condition}.jsonl`);
    files[dump.role].push(out);
    if (values.reuse && existsSync(out)) continue;
    const args = ["scripts/calibration/dump-features.mjs", "--set", dump.set, "--condition", dump.condition, "--out", out];
    if (dump.sample) args.push("--sample", dump.sample);
    run(process.execPath, args, configuration.env);
  }
  const out = join(folder, "fitted.json");
  run(python, [
    "scripts/calibration/fit_answering.py",
    "--name",
    configuration.name,
    "--out",
    out,
    "--in",
    ...files.in,
    "--ooc",
    ...files.ooc,
    "--report-in",
    ...files["report-in"],
    "--report-ooc",
    ...files["report-ooc"],
    "--near",
    ...files.near,
    "--report-near",
    ...files["report-near"],
  ]);
  fitted[configuration.name] = { ...JSON.parse(readFileSync(out, "utf8")), family: configuration.family };
}

const target = join(root, "packages/core/src/answering/fitted-weights.json");
const current = existsSync(target) ? JSON.parse(readFileSync(target, "utf8")) : { lexical: undefined, dense: [] };
const model = (value) => ({ name: value.name, intercept: value.intercept, weights: value.weights, threshold: value.threshold });
const configurationOf = (value) => ({
  scorer: model(value.scorer),
  relevance: model(value.relevance),
  answerability: model(value.answerability),
  figures: { calibration: value.calibration.figures, report: value.report ?? {} },
});
const date = new Date().toISOString().slice(0, 10);
const next = {
  source:
    `npm run calibrate:answering (scripts/calibrate-answering.mjs), last run ${date}: logistic regression ` +
    `(scikit-learn ${pythonPackages[0].split("==")[1]}, L2, C = 1; the unit scorer a conditional logit over each question's units, ` +
    "SciPy L-BFGS-B, then Platt-scaled) on the calibration splits only (SQuAD 2.0 dev calibration; " +
    "WikiTableQuestions-150 tuning half; out-of-corpus variants of both); thresholds by the rules in " +
    "scripts/calibration/fit_answering.py. figures.report: squad-test and wtq-report, never fitted on. " +
    "goldInCallout: the best unit holds a gold answer, of answerable questions, after abstention. Do not edit by hand.",
  lexical: fitted.lexical ? { ...configurationOf(fitted.lexical), fittedOn: date } : current.lexical,
  dense: ["bge", "minilm"]
    .map((name) =>
      fitted[name]
        ? { family: name, pattern: fitted[name].family, models: { ...configurationOf(fitted[name]), fittedOn: date } }
        : current.dense.find((entry) => entry.family === name),
    )
    .filter((entry) => entry !== undefined),
};
writeFileSync(target, `${JSON.stringify(next, null, 2)}\n`);
process.stderr.write(`calibrate-answering: wrote ${target}\n`);
