import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/load-config.js";
import { DocqaError } from "../errors/docqa-error.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import { createRagService } from "./create-rag-service.js";

const principal = { userName: "ann@example.org", roles: [], groups: [] };

describe("createRagService", () => {
  it("refuses a server store whose package is missing instead of silently using the embedded one", async () => {
    const config = loadConfig({ VECTORDB_URI: "http://milvus:19530", LOG_LEVEL: "silent" });
    const service = createRagService({ config });
    const error = await service.ready().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (error === undefined) {
      // @docqa/milvus is installed in this workspace: the store was created (it connects lazily).
      await service.close();
      return;
    }
    expect(error).toBeInstanceOf(DocqaError);
    expect((error as DocqaError).code).toBe("config_invalid");
    expect((error as DocqaError).message).toMatch(/npm install @docqa\/milvus/);
  });

  it("never calls the answerer on an empty context, and answers in the spec's order", async () => {
    let answererCalls = 0;
    const service = createRagService({
      config: { dataDir: mkdtempSync(join(tmpdir(), "docqa-service-")), embedDimension: 64, logLevel: "silent" },
      embeddings: new DeterministicEmbeddings(),
      answerer: {
        name: "counting",
        async answer() {
          answererCalls++;
          return {
            answer: { callout_answer: "x [Source: doc_1]", positive_list: [], negative_list: [], info_list: [], keywords: [] },
            mode: "model",
            model: "counting",
            abstained: false,
            numPredict: null,
            numCtx: null,
          };
        },
      },
    });
    const empty = await service.predict({ orgId: "org", principal, query: "anything" });
    expect(empty.answerMode).toBe("empty-context");
    expect(answererCalls).toBe(0);
    await service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: { d: { title: "Doc", content: "anything goes here" } },
    });
    const answered = await service.predict({ orgId: "org", principal, query: "anything" });
    expect(answererCalls).toBe(1);
    expect(Object.keys(answered.sources)).toEqual(["doc_1"]);
    await service.close();
  });

  it("rejects an upsert with any invalid document before writing anything", async () => {
    const service = createRagService({
      config: { dataDir: mkdtempSync(join(tmpdir(), "docqa-service-")), logLevel: "silent" },
      embeddings: null,
    });
    const upsert = service.upsert({
      orgId: "org",
      principal,
      uploader: principal.userName,
      documents: {
        good: { title: "ok", content: "fine" },
        "bad\u0001id": { title: "x", content: "y" },
        empty: { title: "e", content: " " },
      },
    });
    await expect(upsert).rejects.toSatisfy(
      (error: unknown) =>
        DocqaError.isInstance(error) &&
        error.code === "invalid_request" &&
        error.message.includes('documents["bad\\u0001id"]: document id must not contain control characters') &&
        error.message.includes('documents["empty"].content: content must not be empty'),
    );
    expect((await service.search({ orgId: "org", principal, query: "fine" })).total).toBe(0);
    await service.close();
  });
});
