import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { type ChunkRecord, chunkId, type DocumentVersion } from "../stores/chunk-record.js";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import { buildRaptorNodes } from "./build-raptor-nodes.js";
import { clusterVectors, mulberry32, normalize } from "./cluster-vectors.js";
import { createExtractiveSummarizer, type Summarizer } from "./summarizer.js";

const analyzer = createEnglishAnalyzer();

describe("clusterVectors", () => {
  it("separates well-separated groups and bounds cluster size, deterministically", () => {
    const random = mulberry32(7);
    const around = (axis: number) => normalize(Float32Array.from({ length: 8 }, (_, index) => (index === axis ? 10 : 0) + random()));
    const vectors = [...Array.from({ length: 6 }, () => around(0)), ...Array.from({ length: 6 }, () => around(5))];
    const clusters = clusterVectors(vectors, { maximumSize: 6 });
    expect(clusters).toEqual([
      [0, 1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10, 11],
    ]);
    const small = clusterVectors(vectors, { maximumSize: 4 });
    expect(small.every((cluster) => cluster.length <= 4)).toBe(true);
    expect(small.flat().sort((a, b) => a - b)).toEqual(vectors.map((_, index) => index));
    expect(clusterVectors(vectors, { maximumSize: 4 })).toEqual(small);
  });

  it("splits identical vectors by halves rather than looping", () => {
    const same = Array.from({ length: 20 }, () => normalize(Float32Array.from([1, 1, 1])));
    const clusters = clusterVectors(same, { maximumSize: 8 });
    expect(clusters.every((cluster) => cluster.length <= 8)).toBe(true);
    expect(clusters.flat()).toHaveLength(20);
  });
});

describe("createExtractiveSummarizer", () => {
  it("keeps central, non-redundant sentences in their original order, within the length", async () => {
    const summarizer = createExtractiveSummarizer({ maximumChars: 160 });
    const summary = await summarizer.summarize([
      "The harbour bridge opened in 1932 after eight years of work. It carries trains, cars and cyclists across the harbour.",
      "The harbour bridge opened in 1932 after eight years of work! Tourists climb the arch of the harbour bridge every day.",
      "Lunch is served at noon in the canteen downstairs.",
    ]);
    expect(summary.length).toBeLessThanOrEqual(200);
    expect(summary.startsWith("The harbour bridge opened in 1932 after eight years of work.")).toBe(true);
    expect(summary).not.toContain("Lunch is served");
    expect(summary.match(/opened in 1932/g)).toHaveLength(1);
  });
});

function chunk(docId: string, index: number, text: string, acl: string, embedding?: number[]): ChunkRecord {
  return {
    id: chunkId(docId, index),
    docId,
    chunkIndex: index,
    text,
    title: docId,
    source: "test",
    ownerId: "owner@example.org",
    acl,
    metadata: {},
    contentHash: `${docId}-hash`,
    embedding: embedding ? Float32Array.from(embedding) : undefined,
  };
}

const concatenating: Summarizer = { name: "concatenate", summarize: async (passages) => passages.join(" / ") };

