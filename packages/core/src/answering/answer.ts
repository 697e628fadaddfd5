/**
 * The Answer object and Source map of the spec ("Answer", "Source").
 */
import { z } from "zod";

/** Schema of the spec's Answer object. */
export const answerSchema = z.object({
  /** Main answer summary. */
  callout_answer: z.string(),
  /** Points that support the answer. */
  positive_list: z.array(z.string()),
  /** Caveats and limitations. */
  negative_list: z.array(z.string()),
  /** Additional relevant information. */
  info_list: z.array(z.string()),
  /** Key terms. */
  keywords: z.array(z.string()),
});

/** The spec's Answer object. */
export type Answer = z.infer<typeof answerSchema>;

/** A cited source (spec "Source"), the value of the `sources` map keyed `doc_<n>`. */
export interface Source {
  /** Document title. */
  title: string;
  /** Source system (`metadata.source`). */
  source: string;
  /** The retrieved chunk's text. */
  page_content: string;
  /**
   * The chunk's metadata, including `filename` (the file the document came from, or its id when it
   * has none), `owner_id`, `acl`, `doc_id`, `chunk_id` and `score`.
   */
  metadata: Record<string, unknown>;
}

/** The fixed sentence of the empty-context answer (spec "Empty-context response"). */
export const noInformationSentence = "No information could be found in the provided sources to answer this question.";

/** The spec's empty-context answer: the fixed sentence and four empty lists. */
export function emptyContextAnswer(): Answer {
  return { callout_answer: noInformationSentence, positive_list: [], negative_list: [], info_list: [], keywords: [] };
}

/** A cited statement that its cited source does not support. */
export interface UnsupportedCitation {
  /** The source key cited (`doc_n`). */
  key: string;
  /** The statement, without its marker. */
  text: string;
  /** Share of the statement's terms found in the source, in [0, 1]. */
  overlap: number;
}
