/**
 * Randomised property test of the citations an answer may carry: over random documents (random
 * owners, ACLs with every entry kind, RAPTOR summaries built over them), random principals and
 * random questions, every cited source is a chunk of a user document (never a summary node) that
 * the asker may read under the seven ACL rules, and names its document's title and file.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../raptor/cluster-vectors.js";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { evaluateAccess } from "./evaluate-access.js";
import type { Principal } from "./principal.js";

const users = ["ann@x.org", "bob@x.org", "cho@x.org", "dee@x.org"];
const roles = ["hr", "finance"];
const groups = ["staff", "board"];
const topics = [
  "vacation days for new employees",
  "travel expenses and meal limits",
  "laptop replacement and the help desk",
  "remote work from home each week",
  "passwords and security incidents",
  "parental leave and sick leave",
];
const facts = ["twenty", "sixty euros", "three years", "two days", "fourteen characters", "sixteen weeks", "one hour", "five days"];

describe("citations under random ACLs (property)", () => {
  const seed = 20_260_124;
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let service: RagService;

  /** A random ACL: empty (owner only), or one to three entries of any kind, sometimes with a deny. */
  const randomAcl = (): string => {
    if (random() < 0.15) return "";
    const entries = new Set<string>();
    const count = 1 + Math.floor(random() * 3);
    for (let index = 0; index < count; index++) {
      const kind = Math.floor(random() * 5);
      if (kind === 0) entries.add("user:_all_");
      else if (kind === 1) entries.add(`user:${pick(users)}`);
      else if (kind === 2) entries.add(`role:${pick(roles)}`);
      else if (kind === 3) entries.add(`group:${pick(groups)}`);
      else entries.add(`deny:${pick(users)}`);
    }
    return `|${[...entries].join("|")}|`;
  };

  beforeAll(async () => {
    service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-citation-acl-")) },
        embeddings: { dimension: 64 },
        logging: { level: "silent" },
        ingestion: { useRaptor: true, chunkSize: 200, chunkOverlap: 0, raptorClusterSize: 4 },
      },
      embeddings: new DeterministicEmbeddings({ dimension: 64 }),
    });
    // Several upserts, each a document set RAPTOR summarises (partitioned by access).
    for (let batch = 0; batch < 4; batch++) {
      const documents: Record<string, { title: string; content: string; metadata: Record<string, unknown> }> = {};
      for (let index = 0; index < 6; index++) {
        const topic = pick(topics);
        const sentences = Array.from(
          { length: 4 },
          (_, line) => `Rule ${line + 1} on ${topic}: the limit is ${pick(facts)} for ${pick(["staff", "managers", "contractors"])}.`,
        );
        documents[`doc-${batch}-${index}`] = {
          title: `Policy ${batch}-${index} on ${topic}`,
          content: sentences.join("\n\n"),
          metadata: { owner_id: pick(users), acl: random() < 0.3 ? "|user:_all_|" : randomAcl() },
        };
      }
      const owner = { userName: "admin@x.org", roles: ["admin"], groups: [] };
      await service.upsert({ orgId: "org", principal: owner, uploader: owner.userName, documents });
    }
  }, 60_000);
  afterAll(() => service.close());

  it("cites only readable user documents, never a summary node, each with its title and file name", async () => {
    let cited = 0;
    let summariesRetrieved = 0;
    for (let trial = 0; trial < 60; trial++) {
      const principal: Principal = {
        userName: pick(users),
        roles: random() < 0.5 ? [pick(roles)] : [],
        groups: random() < 0.5 ? [pick(groups)] : [],
      };
      const question = `What is the limit on ${pick(topics)} for ${pick(["staff", "managers", "contractors"])}?`;
      const [answer, search] = await Promise.all([
        service.predict({ orgId: "org", principal, query: question }),
        service.search({ orgId: "org", principal, query: question, limit: 10 }),
      ]);
      summariesRetrieved += search.results.filter((result) => typeof result.chunk.metadata.raptor_level === "number").length;
      for (const source of Object.values(answer.sources)) {
        cited++;
        const metadata = source.metadata as { raptor_level?: unknown; doc_id: string; filename?: unknown; owner_id: string; acl: string };
        expect(metadata.raptor_level, question).toBeUndefined();
        expect(metadata.doc_id.startsWith("raptor:"), question).toBe(false);
        expect(
          evaluateAccess(principal, { ownerId: metadata.owner_id, acl: metadata.acl }).granted,
          `${principal.userName}: ${question}`,
        ).toBe(true);
        expect(source.title).toMatch(/^Policy \d-\d on /);
        expect(metadata.filename).toBe(metadata.doc_id);
      }
      if (answer.abstained) expect(answer.sources).toEqual({});
    }
    // The property is exercised: answers cited sources, and summaries were retrieved to be expanded.
    expect(cited).toBeGreaterThan(20);
    expect(summariesRetrieved).toBeGreaterThan(0);
  }, 120_000);
});
