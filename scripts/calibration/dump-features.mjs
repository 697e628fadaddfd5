#!/usr/bin/env node
/**
 * Dumps the answering features of a question set for `scripts/calibrate-answering.mjs`: every
 * answer unit of every question's context (its features, whether it holds a gold answer) and the
 * question-level signals, as JSON Lines. It runs docqa's own predict pipeline (built packages) and
 * captures the evidence after the `decide-answerable` stage.
 *
 * Usage:
 *   node scripts/calibration/dump-features.mjs --set <name> --condition in|near|ooc --out file.jsonl [--sample N] [--seed S]
 *
 * Sets (../shared/data/qa):
 *   squad-calibration   squad-v2-dev-calibration: all contexts in one organisation (tuning split)
 *   squad-test          squad-v2-dev-test (report split; never used for fitting)
 *   wtq-calibration     wikitablequestions-150, the 75 tables that sort first (tuning half)
 *   wtq-report          wikitablequestions-150, the other 75 (report half)
 *   wtq-lookups-calibration, wtq-lookups-report
 *                       lookup questions generated from the tables of each half (see lookupQuestions)
 *   wtq-attributes-report
 *                       the report half's generated lookups with an attribute the table lacks
 *                       (report only: unanswerable questions about an entity the table holds)
 * Conditions:
 *   in    the question's own document is in the index
 *   near  near the topic (SQuAD only): the question's own paragraph removed, the rest of its
 *         article left in the index, so the context is about the question's subject but does not
 *         answer it (the paragraph is deleted before the question and upserted again after). An
 *         answerable question whose gold answer another paragraph of its article also holds is left
 *         out: it is still answerable there.
 *   ooc   out of corpus: SQuAD without the question's article; WTQ against another table (the
 *         table of the question `--ooc-shift` places later in the sorted list, default 37);
 *         generated lookups about another table's entity, against the question's table
 * The embedding configuration comes from the environment, as for `docqa` (`EMBED_PROVIDER=none`
 * for BM25 only; `EMBED_MODEL_PATH`, `EMBED_MODEL_NAME`, `EMBED_DIMENSION` for a model).
 */
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRagService, loadConfig, silentLogger } from "@docqa/core";
import { contradiction, substitution, unitFeatureNames } from "@docqa/core/answering";
import { normalizeAnswer } from "@docqa/core/evaluation";
import { insertAfter } from "@docqa/core/pipeline";
import { mulberry32 as prng } from "@docqa/core/testing";
import Papa from "papaparse";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const shared = resolve(root, "../shared/data/qa");
const { values } = parseArgs({
  options: {
    set: { type: "string" },
    condition: { type: "string", default: "in" },
    out: { type: "string" },
    sample: { type: "string" },
    seed: { type: "string", default: "20261127" },
    "ooc-shift": { type: "string", default: "37" },
  },
});
if (!values.set || !values.out) throw new Error("--set and --out are required");

function sample(items, count, seed) {
  if (!count || count >= items.length) return items;
  const random = prng(seed);
  const shuffled = [...items];
  for (let index = shuffled.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [shuffled[index], shuffled[other]] = [shuffled[other], shuffled[index]];
  }
  return shuffled.slice(0, count);
}
const readJsonl = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

const dataDir = mkdtempSync(join(tmpdir(), "docqa-calibration-"));
const captured = { evidence: undefined, answerability: undefined, table: undefined };
const capture = {
  name: "capture-evidence",
  async run(state) {
    captured.evidence = state.evidence;
    captured.answerability = state.answerability;
    captured.table = state.tableAnswer;
  },
};
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, RAG_LLM_PROVIDER: "extractive", ABSTENTION_CHECKS: "off" });
const service = createRagService({ config, logger: silentLogger, stages: { predict: insertAfter("decide-answerable", capture) } });
const principal = { userName: "calibration@docqa.invalid", roles: [], groups: [] };
const shared_ = { acl: "|user:_all_|" };

async function upsertContexts(orgId, contexts) {
  for (let start = 0; start < contexts.length; start += 200) {
    const documents = Object.fromEntries(
      contexts
        .slice(start, start + 200)
        .map((context) => [context._id, { title: context.title, content: context.text, metadata: shared_ }]),
    );
    await service.upsert({ orgId, principal, uploader: principal.userName, documents });
  }
}