describe("buildRaptorNodes", () => {
  const hr = "|group:hr|";
  const everyone = "|user:_all_|";
  const documents: DocumentVersion[] = [
    {
      docId: "salaries",
      contentHash: "s",
      chunks: [0, 1, 2].map((index) => chunk("salaries", index, `Salary band ${index} is confidential.`, hr)),
    },
    {
      docId: "menu",
      contentHash: "m",
      chunks: [0, 1].map((index) => chunk("menu", index, `Canteen dish ${index} is served at noon.`, everyone)),
    },
    { docId: "wifi", contentHash: "w", chunks: [chunk("wifi", 0, "The guest network password changes on Monday.", "|user:_all_|")] },
  ];

  it("never clusters chunks of different access together; a summary has its children's exact ACL", async () => {
    const derived = await buildRaptorNodes("org", documents, { maxLevels: 2, clusterSize: 8 }, { summarizer: concatenating, analyzer });
    expect(derived).toHaveLength(2);
    const byAcl = Object.fromEntries(derived.map((document) => [document.chunks[0]?.acl, document]));
    const hrSummary = byAcl[hr] as DocumentVersion;
    expect(hrSummary.derivedFrom).toEqual(["salaries"]);
    expect(hrSummary.chunks).toHaveLength(1);
    expect(hrSummary.chunks[0]).toMatchObject({
      text: "Salary band 0 is confidential. / Salary band 1 is confidential. / Salary band 2 is confidential.",
      ownerId: "owner@example.org",
      source: "raptor",
      metadata: {
        type: "summary",
        raptor_level: 1,
        raptor_children: ["salaries::0", "salaries::1", "salaries::2"],
        raptor_documents: [{ doc_id: "salaries", title: "salaries" }],
      },
    });
    expect(hrSummary.docId).toMatch(/^raptor:[0-9a-f]{24}$/);
    const publicSummary = byAcl[everyone] as DocumentVersion;
    expect(publicSummary.derivedFrom).toEqual(["menu", "wifi"]);
    expect(publicSummary.chunks[0]?.text).not.toContain("Salary");
    expect(publicSummary.chunks[0]?.ownerId).toBe("");
  });

  it("builds no summary for fewer than three chunks, and stacks levels up to maxLevels", async () => {
    expect(
      await buildRaptorNodes(
        "org",
        [documents[1] as DocumentVersion],
        { maxLevels: 3, clusterSize: 8 },
        { summarizer: concatenating, analyzer },
      ),
    ).toEqual([]);
    const many: DocumentVersion = {
      docId: "long",
      contentHash: "l",
      chunks: Array.from({ length: 40 }, (_, index) =>
        chunk("long", index, `Paragraph ${index} about topic ${index % 5} and theme ${index % 3}.`, everyone),
      ),
    };
    const [tree] = await buildRaptorNodes("org", [many], { maxLevels: 3, clusterSize: 4 }, { summarizer: concatenating, analyzer });
    const levels = (tree as DocumentVersion).chunks.map((node) => node.metadata.raptor_level as number);
    expect(Math.max(...levels)).toBe(3);
    expect(levels.filter((level) => level === 1).length).toBeGreaterThanOrEqual(10);
  });
});

