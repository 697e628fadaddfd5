/**
 * A randomized property test of the write rules, run against a whole service over any store
 * bundle (the embedded store in the unit tests; Milvus and OpenSearch in the integration tests).
 * Random principals (owners, other users, holders of read grants, an administrator, a principal
 * without a user name) attempt random operations (create, replace, ACL change, owner change,
 * delete) on random documents. An independent model of the rules predicts each outcome; after
 * every attempt the stored documents (owner, ACL, title, chunk count, commit time, number of
 * chunks in the indexes) are compared with the model: a refused attempt must change nothing at
 * all, an allowed one exactly what it asked. An ACL or owner change must not call the embedding
 * model nor change the number of chunks. Every few attempts, each principal's listing and search
 * results are checked against the seven read rules on the model.
 *
 * The sequence is reproducible: it is drawn from a seeded generator (`DOCQA_PROPERTY_SEED`, or
 * the `seed` option); a failure names the seed and the attempt.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canRead } from "../acl/evaluate-access.js";
import type { Principal } from "../acl/principal.js";
import { DocqaError } from "../errors/docqa-error.js";
import { mulberry32 } from "../raptor/cluster-vectors.js";
import type { RagService } from "../service/rag-service.js";

/** What the property runs on. */
export interface WriteRulesSubject {
  /**
   * The service under test, with `ADMIN_ROLES` `admin`, `USE_RAPTOR` false, a small `CHUNK_SIZE`
   * (documents of one to four chunks) and embeddings whose calls {@link embeddingCalls} counts.
   */
  service: RagService;
  /** Calls made to the embedding model so far. */
  embeddingCalls(): number;
  /** Chunks stored for the organisation in the keyword index (every version, committed or not). */
  storedChunks(orgId: string): Promise<number>;
  /** Releases the subject (and deletes what it created on servers). */
  close(): Promise<void>;
}

/** Options of {@link describeWriteRulesProperty}. */
export interface WriteRulesPropertyOptions {
  /** Attempts; default 300. */
  attempts?: number;
  /** Seed of the generator; default `DOCQA_PROPERTY_SEED` or 20240515. */
  seed?: number;
  /** Timeout of the whole property, in milliseconds; default 300,000. */
  timeoutMs?: number;
  /** Check listings and searches every this many attempts; default 10. */
  readCheckEvery?: number;
  /** The organisation written to; default a fresh random one (`write-rules-<uuid>`). Pass one to clean it up on a server. */
  orgId?: string;
}

const people = ["ann@example.org", "bob@example.org", "cy@example.org"] as const;
const principals: Principal[] = [
  { userName: "ann@example.org", roles: ["staff"], groups: ["eng"] },
  { userName: "bob@example.org", roles: [], groups: ["eng"] },
  { userName: "cy@example.org", roles: ["editor"], groups: [] },
  { userName: "root@example.org", roles: ["admin"], groups: [] },
  { userName: "", roles: ["staff"], groups: ["eng"] },
];
const administrator = principals[3] as Principal;
const acls = ["", "|user:_all_|", "|group:eng|", "|role:staff|", "|user:bob@example.org|", "|user:_all_|deny:ann@example.org|"];
const documentIds = ["d0", "d1", "d2", "d3", "d4", "d5"];
const words = ["river", "ledger", "falcon", "quartz", "meadow", "lantern", "copper", "harbour", "violet", "summit", "pepper", "orbit"];

/** What the model knows of a stored document. */
interface ModelDocument {
  ownerId: string;
  acl: string;
  title: string;
  content: string;
}

type Operation =
  | { kind: "replace"; content: string; title: string; ownerId?: string }
  | { kind: "acl"; acl: string }
  | { kind: "owner"; ownerId: string }
  | { kind: "delete" };