/** A WikiTableQuestions table (backslash-escaped quotes) as a standard CSV file's bytes. */
function tableCsv(path) {
  const parsed = Papa.parse(readFileSync(path, "utf8"), { escapeChar: "\\", skipEmptyLines: true });
  return new TextEncoder().encode(Papa.unparse(parsed.data));
}

/** A WikiTableQuestions table's rows (header first), parsed with its backslash escapes. */
function tableRows(tableFile) {
  return Papa.parse(readFileSync(join(shared, "wikitablequestions-150", tableFile), "utf8"), { escapeChar: "\\", skipEmptyLines: true })
    .data;
}

/**
 * Lookup questions generated from tables (the wtq-lookups sets): for up to LOOKUP_ROWS rows of
 * each table, the value of one other column of the row, asked about the row's entity (the first
 * column whose values are distinct words, not numbers) with one of LOOKUP_TEMPLATES, the column
 * name written in words. Out of corpus (--condition ooc): the same question about an entity of
 * another table of the half, asked against this table. Seeded: the same seed gives the same set.
 * WikiTableQuestions' own questions are mostly operations over rows (superlatives, counts), which
 * a cell does not answer; these give the cell scorer lookups, the kind of question a cell does answer.
 */
const LOOKUP_ROWS = 4;
const LOOKUP_TEMPLATES = [
  (column, entity) => `What is the ${column} of ${entity}?`,
  (column, entity) => `What was the ${column} for ${entity}?`,
  (column, entity) => `For ${entity}, what is the ${column}?`,
  (column, entity) => `Which ${column} does ${entity} have?`,
  (column, entity) => `What ${column} is listed for ${entity}?`,
  (column, entity) => `Tell me the ${column} of ${entity}.`,
];
function lookupQuestions(half, seed) {
  const random = prng(seed + 1);
  const words = (name) =>
    name
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/[_.\-/]+/g, " ")
      .trim()
      .toLowerCase();
  const entities = [];
  const attributes = [];
  const headers = new Map();
  const questions = [];
  for (const tableFile of half) {
    const [header, ...rows] = tableRows(tableFile);
    if (!header || rows.length < 2) continue;
    headers.set(tableFile, header.map(words));
    for (const name of header) if (/[a-z]{3}/i.test(name)) attributes.push({ tableFile, attribute: words(name) });
    const entityColumn = header.findIndex((_, column) => {
      const values = rows.map((row) => (row[column] ?? "").trim());
      return values.every((value) => /[a-z]{3}/i.test(value)) && new Set(values).size === values.length;
    });
    if (entityColumn < 0) continue;
    for (const row of rows) entities.push({ tableFile, entity: row[entityColumn].trim() });
    const chosen = sample(rows, LOOKUP_ROWS, Math.floor(random() * 2 ** 31));
    chosen.forEach((row, index) => {
      const columns = header
        .map((_, column) => column)
        .filter((column) => column !== entityColumn && (row[column] ?? "").trim() !== "" && words(header[column]) !== "");
      if (columns.length === 0) return;
      const column = columns[Math.floor(random() * columns.length)];
      const template = LOOKUP_TEMPLATES[Math.floor(random() * LOOKUP_TEMPLATES.length)];
      questions.push({
        _id: `${tableFile}#${index}`,
        table_file: tableFile,
        entity: row[entityColumn].trim(),
        template,
        column: words(header[column]),
        question: template(words(header[column]), row[entityColumn].trim()),
        answers: [row[column].trim()],
      });
    });
  }
  // Out of corpus: the entity of a row of another table (the attribute is in the table, the entity
  // is not). Unanswerable in corpus: an attribute of another table about this row's entity, whose
  // words are in no column name of this table (the entity is in the table, the attribute is not:
  // "What is the population of <an airline>?").
  const wordsOf = (text) => new Set(text.split(" ").filter((word) => word.length > 2));
  // A generator of its own, so that the other sets stay as they were before this one was added.
  const attributeRandom = prng(seed + 2);
  for (const question of questions) {
    const others = entities.filter((entity) => entity.tableFile !== question.table_file);
    const other = others[Math.floor(random() * others.length)];
    question.oocQuestion = question.template(question.column, other.entity);
    const own = new Set((headers.get(question.table_file) ?? []).flatMap((name) => [...wordsOf(name)]));
    const foreign = attributes.filter(
      (candidate) => candidate.tableFile !== question.table_file && ![...wordsOf(candidate.attribute)].some((word) => own.has(word)),
    );
    const attribute = foreign[Math.floor(attributeRandom() * foreign.length)];
    if (attribute) question.unanswerableQuestion = question.template(attribute.attribute, question.entity);
  }
  return questions;
}

