import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Principal } from "../acl/principal.js";
import type { DocqaConfigOverrides } from "../config/load-config.js";
import { createEmbeddedStore, type EmbeddedStore } from "../embedded-store/embedded-store.js";
import { DocqaError } from "../errors/docqa-error.js";
import { createInMemoryJobStore } from "../jobs/in-memory-job-store.js";
import type { AuditEvent } from "../logging/audit-log.js";
import { silentLogger } from "../logging/logger.js";
import { createRagService } from "../service/create-rag-service.js";
import type { RagService } from "../service/rag-service.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";

const ann: Principal = { userName: "ann@example.org", roles: ["staff"], groups: [] };
const bob: Principal = { userName: "bob@example.org", roles: [], groups: [] };
const admin: Principal = { userName: "root@example.org", roles: ["admin"], groups: [] };
const orgId = "org";

interface Subject {
  service: RagService;
  store: EmbeddedStore;
  embeddings: DeterministicEmbeddings;
  audit: AuditEvent[];
}

const services: RagService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

function newSubject(overrides: DocqaConfigOverrides = {}): Subject {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-writes-"));
  const store = createEmbeddedStore({ dataDir });
  const embeddings = new DeterministicEmbeddings({ dimension: 32 });
  const audit: AuditEvent[] = [];
  const service = createRagService({
    config: {
      stores: { dataDir },
      embeddings: { dimension: 32 },
      ingestion: { useRaptor: false, chunkSize: 200, chunkOverlap: 20 },
      models: { provider: "extractive" },
      logging: { level: "silent" },
      ...overrides,
    },
    stores: store,
    embeddings,
    jobStore: createInMemoryJobStore(),
    logger: silentLogger,
    audit: { record: (event) => audit.push(event) },
  });
  services.push(service);
  return { service, store, embeddings, audit };
}

const paragraphs = (topic: string, count: number) =>
  Array.from({ length: count }, (_, index) => `The ${topic} report, part ${index}, explains the ${topic} budget in detail.`).join("\n\n");

async function attempt(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return "ok";
  } catch (error) {
    return DocqaError.isInstance(error) ? error.code : String(error);
  }
}

async function state(subject: Subject) {
  const page = await subject.service.listDocuments({ orgId, principal: admin, limit: 100 });
  return { documents: page.documents, chunks: await subject.store.count(orgId) };
}