/** The write rules as the documentation states them, written independently of `authorizeWrite`. */
function expectedAllowed(principal: Principal, existing: ModelDocument | undefined, requestedOwner: string | undefined): boolean {
  const user = principal.userName.toLowerCase();
  const admin = principal.roles.includes("admin");
  if (admin) return true;
  if (user === "") return false;
  if (existing && existing.ownerId !== user) return false;
  return requestedOwner === undefined || requestedOwner === user;
}

/**
 * Registers the property. `create` is called once; the property uses a fresh organisation.
 *
 * @example
 * ```ts
 * describeWriteRulesProperty("embedded", async () => ({ service, embeddingCalls: () => embeddings.calls, storedChunks, close }));
 * ```
 */
export function describeWriteRulesProperty(
  name: string,
  create: () => Promise<WriteRulesSubject>,
  options: WriteRulesPropertyOptions = {},
): void {
  const attempts = options.attempts ?? 300;
  const seed = options.seed ?? (Number(process.env.DOCQA_PROPERTY_SEED) || 20240515);
  const readCheckEvery = options.readCheckEvery ?? 10;
  describe(`write rules property: ${name}`, () => {
    let subject: WriteRulesSubject;
    beforeAll(async () => {
      subject = await create();
    }, 120_000);
    afterAll(async () => {
      await subject?.close();
    }, 120_000);

    it(
      `changes the store exactly as the write rules allow, over ${attempts} random attempts (seed ${seed})`,
      async () => {
        const { service } = subject;
        const orgId = options.orgId ?? `write-rules-${randomUUID()}`;
        const random = mulberry32(seed);
        const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
        const text = () => Array.from({ length: 8 + Math.floor(random() * 50) }, () => pick(words)).join(" ");
        const model = new Map<string, ModelDocument>();
        const tally = { allowed: 0, refused: 0, accessChanges: 0, readChecks: 0 };

        const snapshot = async () => {
          const page = await service.listDocuments({ orgId, principal: administrator, limit: 100 });
          return { documents: page.documents, chunks: await subject.storedChunks(orgId) };
        };
        const upsert = (principal: Principal, docId: string, document: ModelDocument, ownerId?: string) =>
          service.upsert({
            orgId,
            principal,
            documents: {
              [docId]: {
                title: document.title,
                content: document.content,
                metadata: { acl: document.acl, ...(ownerId === undefined ? {} : { owner_id: ownerId }) },
              },
            },
          });

        // A starting population, written by the administrator for random owners.
        for (const docId of documentIds.slice(0, 4)) {
          const document = { ownerId: pick(people), acl: pick(acls), title: `Title ${docId}`, content: text() };
          await upsert(administrator, docId, document, document.ownerId);
          model.set(docId, document);
        }

        for (let attempt = 1; attempt <= attempts; attempt++) {
          const where = `seed ${seed}, attempt ${attempt}`;
          const principal = pick(principals);
          const docId = pick(documentIds);
          const existing = model.get(docId);
          const operation: Operation = existing
            ? pick<Operation>([
                { kind: "replace", content: text(), title: `Title ${docId} ${attempt}` },
                { kind: "replace", content: text(), title: existing.title, ownerId: pick([...people, principal.userName]) },
                { kind: "acl", acl: pick(acls.filter((acl) => acl !== existing.acl)) },
                { kind: "owner", ownerId: pick(people) },
                { kind: "delete" },
              ])
            : pick<Operation>([
                { kind: "replace", content: text(), title: `Title ${docId} ${attempt}` },
                { kind: "replace", content: text(), title: `Title ${docId} ${attempt}`, ownerId: pick(people) },
              ]);
          const before = await snapshot();
          const callsBefore = subject.embeddingCalls();
          const requestedOwner =
            operation.kind === "owner" ? operation.ownerId : operation.kind === "replace" ? operation.ownerId : undefined;
          const allowed = expectedAllowed(principal, existing, requestedOwner);
          let expected: ModelDocument | undefined;
          let outcome: unknown;
          try {
            if (operation.kind === "delete") {
              await service.deleteDocument({ orgId, principal }, docId);
            } else {
              const base = existing ?? { ownerId: "", acl: pick(acls), title: "", content: "" };
              const next: ModelDocument =
                operation.kind === "replace"
                  ? { ...base, title: operation.title, content: operation.content }
                  : operation.kind === "acl"
                    ? { ...base, acl: operation.acl }
                    : { ...base };
              await upsert(principal, docId, next, requestedOwner);
              const ownerId = requestedOwner ?? (existing && existing.ownerId !== "" ? existing.ownerId : principal.userName);
              expected = { ...next, ownerId: ownerId.toLowerCase() };
            }
            outcome = "ok";
          } catch (error) {
            outcome = DocqaError.isInstance(error) ? error.code : error;
          }
          expect(outcome, `${where}: ${principal.userName || "(no user)"} ${operation.kind} ${docId}`).toBe(allowed ? "ok" : "forbidden");
          const after = await snapshot();
          if (!allowed) {
            tally.refused++;
            expect(after, `${where}: a refused ${operation.kind} changed the store`).toEqual(before);
            expect(subject.embeddingCalls(), `${where}: a refused write called the embedding model`).toBe(callsBefore);
          } else {
            tally.allowed++;
            if (operation.kind === "delete") model.delete(docId);
            else model.set(docId, expected as ModelDocument);
            if (operation.kind === "acl" || operation.kind === "owner") {
              tally.accessChanges++;
              expect(subject.embeddingCalls(), `${where}: an access change called the embedding model`).toBe(callsBefore);
              expect(after.chunks, `${where}: an access change changed the number of chunks`).toBe(before.chunks);
            }
          }
          const modelled = [...model]
            .sort(([left], [right]) => (left < right ? -1 : 1))
            .map(([id, document]) => ({ docId: id, ownerId: document.ownerId, acl: document.acl, title: document.title }));
          expect(
            after.documents.map((document) => ({
              docId: document.docId,
              ownerId: document.ownerId,
              acl: document.acl,
              title: document.title,
            })),
            `${where}: the stored documents differ from the model`,
          ).toEqual(modelled);
          expect(after.chunks, `${where}: chunks left behind`).toBe(
            after.documents.reduce((sum, document) => sum + document.chunkCount, 0),
          );

          if (attempt % readCheckEvery === 0) {
            tally.readChecks++;
            for (const reader of principals) {
              const readable = [...model]
                .filter(([, document]) => reader.roles.includes("admin") || canRead(reader, document))
                .map(([id]) => id)
                .sort();
              const listed = await service.listDocuments({ orgId, principal: reader, limit: 100 });
              expect(
                listed.documents.map((document) => document.docId),
                `${where}: listing of ${reader.userName || "(no user)"}`,
              ).toEqual(readable);
              const found = await service.search({ orgId, principal: reader, query: words.join(" "), limit: 50 });
              for (const result of found.results) {
                const document = model.get(result.chunk.docId);
                expect(document && canRead(reader, document), `${where}: ${reader.userName} found ${result.chunk.docId}`).toBe(true);
                expect(result.chunk.acl, `${where}: stale ACL on a chunk of ${result.chunk.docId}`).toBe(document?.acl);
                expect(result.chunk.ownerId, `${where}: stale owner on a chunk of ${result.chunk.docId}`).toBe(document?.ownerId);
              }
            }
          }
        }
        console.info(
          `[write rules property] ${name}: seed ${seed}, ${attempts} attempts: ${tally.allowed} allowed, ${tally.refused} refused, ${tally.accessChanges} access changes without re-embedding, ${tally.readChecks} read checks`,
        );
        expect(tally.allowed).toBeGreaterThan(attempts / 5);
        expect(tally.refused).toBeGreaterThan(attempts / 5);
        expect(tally.accessChanges).toBeGreaterThan(0);
      },
      options.timeoutMs ?? 300_000,
    );
  });
}