const ingestedTables = new Set();
async function ingestTable(tableFile) {
  const orgId = `wtq-${tableFile.replace(/[^a-z0-9]+/gi, "-")}`.toLowerCase();
  if (!ingestedTables.has(orgId)) {
    const bytes = tableCsv(join(shared, "wikitablequestions-150", tableFile));
    const name = tableFile.split("/").at(-1);
    await service.ingestFiles({ orgId, principal, files: [{ name, bytes }], metadata: shared_ });
    ingestedTables.add(orgId);
  }
  return orgId;
}

/** Whether `text` holds a gold answer: SQuAD normalisation, containment; for a list answer (WTQ) every item. */
function holds(text, answers, everyItem) {
  if (answers.length === 0) return false;
  const normalized = ` ${normalizeAnswer(text)} `;
  const found = (answer) => {
    const gold = normalizeAnswer(answer);
    return gold !== "" && normalized.includes(` ${gold} `);
  };
  return everyItem ? answers.every(found) : answers.some(found);
}

/** The text a unit's answer would quote: a cell's value, otherwise the unit's text. */
const answerText = (unit) => (unit.kind === "cell" && unit.cell ? unit.cell.value : unit.text);

function record(question, condition, answers, everyItem) {
  const evidence = captured.evidence;
  const units = (evidence?.units ?? []).map((unit) => {
    const statement = unit.kind === "sentence" && unit.features.coverage >= 0.5;
    return {
      kind: unit.kind,
      f: unitFeatureNames.map((name) => Number(unit.features[name].toFixed(5))),
      label: condition === "in" && holds(answerText(unit), answers, everyItem) ? 1 : 0,
      negated: unit.negated ? 1 : 0,
      echo: unit.echo ? 1 : 0,
      contradicted: statement && contradiction(question.question, unit.text) !== undefined ? 1 : 0,
      substituted: statement && substitution(question.question, unit.text, (text) => analyzer.analyze(text)) !== undefined ? 1 : 0,
      docId: unit.entry.chunk.docId,
      text: unit.text.slice(0, 200),
    };
  });
  return {
    id: question._id,
    set: values.set,
    condition,
    answerable: condition === "in" && answers.length > 0 ? 1 : 0,
    question: question.question,
    passageCoverage: evidence?.passageCoverage ?? 0,
    contextCoverage: evidence?.contextCoverage ?? 0,
    specificity: evidence?.passageSpecificity ?? 0,
    questionNegated: evidence?.questionNegated ? 1 : 0,
    denseUsed: evidence?.denseUsed ? 1 : 0,
    tableScore: captured.table?.answer.score ?? 0,
    tableExplained: captured.table?.answer.explained ?? 0,
    tableLabel: condition === "in" && captured.table !== undefined && holds(captured.table.answer.explanation, answers, everyItem) ? 1 : 0,
    features: unitFeatureNames,
    units,
  };
}

