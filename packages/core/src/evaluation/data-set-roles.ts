/**
 * Which shared evaluation sets are for tuning and which for reporting, so every `docqa eval`
 * report says which kind of figure it is. Source: `../shared/data/README.md` (the calibration
 * and test folders, the halves of `wikitablequestions-150`) and `docs/answering.md` (the sets the
 * abstention thresholds and the answer selection were chosen on).
 */

/**
 * - `tuning`: settings may be chosen on it (a calibration split);
 * - `reporting`: report only, never tune on it;
 * - `earlier-tuning`: settings were chosen on it in earlier work, so its figures are optimistic;
 * - `mixed`: both halves of a set whose halves differ (no `--split`);
 * - `unlisted`: not in the table.
 */
export type DataSetRole = "tuning" | "reporting" | "earlier-tuning" | "mixed" | "unlisted";

/** The role of a set (or of one split of it) and why. */
export interface DataSetRoleEntry {
  role: DataSetRole;
  note: string;
}

/** The sets the abstention thresholds and the answer selection were chosen on (docs/answering.md). */
const earlierTuning: DataSetRoleEntry = {
  role: "earlier-tuning",
  note: "used in earlier tuning (abstention thresholds, answer selection): its figures are optimistic",
};

/**
 * The table, by the set's folder or file name; a set with halves lists each split (`all` is the
 * whole set). Sets with one split list `all` only.
 */
export const dataSetRoles: Readonly<Record<string, Readonly<Record<string, DataSetRoleEntry>>>> = {
  "squad-v2-dev-calibration": {
    all: { role: "tuning", note: "SQuAD 2.0 dev, 15 articles: the calibration split (tune thresholds, prompts, abstention here)" },
  },
  "squad-v2-dev-test": {
    all: { role: "reporting", note: "SQuAD 2.0 dev, 15 other articles: FOR REPORTING ONLY, do not tune on it" },
  },
  "wikitablequestions-150": {
    calibration: { role: "tuning", note: "the 75 tables whose file name sorts first (to tables/203-740.csv): tune here" },
    report: { role: "reporting", note: "the other 75 tables (from tables/203-772.csv): FOR REPORTING ONLY, do not tune on it" },
    all: { role: "mixed", note: "both halves (calibration: tuning, report: reporting); choose one with --split" },
  },
  "xquad-en": { all: earlierTuning },
  "squad-v2-dev-2articles": { all: earlierTuning },
  "example-corpus.jsonl": { all: earlierTuning },
  "shared-documents.jsonl": {
    all: { role: "earlier-tuning", note: "written after the thresholds were chosen, then used to fix the answer selection: optimistic" },
  },
  "out-of-corpus-general.jsonl": { all: earlierTuning },
  "out-of-corpus-workplace.jsonl": { all: earlierTuning },
  "shared-documents-heldout.jsonl": {
    all: {
      role: "reporting",
      note: "held out: 20 questions over ../shared/data/documents and 10 from outside it, written before any run (2026-11-27); since 2026-11-28 its failures were read to find failure kinds (fixes kept only when general): somewhat optimistic",
    },
  },
  "shared-documents-blind.jsonl": {
    all: {
      role: "reporting",
      note: "24 questions over ../shared/data/documents (six formats) and 10 it cannot answer, written on 2026-11-28 by someone who saw neither docqa's code nor its other sets; read once to check one abstention rule",
    },
  },
  "shared-documents-blind2.jsonl": {
    all: {
      role: "reporting",
      note: "20 questions over ../shared/data/documents (six formats) and 10 it cannot answer, written on 2026-11-29 by a second writer who saw neither docqa's code nor its other sets; its failures were read once (the entity check of decide-answerable came from one)",
    },
  },
  "new-documents-blind.jsonl": {
    all: {
      role: "reporting",
      note: "26 questions over 38 new real files of six formats (none in ../shared/data/documents; assemble them with scripts/evaluation/new-documents.mjs) and 12 they cannot answer, written on 2026-11-29 by a third writer who saw neither docqa's code nor its other sets; its failures were read once (the PDF word breaks, damaged UTF-8 and the table answer's type check came from them)",
    },
  },
  "out-of-corpus-heldout.jsonl": {
    all: { role: "reporting", note: "held out: never used to choose a setting" },
  },
};

/**
 * The role of the set at `path` (a folder or a question file; its last path component is looked
 * up) for `split` (default `all`).
 */
export function dataSetRole(path: string, split = "all"): DataSetRoleEntry {
  const name =
    path
      .replace(/[\\/]+$/, "")
      .split(/[\\/]/)
      .pop() ?? "";
  const entry = dataSetRoles[name]?.[split];
  return entry ?? { role: "unlisted", note: `${name} is not in the table of tuning and reporting sets (evaluation/data-set-roles.ts)` };
}