describe("RAPTOR in the service", () => {
  const services: RagService[] = [];
  afterEach(async () => {
    for (const service of services.splice(0)) await service.close();
  });
  const newService = () => {
    const service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-raptor-")) },
        embeddings: { provider: "none" },
        logging: { level: "silent" },
        ingestion: { chunkSize: 220, chunkOverlap: 0, raptorClusterSize: 8 },
      },
    });
    services.push(service);
    return service;
  };

  const report = [
    "Project Falcon is the new drone delivery programme of the company.",
    "The programme started after a long study of the logistics market.",
    "Project Falcon has a budget of two million euros for the first year.",
    "Several suppliers were evaluated before any contract was signed.",
    "The steering committee meets every month to review progress.",
    "Dana Ortiz leads Project Falcon from the robotics department.",
    "Field trials will take place in three regions during the summer.",
    "Project Falcon must deliver its first drones by March 2027.",
  ].join("\n\n");

  it("answers from the chunks under a retrieved summary node, never citing the summary", async () => {
    const principal = { userName: "ann@example.org", roles: [], groups: [] };
    const question = "Who leads Project Falcon, what is its budget, and by when must it deliver drones?";
    const facts = ["Dana Ortiz", "two million euros", "March 2027"];
    const answerWith = async (useRaptor: boolean) => {
      const service = createRagService({
        config: {
          stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-raptor-")) },
          embeddings: { provider: "none" },
          logging: { level: "silent" },
          ingestion: { chunkSize: 220, chunkOverlap: 0, useRaptor },
          retrieval: { retrieverTopK: 1 },
        },
      });
      services.push(service);
      const stored = await service.upsert({
        orgId: "org",
        principal,
        uploader: principal.userName,
        documents: { falcon: { title: "Falcon report", content: report, metadata: { acl: "|user:_all_|" } } },
      });
      expect(stored.numChunks).toBeGreaterThanOrEqual(3);
      return service.predict({ orgId: "org", principal, query: question });
    };
    const factsIn = (result: Awaited<ReturnType<typeof answerWith>>) => {
      const answer = [result.answer.callout_answer, ...result.answer.positive_list, ...result.answer.info_list].join(" ");
      return facts.filter((fact) => answer.includes(fact));
    };

    // Without RAPTOR the single best chunk holds only part of the answer.
    const plain = await answerWith(false);
    expect(factsIn(plain).length).toBeLessThan(3);

    // With RAPTOR the best node is a summary of the chunks; the answer is drawn from the report's
    // own chunks under it and cites them (a user cannot open a summary).
    const summarised = await answerWith(true);
    expect(factsIn(summarised)).toEqual(["March 2027"]);
    const sources = Object.values(summarised.sources);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source.metadata.doc_id).toBe("falcon");
      expect(source.metadata.raptor_level).toBeUndefined();
      expect(source.title).toBe("Falcon report");
    }
  });

  it("never shows a user a summary built from a document they may not read", async () => {
    const service = newService();
    const admin = { userName: "admin@example.org", roles: [], groups: [] };
    const hrUser = { userName: "harriet@example.org", roles: [], groups: ["hr"] };
    const outsider = { userName: "otto@example.org", roles: [], groups: [] };
    const secret = Array.from(
      { length: 14 },
      (_, index) => `Layoff plan phase ${index} affects the Falcon programme staff in secret.`,
    ).join("\n\n");
    const open = Array.from({ length: 16 }, (_, index) => `Falcon programme newsletter issue ${index} celebrates the staff.`).join("\n\n");
    await service.upsert({
      orgId: "org",
      principal: admin,
      uploader: admin.userName,
      documents: {
        plan: { title: "Plan", content: secret, metadata: { acl: "|group:hr|" } },
        news: { title: "News", content: open, metadata: { acl: "|user:_all_|" } },
      },
    });
    const seen = (
      await service.search({ orgId: "org", principal: outsider, query: "Falcon programme staff layoff plan secret", limit: 50 })
    ).results;
    expect(seen.length).toBeGreaterThan(0);
    for (const result of seen) expect(result.chunk.text).not.toContain("Layoff");
    expect(seen.some((result) => result.chunk.metadata.type === "summary")).toBe(true);
    const hrSeen = (await service.search({ orgId: "org", principal: hrUser, query: "layoff plan secret", limit: 50 })).results;
    expect(hrSeen.some((result) => result.chunk.metadata.type === "summary" && result.chunk.text.includes("Layoff"))).toBe(true);
  });

  it("drops a document's summaries when it is rewritten or deleted", async () => {
    const service = newService();
    const principal = { userName: "ann@example.org", roles: [], groups: [] };
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { falcon: { title: "Falcon report", content: report, metadata: { acl: "|user:_all_|" } } },
    });
    const summaries = async () =>
      (await service.search({ orgId: "org", principal, query: "Project Falcon budget Dana Ortiz March", limit: 50 })).results.filter(
        (result) => result.chunk.metadata.type === "summary",
      );
    expect((await summaries()).length).toBeGreaterThan(0);
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { falcon: { title: "Falcon report", content: "Project Falcon was cancelled.", metadata: { acl: "|user:_all_|" } } },
    });
    expect(await summaries()).toEqual([]);
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { falcon: { title: "Falcon report", content: report, metadata: { acl: "|user:_all_|" } } },
    });
    expect((await summaries()).length).toBeGreaterThan(0);
    await service.deleteDocuments({ orgId: "org", principal }, ["falcon"]);
    expect((await service.search({ orgId: "org", principal, query: "Project Falcon", limit: 50 })).total).toBe(0);
  });
});
