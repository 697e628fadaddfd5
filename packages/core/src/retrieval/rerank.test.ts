import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Document } from "@langchain/core/documents";
import { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import { describe, expect, it } from "vitest";
import { type DocqaConfigOverrides, resolveConfig } from "../config/load-config.js";
import { createRagService } from "../service/create-rag-service.js";
import { textChunk } from "../testing/text-chunk.js";
import { createCompressorReranker } from "./compressor-reranker.js";
import { CrossEncoderReranker } from "./cross-encoder-reranker.js";
import type { Reranker } from "./reranker.js";

const principal = { userName: "ann@example.org", roles: [], groups: [] };
const documents = Object.fromEntries(
  ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"].map((name) => [
    name,
    { title: name, content: `The ${name} report covers shared budget topics.`, metadata: { acl: "|user:_all_|" } },
  ]),
);

function service(reranker: Reranker | undefined, overrides: DocqaConfigOverrides = {}) {
  const warnings: string[] = [];
  const ignore = () => {};
  const created = createRagService({
    config: resolveConfig(overrides, {
      stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-rerank-")) },
      embeddings: { provider: "none" },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
      retrieval: { useReranker: true, rerankTopK: 2, rerankerScoreThreshold: 0.5, rerankDepth: 4 },
    }),
    ...(reranker ? { reranker } : {}),
    logger: { debug: ignore, info: ignore, error: ignore, warn: (message: string) => warnings.push(message) },
  });
  return { service: created, warnings };
}

describe("reranking", () => {
  it("scores only RERANK_DEPTH candidates, keeps RERANK_TOP_K above the threshold, in reranker order", async () => {
    const scored: string[][] = [];
    const reranker: Reranker = {
      name: "scripted",
      async score(_query, chunks) {
        scored.push(chunks.map((chunk) => chunk.docId));
        return chunks.map((chunk) => ({ alpha: 0.2, bravo: 0.9, charlie: 0.7, delta: 0.6, echo: 0.99, foxtrot: 0.95 })[chunk.docId] ?? 0);
      },
    };
    const { service: rerankedService } = service(reranker);
    await rerankedService.upsert({ orgId: "org", principal, uploader: principal.userName, documents });
    const result = await rerankedService.search({ orgId: "org", principal, query: "shared budget report", limit: 5 });
    expect(scored).toHaveLength(1);
    expect(scored[0]).toHaveLength(4);
    const expected = (scored[0] as string[])
      .map((docId) => ({
        docId,
        score: ({ alpha: 0.2, bravo: 0.9, charlie: 0.7, delta: 0.6, echo: 0.99, foxtrot: 0.95 } as Record<string, number>)[docId] as number,
      }))
      .filter((entry) => entry.score >= 0.5)
      .sort((left, right) => right.score - left.score)
      .slice(0, 2)
      .map((entry) => entry.docId);
    expect(result.results.map((entry) => entry.chunk.docId)).toEqual(expected);
    expect(result.results[0]?.rerankScore).toBeGreaterThanOrEqual(0.5);
    const unranked = await rerankedService.search({ orgId: "org", principal, query: "shared budget report", limit: 5, rerank: false });
    expect(unranked.results).toHaveLength(5);
    await rerankedService.close();
  });

  it("falls back to no reranking, with one warning, when the cross-encoder cannot be loaded", async () => {
    const { service: fallback, warnings } = service(undefined, {
      retrieval: { rerankerModelName: "Xenova/absent-reranker", rerankerModelPath: mkdtempSync(join(tmpdir(), "docqa-models-")) },
      embeddings: { allowRemote: false },
    });
    await fallback.upsert({ orgId: "org", principal, uploader: principal.userName, documents });
    const result = await fallback.search({ orgId: "org", principal, query: "budget", limit: 3 });
    expect(result.results).toHaveLength(3);
    // Six documents mention the budget; three are returned.
    expect(result.total).toBe(6);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^reranker unavailable; results are not reranked: cannot load reranker model Xenova\/absent-reranker/);
    expect((await fallback.health()).reranker).toBeNull();
    await fallback.close();
  });

  it("reports a missing cross-encoder as model_unavailable", async () => {
    const reranker = new CrossEncoderReranker({
      modelName: "Xenova/absent-reranker",
      localModelPath: mkdtempSync(join(tmpdir(), "docqa-models-")),
    });
    await expect(reranker.load()).rejects.toMatchObject({ code: "model_unavailable" });
  });

  it("adapts a LangChain document compressor, scoring dropped documents -Infinity", async () => {
    class KeepLongest extends BaseDocumentCompressor {
      async compressDocuments(documents: Document[]): Promise<Document[]> {
        return documents
          .filter((document) => document.pageContent.length > 10)
          .map(
            (document) =>
              new Document({
                pageContent: document.pageContent,
                metadata: { ...document.metadata, relevanceScore: document.pageContent.length / 100 },
              }),
          );
      }
    }
    const reranker = createCompressorReranker(new KeepLongest(), "longest");
    expect(await reranker.score("q", [textChunk("short"), textChunk("a much longer passage")])).toEqual([Number.NEGATIVE_INFINITY, 0.21]);
  });
});