describe("upsert under the write rules", () => {
  it("refuses to replace somebody else's document, even byte for byte: no 'unchanged' oracle, nothing written", async () => {
    const subject = newSubject();
    const documents = { plan: { title: "Plan", content: "The secret launch date is 12 May.", metadata: {} } };
    await subject.service.upsert({ orgId, principal: ann, documents });
    const before = await state(subject);
    const calls = subject.embeddings.calls;
    subject.audit.length = 0;
    for (const content of ["The secret launch date is 12 May.", "The secret launch date is 13 May."]) {
      const error = await subject.service
        .upsert({ orgId, principal: bob, documents: { plan: { title: "Plan", content, metadata: {} } } })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: "forbidden",
        message: '[docqa] [access] may not replace document "plan": only the document\'s owner or an administrator may replace it',
        details: [{ doc_id: "plan", rule: 3, reason: "only the document's owner or an administrator may replace it" }],
      });
    }
    expect(await state(subject)).toEqual(before);
    expect(subject.embeddings.calls).toBe(calls);
    expect(subject.audit).toEqual([
      expect.objectContaining({ action: "write", actor: "bob@example.org", docId: "plan", outcome: "forbidden", rule: 3, via: "upsert" }),
      expect.objectContaining({ action: "write", actor: "bob@example.org", docId: "plan", outcome: "forbidden", rule: 3, via: "upsert" }),
    ]);
    const again = await subject.service.upsert({ orgId, principal: ann, documents });
    expect(again).toMatchObject({ written: 0, unchanged: 1 });
    expect(subject.audit.at(-1)).toMatchObject({ actor: "ann@example.org", outcome: "unchanged", rule: 5 });
  });

  it("refuses a whole batch when one document is refused, and writes nothing of it", async () => {
    const subject = newSubject();
    await subject.service.upsert({ orgId, principal: ann, documents: { mine: { title: "Mine", content: "ann's notes" } } });
    const before = await state(subject);
    const error = await subject.service
      .upsert({
        orgId,
        principal: bob,
        documents: {
          fresh: { title: "Fresh", content: "bob's new notes" },
          mine: { title: "Mine", content: "bob overwrites ann" },
          gift: { title: "Gift", content: "planted", metadata: { owner_id: "ann@example.org" } },
        },
      })
      .catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error) && error.code).toBe("forbidden");
    expect((error as DocqaError).details).toEqual([
      { doc_id: "mine", rule: 3, reason: "only the document's owner or an administrator may replace it" },
      { doc_id: "gift", rule: 4, reason: "only an administrator may make somebody else the owner (owner_id)" },
    ]);
    expect((error as DocqaError).publicMessage).toContain("may not write 2 of the 3 documents of this request");
    expect(await state(subject)).toEqual(before);
    expect(subject.audit.slice(-3).map((event) => [event.docId, event.outcome])).toEqual([
      ["fresh", "not_written"],
      ["mine", "forbidden"],
      ["gift", "forbidden"],
    ]);
  });

  it("lets only administrators name another owner or uploader, and keeps the owner when an administrator replaces", async () => {
    const subject = newSubject();
    expect(
      await attempt(
        subject.service.upsert({ orgId, principal: bob, uploader: "ann@example.org", documents: { x: { title: "X", content: "x" } } }),
      ),
    ).toBe("forbidden");
    await subject.service.upsert({ orgId, principal: admin, uploader: "ann@example.org", documents: { x: { title: "X", content: "x" } } });
    expect((await subject.service.getDocument({ orgId, principal: admin }, "x"))?.ownerId).toBe("ann@example.org");
    await subject.service.upsert({ orgId, principal: admin, documents: { x: { title: "X", content: "x v2" } } });
    expect((await subject.service.getDocument({ orgId, principal: admin }, "x"))?.ownerId).toBe("ann@example.org");
    await subject.service.upsert({
      orgId,
      principal: admin,
      documents: { x: { title: "X", content: "x v2", metadata: { owner_id: "Bob@Example.org" } } },
    });
    expect((await subject.service.getDocument({ orgId, principal: admin }, "x"))?.ownerId).toBe("bob@example.org");
    expect(await attempt(subject.service.upsert({ orgId, principal: ann, documents: { x: { title: "X", content: "x v3" } } }))).toBe(
      "forbidden",
    );
    expect(await attempt(subject.service.upsert({ orgId, principal: bob, documents: { x: { title: "X", content: "x v3" } } }))).toBe("ok");
    expect(subject.audit.at(-1)).toMatchObject({ docId: "x", outcome: "replaced", rule: 5 });
  });

  it("takes ADMIN_ROLES from the configuration", async () => {
    const subject = newSubject({ access: { adminRoles: ["librarian"] } });
    await subject.service.upsert({ orgId, principal: ann, documents: { x: { title: "X", content: "x" } } });
    expect(await attempt(subject.service.deleteDocument({ orgId, principal: admin }, "x"))).toBe("forbidden");
    expect(await attempt(subject.service.deleteDocument({ orgId, principal: { ...bob, roles: ["Librarian"] } }, "x"))).toBe("ok");
  });
});

