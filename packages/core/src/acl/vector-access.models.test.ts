/**
 * Access control and organisation isolation on the vector path with real embedding models: the
 * questions share no words with the documents they should find, so only the vector list can
 * find them (BM25 weight 0), and the nearest neighbour is always one the reader must not see.
 * Part of `npm run test:models`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { findLocalModels } from "../testing/local-models.js";
import { isContinuousIntegration } from "../testing/shared-data.js";

const uploader = "admin@acme.example";
const documents = {
  salaries: {
    title: "Compensation bands",
    content: "Engineers earn between ninety and one hundred forty thousand euros per year, depending on seniority.",
    metadata: { acl: "|group:hr|" },
  },
  holidays: {
    title: "Vacation policy",
    content: "Every employee receives twenty-five days of paid leave each calendar year.",
    metadata: { acl: "|user:_all_|" },
  },
  review: {
    title: "Performance review of Dana",
    content: "Dana exceeded expectations this cycle and is recommended for promotion.",
    metadata: { acl: "|user:dana@acme.example|deny:eve@acme.example|", owner_id: "lead@acme.example" },
  },
};
const otherOrganisation = {
  salaries: {
    title: "Compensation bands",
    content: "Developers are paid from eighty to one hundred twenty thousand dollars annually.",
    metadata: { acl: "|user:_all_|" },
  },
};
const vectorOnly = { weightVector: 1, weightBm25: 0 };

describe.each(["all-MiniLM-L6-v2", "bge-small-en-v1.5"])("vector-path access control with %s", (name) => {
  const model = findLocalModels([name]).find((found) => found.id.endsWith(name));
  let service: RagService;
  let dataDir: string;

  beforeAll(async () => {
    if (!model) return;
    dataDir = mkdtempSync(join(tmpdir(), "docqa-models-acl-"));
    service = createRagService({
      config: {
        stores: { dataDir },
        logging: { level: "warn" },
        ingestion: { useRaptor: false },
        embeddings: { modelPath: model.root, modelName: model.id, dimension: model.dimension, allowRemote: false },
      },
    });
    // An administrator: the documents name other owners (owner_id), which only administrators may set.
    const principal = { userName: uploader, roles: ["admin"], groups: [] };
    await service.upsert({ orgId: "acme", principal, uploader, documents });
    await service.upsert({ orgId: "globex", principal, uploader, documents: otherOrganisation });
    expect((await service.health()).embeddings).toEqual({ status: "ready", model: model.id });
  });

  afterAll(async () => {
    await service?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const search = async (orgId: string, userName: string, query: string, groups: string[] = []) => {
    const { results } = await service.search({
      orgId,
      principal: { userName, roles: [], groups },
      query,
      limit: 3,
      retrieval: vectorOnly,
    });
    return results.map((result) => result.chunk.docId);
  };

  it.skipIf(!model && !isContinuousIntegration())("finds a group's document for its members only", async () => {
    expect(model, `${name} is missing from ../shared/data/models`).toBeDefined();
    const question = "How much money does a software developer make?";
    expect((await search("acme", "hana@acme.example", question, ["hr"]))[0]).toBe("salaries");
    expect(await search("acme", "sam@acme.example", question)).not.toContain("salaries");
    expect(await search("acme", "sam@acme.example", question)).toContain("holidays");
  });

  it.skipIf(!model && !isContinuousIntegration())("applies user grants, denials and ownership to the nearest neighbour", async () => {
    expect(model, `${name} is missing from ../shared/data/models`).toBeDefined();
    const question = "Who should get a raise after the appraisal?";
    expect((await search("acme", "dana@acme.example", question))[0]).toBe("review");
    expect((await search("acme", "lead@acme.example", question))[0]).toBe("review");
    expect(await search("acme", "eve@acme.example", question, ["hr"])).not.toContain("review");
  });

  it.skipIf(!model && !isContinuousIntegration())("keeps organisations apart", async () => {
    expect(model, `${name} is missing from ../shared/data/models`).toBeDefined();
    const question = "How much money does a software developer make?";
    const globex = await search("globex", "hana@acme.example", question, ["hr"]);
    expect(globex).toEqual(["salaries"]);
    const { results } = await service.search({
      orgId: "globex",
      principal: { userName: "hana@acme.example", roles: [], groups: ["hr"] },
      query: question,
      retrieval: vectorOnly,
    });
    expect(results[0]?.chunk.text).toContain("dollars");
  });
});
