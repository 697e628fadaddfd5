/**
 * `POST /api/ingest` and `POST /api/search` over the real files of ../shared/data/documents (all
 * six formats in one upload), checked against what the core's own ingestion reports for the same
 * files. Skipped with a message when the directory is absent; fails in CI (`CI=true`).
 */
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createEmbeddedStore, createInMemoryJobStore, createRagService, mintAccessToken, type RagService } from "@docqa/core";
import { findFiles, supportedFormats } from "@docqa/core/ingestion";
import { DeterministicEmbeddings, isContinuousIntegration, sharedDataPath } from "@docqa/core/testing";
import { resolveServerConfig } from "@docqa/http";
import { afterAll, describe, expect, it } from "vitest";
import { chatRoutes } from "./chat-routes.js";

const documentsDirectory = sharedDataPath("documents");
const secret = "shared-documents-secret-0123456789-0123456789";
const orgId = "org-shared-documents";
const principal = { userName: "ann@example.org", roles: [], groups: [] };
if (!documentsDirectory && !isContinuousIntegration()) {
  console.warn("chat-api shared-documents test skipped: ../shared/data/documents is absent (set DOCQA_SHARED_DATA)");
}

const services: RagService[] = [];
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()));
});

function newService(): RagService {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-chat-api-shared-"));
  const service = createRagService({
    config: {
      stores: { dataDir },
      embeddings: { dimension: 64 },
      logging: { level: "silent" },
      ingestion: { useRaptor: false },
    },
    stores: createEmbeddedStore({ dataDir }),
    embeddings: new DeterministicEmbeddings({ dimension: 64 }),
    jobStore: createInMemoryJobStore(),
  });
  services.push(service);
  return service;
}

describe.skipIf(!documentsDirectory && !isContinuousIntegration())("set B over ../shared/data/documents", () => {
  it("one upload of every file (six formats) reports the documents the core's ingestion reports; filters.type returns only that type", async () => {
    expect(documentsDirectory, "../shared/data/documents is missing").toBeDefined();
    const { files } = await findFiles([documentsDirectory as string], supportedFormats);
    expect(new Set(files.map((file) => file.extension))).toEqual(new Set(supportedFormats));

    // Reference: the core's ingestion of the same files, under the same names.
    const reference = await newService().ingestFiles({
      orgId,
      principal,
      files: files.map((file) => ({ path: file.path, name: basename(file.path) })),
    });

    const service = newService();
    const server = resolveServerConfig({ jwt: { secret } });
    const app = chatRoutes(service, { server, rateLimit: false });
    const token = await mintAccessToken(server.jwt, { email: principal.userName, orgId });
    const form = new FormData();
    for (const file of files) form.append("files", new File([await readFile(file.path)], basename(file.path)));
    const response = await app.request("/api/ingest", { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: form });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      success: boolean;
      documentsProcessed: number;
      jobId: string;
      files: Record<string, number>;
      errors: { file: string; code: string }[];
    };
    expect(reference.documents).toBeGreaterThan(files.length / 2);
    expect(body.documentsProcessed).toBe(reference.documents);
    expect(body.files).toEqual(reference.files);
    const codes = (errors: readonly { file: string; code: string }[]) =>
      Object.fromEntries(
        errors
          .map((error) => [basename(error.file), error.code])
          .sort(([left], [right]) => (left as string).localeCompare(right as string)),
      );
    expect(codes(body.errors)).toEqual(codes(reference.errors));
    // The shared set holds deliberately broken files (empty, truncated, encrypted, image-only).
    expect(body.success).toBe(false);
    const job = await app.request(`/api/ingest/${body.jobId}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await job.json()).toMatchObject({ state: "partially_failed", documentsProcessed: reference.documents });

    for (const type of supportedFormats) {
      const search = await app.request("/api/search", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ query: "data table results", limit: 20, filters: { type } }),
      });
      expect(search.status).toBe(200);
      const { results } = (await search.json()) as { results: { metadata: { type: string; filename: string } }[] };
      expect(results.length, type).toBeGreaterThan(0);
      expect(
        results.every((result) => result.metadata.type === type && result.metadata.filename.endsWith(`.${type}`)),
        type,
      ).toBe(true);
    }
  }, 300_000);
});
