/**
 * The record field that the evidence ranking matched to a question, shown to a chat model beside
 * the sources: small models read a row of twenty `key: value` fields poorly (asked "How many
 * fatalities did Delta / Northwest have in 2000–2014?", Qwen2.5-Coder-1.5B answered with
 * `fatal_accidents_85_99` of the right row), while `rankEvidence` reads field names by their words,
 * prefixes, related forms and abbreviated years. Pointing the reader at the passage that holds the
 * answer is evidence highlighting, the extractive step of extract-then-generate pipelines
 * (Xu, Shi and Choi, 2024, "RECOMP: Improving Retrieval-Augmented LMs with Compression and
 * Selective Augmentation", ICLR: an extractive compressor selects the sentences given to the
 * reader); here one field is selected and the sources stay whole, so the model can still disagree.
 */
import type { AnswerContext } from "./build-context.js";
import { formatCitation } from "./citations.js";
import type { Evidence } from "./evidence.js";

/**
 * The best unit of `evidence` as one line, `<entity>: <field> = <value> [Source: doc_n]` (the entity
 * is the record's name, else the row's cell that names it as `<field> = <value>`), when it
 * is a record's or table row's cell whose field the question names (`EvidenceUnit.fieldNamed`),
 * whose row's entity the question names (another cell of the row, `EvidenceUnit.subject`), and
 * which holds an attribute the question asks for (not `unnamedField`); undefined otherwise
 * (prose, commands, or a cell the question does not pick out by both its row and its field), and
 * for a key outside `context`.
 *
 * @example
 * matchedField(evidence, context); // "airline = Delta / Northwest*: fatalities_00_14 = 51 [Source: doc_1]"
 */
export function matchedField(evidence: Evidence, context: AnswerContext): string | undefined {
  const [best] = evidence.units;
  if (best?.kind !== "cell" || !best.cell || !best.row || !best.fieldNamed || best.unnamedField || !best.subject) return undefined;
  if (!Object.hasOwn(context.sources, best.entry.key)) return undefined;
  const entity = best.row.name ?? `${best.subject.key} = ${best.subject.value}`;
  return `${entity}: ${best.cell.key} = ${best.cell.value} ${formatCitation([best.entry.key])}`;
}