describe("access changes", () => {
  it("re-stamps the stored chunks without re-embedding: same row count, no embedding call, new ACL in force", async () => {
    const subject = newSubject();
    const content = paragraphs("harbour", 6);
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: { report: { title: "Report", content, metadata: { source: "wiki" } } },
    });
    const before = await state(subject);
    expect(before.chunks).toBeGreaterThan(2);
    const search = async (principal: Principal) =>
      (await subject.service.search({ orgId, principal, query: "harbour budget report", limit: 20 })).results;
    expect(await search(bob)).toEqual([]);
    const calls = subject.embeddings.calls;
    const result = await subject.service.upsert({
      orgId,
      principal: ann,
      documents: { report: { title: "Report", content, metadata: { source: "wiki", acl: "|user:bob@example.org|" } } },
    });
    expect(result).toMatchObject({ written: 1, accessChanged: 1, unchanged: 0, numChunks: before.chunks });
    expect(subject.embeddings.calls).toBe(calls);
    const after = await state(subject);
    expect(after.chunks).toBe(before.chunks);
    expect(after.documents).toEqual([{ ...before.documents[0], acl: "|user:bob@example.org|", updatedAt: after.documents[0]?.updatedAt }]);
    const found = await search(bob);
    expect(found).toHaveLength(before.chunks);
    expect(found.every((hit) => hit.chunk.acl === "|user:bob@example.org|" && hit.chunk.metadata.acl === "|user:bob@example.org|")).toBe(
      true,
    );
    expect(subject.audit.at(-1)).toMatchObject({ docId: "report", outcome: "access_changed" });
    // A content change after that embeds again.
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: {
        report: { title: "Report", content: `${content}\n\nOne more line.`, metadata: { source: "wiki", acl: "|user:bob@example.org|" } },
      },
    });
    expect(subject.embeddings.calls).toBeGreaterThan(calls);
    expect(subject.audit.at(-1)).toMatchObject({ docId: "report", outcome: "replaced" });
  });

  it("re-stamps the document's own summary nodes with it, and drops summaries that also cover other documents", async () => {
    const subject = newSubject({ ingestion: { useRaptor: true, chunkSize: 200, chunkOverlap: 20 } });
    const solo = paragraphs("falcon", 8);
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: { falcon: { title: "Falcon", content: solo, metadata: { acl: "|group:eng|" } } },
    });
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: {
        north: { title: "North", content: paragraphs("glacier", 5), metadata: { acl: "|group:ops|" } },
        south: { title: "South", content: paragraphs("glacier", 5), metadata: { acl: "|group:ops|" } },
      },
    });
    const summaryChunks = async (source: string) =>
      (await subject.service.search({ orgId, principal: ann, query: "budget report falcon glacier", limit: 100 })).results.filter(
        (hit) =>
          hit.chunk.metadata.type === "summary" &&
          (hit.chunk.metadata.raptor_documents as { doc_id: string }[]).some((document) => document.doc_id === source),
      );
    const falconSummaries = await summaryChunks("falcon");
    expect(falconSummaries.length).toBeGreaterThan(0);
    expect((await summaryChunks("north")).length).toBeGreaterThan(0);
    const before = await subject.store.count(orgId);
    const calls = subject.embeddings.calls;
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: { falcon: { title: "Falcon", content: solo, metadata: { acl: "|group:hr|" } } },
    });
    expect(subject.embeddings.calls).toBe(calls);
    expect(await subject.store.count(orgId)).toBe(before);
    const restamped = await summaryChunks("falcon");
    expect(restamped.map((hit) => hit.chunk.id).sort()).toEqual(falconSummaries.map((hit) => hit.chunk.id).sort());
    expect(restamped.every((hit) => hit.chunk.acl === "|group:hr|")).toBe(true);
    const hr = { userName: "hal@example.org", roles: [], groups: ["hr"] };
    const eng = { userName: "eve@example.org", roles: [], groups: ["eng"] };
    const visible = async (principal: Principal) =>
      (await subject.service.search({ orgId, principal, query: "falcon budget", limit: 50 })).results.length;
    expect(await visible(hr)).toBeGreaterThan(0);
    expect(await visible(eng)).toBe(0);
    // Changing the access of one of two documents summarised together drops their summary.
    const callsBeforeNorth = subject.embeddings.calls;
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: { north: { title: "North", content: paragraphs("glacier", 5), metadata: { acl: "|group:eng|" } } },
    });
    expect(subject.embeddings.calls).toBe(callsBeforeNorth);
    expect(await summaryChunks("north")).toEqual([]);
  });
});

