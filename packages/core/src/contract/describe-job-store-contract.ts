/**
 * The contract every {@link JobStore} passes: in memory, SQLite, and Redis on a real server.
 * Cases: missing jobs, save and replace, every field kept, organisation isolation (including
 * organisation ids that look like key separators), the unfinished listing across organisations,
 * copies in and out, and, as an optional capability, the same job id in two organisations.
 *
 * @example
 * ```ts
 * import { describeJobStoreContract } from "@docqa/core/contract";
 * describeJobStoreContract("my store", async () => { const store = myStore(); return { store, close: () => store.close() }; });
 * ```
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IngestionJob, JobState } from "../jobs/ingestion-job.js";
import type { JobStore } from "../jobs/job-store.js";

/** What a job store contract factory returns. */
export interface JobStoreContractSubject {
  /** The store under test. Organisation and job ids are fresh per test, so one store serves every test. */
  store: JobStore;
  /** Releases the subject: closes the store, deletes what the run wrote. */
  close(): Promise<void>;
}

/** Options of {@link describeJobStoreContract}. */
export interface JobStoreContractOptions {
  /** Per-test timeout in milliseconds; default 30,000. */
  timeoutMs?: number;
}

/** A job in `state` with every optional field absent. */
export function contractJob(jobId: string, orgId: string, state: JobState): IngestionJob {
  return {
    jobId,
    orgId,
    state,
    createdAt: "2026-01-01T00:00:00.000Z",
    files: { total: 1, processed: 0, ingested: 0, unchanged: 0, failed: 0 },
    documents: 0,
    chunks: 0,
    errors: [],
    warnings: [],
  };
}

/**
 * Registers the job store contract. `create` is called once, before the first test; each test
 * uses fresh organisation and job ids.
 */
