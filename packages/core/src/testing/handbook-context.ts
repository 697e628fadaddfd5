/**
 * A small answer context for the tests of the model layer: two retrieved chunks of an employee
 * handbook under the source keys `doc_1` and `doc_2`. Test-only; not exported by the package.
 */
import { type AnswerContext, buildContext } from "../answering/build-context.js";
import type { ChunkRecord } from "../stores/chunk-record.js";

/** The question the context answers. */
export const handbookQuestion = "How many vacation days do employees get?";

/** A document's only chunk, readable by everyone of organisation `org-1`. */
export function testChunk(docId: string, title: string, text: string): ChunkRecord {
  return {
    id: `${docId}::0`,
    docId,
    chunkIndex: 0,
    text,
    title,
    source: "handbook",
    ownerId: "hr@example.org",
    acl: "|user:_all_|",
    metadata: { org_id: "org-1", doc_id: docId, chunk_index: 0 },
    contentHash: `hash-${docId}`,
  };
}

/** Builds the two-chunk handbook context. */
export function handbookContext(): AnswerContext {
  const chunk = testChunk;
  return buildContext(
    [
      {
        chunk: chunk(
          "vacation",
          "Vacation policy",
          "Employees receive 25 vacation days per year. Unused vacation days expire on March 31 of the following year.",
        ),
        score: 0.9,
      },
      {
        chunk: chunk("travel", "Travel policy", "Travel expenses must be submitted within 30 days of the trip, with receipts."),
        score: 0.4,
      },
    ],
    { maxDocChars: 4000, maxContextChars: 16000 },
  );
}