describe("file ingestion under the write rules", () => {
  it("rejects, per file, a file replacing somebody else's document, before comparing bytes", async () => {
    const subject = newSubject();
    const bytes = new TextEncoder().encode(paragraphs("payroll", 3));
    await subject.service.ingestFiles({ orgId, principal: ann, files: [{ name: "payroll.md", bytes }] });
    const before = await state(subject);
    subject.audit.length = 0;
    const job = await subject.service.ingestFiles({
      orgId,
      principal: bob,
      files: [
        { name: "payroll.md", bytes },
        { name: "bob.md", bytes: new TextEncoder().encode("bob's own file") },
      ],
    });
    expect(job.state).toBe("partially_failed");
    expect(job.files).toEqual({ total: 2, processed: 2, ingested: 1, unchanged: 0, failed: 1 });
    expect(job.errors).toEqual([
      {
        file: "payroll.md",
        code: "forbidden",
        message: 'may not replace document "payroll.md": only the document\'s owner or an administrator may replace it',
      },
    ]);
    expect((await state(subject)).documents.map((document) => [document.docId, document.ownerId])).toEqual([
      ["bob.md", "bob@example.org"],
      ["payroll.md", "ann@example.org"],
    ]);
    expect((await state(subject)).documents[1]).toEqual(before.documents[0]);
    expect(subject.audit.map((event) => [event.docId, event.outcome, event.via])).toEqual([
      ["payroll.md", "forbidden", "ingest"],
      ["bob.md", "created", "ingest"],
    ]);
    const unchanged = await subject.service.ingestFiles({ orgId, principal: ann, files: [{ name: "payroll.md", bytes }] });
    expect(unchanged.files.unchanged).toBe(1);
  });

  it("re-stamps a re-uploaded file whose ACL alone changed", async () => {
    const subject = newSubject();
    const bytes = new TextEncoder().encode(paragraphs("canteen", 4));
    await subject.service.ingestFiles({ orgId, principal: ann, files: [{ name: "menu.md", bytes }], metadata: { acl: "|role:staff|" } });
    const before = await subject.store.count(orgId);
    const calls = subject.embeddings.calls;
    const job = await subject.service.ingestFiles({
      orgId,
      principal: ann,
      files: [{ name: "menu.md", bytes }],
      metadata: { acl: "|user:_all_|" },
    });
    expect(job.state).toBe("succeeded");
    expect(subject.embeddings.calls).toBe(calls);
    expect(await subject.store.count(orgId)).toBe(before);
    expect((await subject.service.getDocument({ orgId, principal: bob }, "menu.md"))?.acl).toBe("|user:_all_|");
    expect(subject.audit.at(-1)).toMatchObject({ docId: "menu.md", outcome: "access_changed", via: "ingest" });
  });
});

describe("background ingestion jobs", () => {
  it("run, and resume after a restart, with the principal that started them", async () => {
    const subject = newSubject();
    const bytes = new TextEncoder().encode("Ann's roadmap.");
    await subject.service.ingestFiles({ orgId, principal: ann, files: [{ name: "roadmap.txt", bytes }] });
    const started = await subject.service.startIngestion({
      orgId,
      principal: bob,
      files: [{ name: "roadmap.txt", bytes: new TextEncoder().encode("Bob's roadmap.") }],
    });
    // A generous bound: on a loaded machine the job may take seconds to start.
    await vi.waitFor(
      async () =>
        expect(await subject.service.getIngestionJob({ orgId, principal: bob }, started.jobId)).toMatchObject({
          state: "failed",
          errors: [{ file: "roadmap.txt", code: "forbidden" }],
        }),
      { timeout: 30_000, interval: 10 },
    );
    expect((await subject.service.getDocument({ orgId, principal: ann }, "roadmap.txt"))?.ownerId).toBe("ann@example.org");
  });
});