export function describeJobStoreContract(
  name: string,
  create: () => Promise<JobStoreContractSubject>,
  options: JobStoreContractOptions = {},
): void {
  const timeout = options.timeoutMs ?? 30_000;
  describe(`job store contract: ${name}`, () => {
    let subject: JobStoreContractSubject;
    const organisation = (label = "org") => `contract-${label}-${randomUUID()}`;
    const jobId = () => `job-${randomUUID()}`;
    const unfinishedIds = async (orgIds: readonly string[]) =>
      (await subject.store.unfinished())
        .filter((job) => orgIds.includes(job.orgId))
        .map((job) => `${job.orgId}/${job.jobId}`)
        .sort();

    beforeAll(async () => {
      subject = await create();
    }, timeout);
    afterAll(async () => {
      await subject?.close();
    }, timeout);

    it("names itself", () => {
      expect(subject.store.name).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    it(
      "answers a health check while the backend is up",
      async () => {
        await expect(subject.store.ping()).resolves.toBeUndefined();
      },
      timeout,
    );

    it(
      "reads nothing for a job never saved",
      async () => {
        expect(await subject.store.get(organisation(), jobId())).toBeUndefined();
      },
      timeout,
    );

    it(
      "keeps every field of a saved job, including the resume record, errors, warnings and unicode",
      async () => {
        const orgId = organisation();
        const job: IngestionJob = {
          ...contractJob(jobId(), orgId, "running"),
          createdAt: "2026-02-03T04:05:06.789Z",
          startedAt: "2026-02-03T04:05:07.000Z",
          files: { total: 4, processed: 3, ingested: 1, unchanged: 1, failed: 1 },
          documents: 2,
          chunks: 17,
          errors: [{ file: "scan.pdf", code: "no_text_layer", message: "the PDF has no text layer" }],
          warnings: [{ file: "Åsa – notes.txt", message: "decoded from Latin-1 ✓ 日本語" }],
          resume: {
            uploader: "ada@example.org",
            metadata: { department: "R&D", tags: ["a", "b"], nested: { level: 2 } },
            files: [{ name: "Åsa – notes.txt", path: "/spool/1", docId: "doc-1", lastModified: "2026-01-01T00:00:00Z" }],
          },
        };
        await subject.store.save(job);
        expect(await subject.store.get(orgId, job.jobId)).toEqual(job);
      },
      timeout,
    );

    it(
      "replaces a job on save, and finished jobs stay readable",
      async () => {
        const orgId = organisation();
        const id = jobId();
        await subject.store.save(contractJob(id, orgId, "queued"));
        await subject.store.save({ ...contractJob(id, orgId, "running"), startedAt: "2026-01-01T00:00:01.000Z" });
        expect(await subject.store.get(orgId, id)).toMatchObject({ state: "running", startedAt: "2026-01-01T00:00:01.000Z" });
        const finished: IngestionJob = {
          ...contractJob(id, orgId, "partially_failed"),
          startedAt: "2026-01-01T00:00:01.000Z",
          finishedAt: "2026-01-01T00:00:09.000Z",
          documents: 3,
          failure: undefined,
        };
        await subject.store.save(finished);
        expect(await subject.store.get(orgId, id)).toEqual(finished);
      },
      timeout,
    );

    it(
      "isolates organisations, including ids that look like key separators",
      async () => {
        const base = randomUUID();
        const id = jobId();
        const owner = `${base}:a`;
        await subject.store.save({ ...contractJob(id, owner, "succeeded"), documents: 5 });
        for (const other of [base, `${base}:A`, `${base}:a:`, `${base}%3Aa`, `${base}_a`, `${base}:a:${id}`, "", " "]) {
          expect(await subject.store.get(other, id)).toBeUndefined();
        }
        expect(await subject.store.get(owner, `${id}:x`)).toBeUndefined();
        expect(await subject.store.get(`${base}`, `a:${id}`)).toBeUndefined();
        expect(await subject.store.get(owner, id)).toMatchObject({ orgId: owner, jobId: id, documents: 5 });

        // Pairs whose organisation and job id, joined by a separator, read the same.
        const pairs: [string, string][] = [
          [`${base}:a`, `x-${id}`],
          [base, `a:x-${id}`],
          [`${base}/a`, `y-${id}`],
          [base, `a/y-${id}`],
        ];
        for (const [index, [orgId, pairJobId]] of pairs.entries()) {
          await subject.store.save({ ...contractJob(pairJobId, orgId, "running"), documents: index });
        }
        for (const [index, [orgId, pairJobId]] of pairs.entries()) {
          expect(await subject.store.get(orgId, pairJobId)).toMatchObject({ orgId, jobId: pairJobId, documents: index });
        }
        for (const [orgId, pairJobId] of pairs) await subject.store.save(contractJob(pairJobId, orgId, "succeeded"));
      },
      timeout,
    );

    it(
      "lists queued and running jobs of every organisation as unfinished, and drops them once finished",
      async () => {
        const [first, second] = [organisation("a"), organisation("b")];
        const [queued, running, done, failed] = [jobId(), jobId(), jobId(), jobId()];
        await subject.store.save(contractJob(queued, first, "queued"));
        await subject.store.save(contractJob(running, second, "running"));
        await subject.store.save(contractJob(done, first, "succeeded"));
        await subject.store.save(contractJob(failed, second, "failed"));
        expect(await unfinishedIds([first, second])).toEqual([`${first}/${queued}`, `${second}/${running}`].sort());
        const listed = (await subject.store.unfinished()).find((job) => job.jobId === running);
        expect(listed).toEqual(contractJob(running, second, "running"));

        await subject.store.save(contractJob(queued, first, "running"));
        expect(await unfinishedIds([first, second])).toEqual([`${first}/${queued}`, `${second}/${running}`].sort());
        await subject.store.save(contractJob(queued, first, "failed"));
        await subject.store.save(contractJob(running, second, "succeeded"));
        expect(await unfinishedIds([first, second])).toEqual([]);
        await subject.store.save(contractJob(done, first, "queued"));
        expect(await unfinishedIds([first, second])).toEqual([`${first}/${done}`]);
        await subject.store.save(contractJob(done, first, "succeeded"));
      },
      timeout,
    );

    it(
      "stores copies: changing a saved or returned job changes nothing stored",
      async () => {
        const orgId = organisation();
        const job = contractJob(jobId(), orgId, "running");
        await subject.store.save(job);
        job.documents = 99;
        job.errors.push({ file: "x", code: "empty_file", message: "empty" });
        const read = (await subject.store.get(orgId, job.jobId)) as IngestionJob;
        expect(read).toMatchObject({ documents: 0, errors: [] });
        read.files.processed = 42;
        expect((await subject.store.get(orgId, job.jobId))?.files.processed).toBe(0);
      },
      timeout,
    );

    it(
      "keeps the same job id of two organisations apart",
      async () => {
        const [first, second] = [organisation("a"), organisation("b")];
        const id = jobId();
        await subject.store.save({ ...contractJob(id, first, "running"), documents: 1 });
        await subject.store.save({ ...contractJob(id, second, "queued"), documents: 2 });
        expect(await subject.store.get(first, id)).toMatchObject({ orgId: first, state: "running", documents: 1 });
        expect(await subject.store.get(second, id)).toMatchObject({ orgId: second, state: "queued", documents: 2 });
        expect(await unfinishedIds([first, second])).toEqual([`${first}/${id}`, `${second}/${id}`].sort());
        await subject.store.save(contractJob(id, first, "succeeded"));
        expect(await unfinishedIds([first, second])).toEqual([`${second}/${id}`]);
        await subject.store.save(contractJob(id, second, "succeeded"));
      },
      timeout,
    );
  });
}