const { createEnglishAnalyzer } = await import("@docqa/core/retrieval");
const analyzer = createEnglishAnalyzer();
// Written under a temporary name and renamed once complete, so that a run that is killed leaves no
// partial dump for `calibrate:answering --reuse` to take for a whole one.
const finalOut = values.out;
values.out = `${finalOut}.partial`;
writeFileSync(values.out, "");
const started = performance.now();
let done = 0;
const ask = async (orgId, question) => {
  captured.evidence = undefined;
  captured.table = undefined;
  await service.predict({ orgId, principal, query: question.question, memory: false });
};
try {
  const seed = Number(values.seed);
  if (values.set.startsWith("squad")) {
    const folder = join(shared, values.set === "squad-calibration" ? "squad-v2-dev-calibration" : "squad-v2-dev-test");
    const contexts = readJsonl(join(folder, "contexts.jsonl"));
    const questions = sample(readJsonl(join(folder, "questions.jsonl")), Number(values.sample ?? 0), seed);
    const titleOf = new Map(contexts.map((context) => [context._id, context.title]));
    if (values.condition === "in") {
      await upsertContexts("squad", contexts);
      for (const question of questions) {
        await ask("squad", question);
        appendFileSync(values.out, `${JSON.stringify(record(question, "in", question.is_impossible ? [] : question.answers, false))}\n`);
        done++;
      }
    } else if (values.condition === "near") {
      await upsertContexts("squad", contexts);
      const byContext = new Map();
      for (const question of questions) {
        if (!byContext.has(question.context_id)) byContext.set(question.context_id, []);
        byContext.get(question.context_id).push(question);
      }
      for (const [contextId, asked] of byContext) {
        const own = contexts.find((context) => context._id === contextId);
        const rest = contexts.filter((context) => context.title === own.title && context._id !== contextId);
        const answeredElsewhere = (question) =>
          !question.is_impossible && rest.some((context) => holds(context.text, question.answers, false));
        const kept = asked.filter((question) => !answeredElsewhere(question));
        if (kept.length === 0) continue;
        await service.deleteDocuments({ orgId: "squad", principal }, [contextId]);
        for (const question of kept) {
          await ask("squad", question);
          appendFileSync(values.out, `${JSON.stringify(record(question, "near", [], false))}\n`);
          done++;
        }
        await upsertContexts("squad", [own]);
      }
    } else {
      const byArticle = new Map();
      for (const question of questions) {
        const article = titleOf.get(question.context_id);
        if (!byArticle.has(article)) byArticle.set(article, []);
        byArticle.get(article).push(question);
      }
      for (const [article, asked] of byArticle) {
        const orgId = `without-${article}`
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-")
          .slice(0, 60);
        await upsertContexts(
          orgId,
          contexts.filter((context) => context.title !== article),
        );
        for (const question of asked) {
          await ask(orgId, question);
          appendFileSync(values.out, `${JSON.stringify(record(question, "ooc", [], false))}\n`);
          done++;
        }
      }
    }
  } else {
    const folder = join(shared, "wikitablequestions-150");
    const all = readJsonl(join(folder, "questions.jsonl"));
    const tables = [...new Set(all.map((question) => question.table_file))].sort();
    const half = values.set.endsWith("calibration") ? tables.slice(0, 75) : tables.slice(75);
    const inHalf = new Set(half);
    const attributes = values.set.startsWith("wtq-attributes");
    const lookups = values.set.startsWith("wtq-lookups") || attributes;
    const questions = sample(
      lookups ? lookupQuestions(half, seed) : all.filter((question) => inHalf.has(question.table_file)),
      Number(values.sample ?? 0),
      seed,
    );
    const shift = Number(values["ooc-shift"]);
    for (const asked of questions) {
      // wtq-attributes: a generated lookup's entity with an attribute the table lacks, in corpus
      // (the entity's row is in the table) but unanswerable, as SQuAD 2.0's unanswerable questions are.
      const variants = !lookups
        ? [asked]
        : attributes
          ? asked.unanswerableQuestion
            ? [{ ...asked, _id: `${asked._id}~attribute`, question: asked.unanswerableQuestion, answers: [] }]
            : []
          : values.condition === "ooc"
            ? [{ ...asked, question: asked.oocQuestion }]
            : [asked];
      for (const question of variants) {
        const table =
          values.condition === "in" || lookups ? question.table_file : half[(half.indexOf(question.table_file) + shift) % half.length];
        const orgId = await ingestTable(table);
        await ask(orgId, question);
        appendFileSync(
          values.out,
          `${JSON.stringify(record(question, values.condition, values.condition === "in" ? question.answers : [], true))}\n`,
        );
        done++;
      }
    }
  }
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
renameSync(values.out, finalOut);
process.stderr.write(
  `${values.set} ${values.condition}: ${done} questions in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${finalOut}\n`,
);