describe("deleting documents", () => {
  it("deletes for the owner and administrators only, with the summaries built from the document", async () => {
    const subject = newSubject({ ingestion: { useRaptor: true, chunkSize: 200, chunkOverlap: 20 } });
    await subject.service.upsert({
      orgId,
      principal: ann,
      documents: {
        falcon: { title: "Falcon", content: paragraphs("falcon", 8), metadata: { acl: "|user:_all_|" } },
        other: { title: "Other", content: paragraphs("meadow", 2), metadata: { acl: "|user:_all_|" } },
      },
    });
    expect(await attempt(subject.service.deleteDocument({ orgId, principal: bob }, "falcon"))).toBe("forbidden");
    expect(await attempt(subject.service.deleteDocument({ orgId, principal: bob }, "missing"))).toBe("not_found");
    expect(await attempt(subject.service.deleteDocument({ orgId, principal: admin }, "raptor:anything"))).toBe("not_found");
    expect(await attempt(subject.service.deleteDocuments({ orgId, principal: bob }, ["other", "falcon"]))).toBe("forbidden");
    expect((await state(subject)).documents.map((document) => document.docId)).toEqual(["falcon", "other"]);
    const [falcon, other] = (await state(subject)).documents;
    const otherChunks = other?.chunkCount as number;
    const result = await subject.service.deleteDocument({ orgId, principal: ann }, "falcon");
    expect(result).toEqual({ deleted: ["falcon"], chunks: falcon?.chunkCount, summaries: 1 });
    expect(result.chunks).toBeGreaterThan(2);
    expect(await subject.store.count(orgId)).toBe(otherChunks);
    const left = await subject.service.search({ orgId, principal: ann, query: "falcon budget report", limit: 50 });
    expect(left.results.every((hit) => hit.chunk.docId === "other")).toBe(true);
    expect(subject.audit.at(-1)).toMatchObject({ action: "delete", docId: "falcon", outcome: "deleted", rule: 5, via: "delete" });
    expect(await subject.service.deleteDocuments({ orgId, principal: admin }, ["other", "never"])).toEqual({
      deleted: ["other"],
      chunks: otherChunks,
      summaries: 0,
    });
    expect(await subject.store.count(orgId)).toBe(0);
  });
});

describe("listing and showing documents", () => {
  it("lists what the caller may read (everything for administrators), filtered and paged, and hides the rest", async () => {
    const subject = newSubject();
    await subject.service.upsert({
      orgId,
      principal: admin,
      documents: {
        a: { title: "A", content: "alpha", metadata: { owner_id: "ann@example.org", source: "wiki", type: "md" } },
        b: { title: "B", content: "beta", metadata: { owner_id: "ann@example.org", acl: "|user:_all_|", source: "drive" } },
        c: { title: "C", content: "gamma", metadata: { owner_id: "cy@example.org", acl: "|role:staff|", source: "wiki", type: "md" } },
        d: { title: "D", content: "delta", metadata: { owner_id: "cy@example.org" } },
      },
    });
    const ids = async (principal: Principal, options = {}) =>
      (await subject.service.listDocuments({ orgId, principal, ...options })).documents.map((document) => document.docId);
    expect(await ids(ann)).toEqual(["a", "b", "c"]);
    expect(await ids(bob)).toEqual(["b"]);
    expect(await ids(admin)).toEqual(["a", "b", "c", "d"]);
    expect(await ids(ann, { source: "wiki" })).toEqual(["a", "c"]);
    expect(await ids(ann, { type: "md", ownerId: "CY@example.org" })).toEqual(["c"]);
    const first = await subject.service.listDocuments({ orgId, principal: admin, limit: 3 });
    expect(first.documents.map((document) => document.docId)).toEqual(["a", "b", "c"]);
    expect(first.nextCursor).not.toBeNull();
    const second = await subject.service.listDocuments({ orgId, principal: admin, limit: 3, cursor: first.nextCursor as string });
    expect(second).toEqual({
      documents: [expect.objectContaining({ docId: "d", ownerId: "cy@example.org", chunkCount: 1 })],
      nextCursor: null,
    });
    expect(await attempt(subject.service.listDocuments({ orgId, principal: admin, cursor: "bm90LWEtY3Vyc29y" }))).toBe("invalid_request");
    expect(await attempt(subject.service.listDocuments({ orgId, principal: admin, limit: 0 }))).toBe("invalid_request");
    expect(await subject.service.getDocument({ orgId, principal: bob }, "a")).toBeUndefined();
    expect(await subject.service.getDocument({ orgId, principal: bob }, "b")).toEqual({
      docId: "b",
      title: "B",
      ownerId: "ann@example.org",
      acl: "|user:_all_|",
      source: "drive",
      type: "",
      chunkCount: 1,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await subject.service.getDocument({ orgId, principal: admin }, "d")).toMatchObject({ docId: "d" });
  });
});
