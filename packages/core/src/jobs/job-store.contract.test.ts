import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeJobStoreContract } from "../contract/describe-job-store-contract.js";
import { createInMemoryJobStore } from "./in-memory-job-store.js";
import { createSqliteJobStore } from "./sqlite-job-store.js";

describeJobStoreContract("in-memory", async () => {
  const store = createInMemoryJobStore();
  return { store, close: () => store.close() };
});

describeJobStoreContract("sqlite", async () => {
  const store = createSqliteJobStore(join(mkdtempSync(join(tmpdir(), "docqa-jobs-contract-")), "jobs.sqlite"));
  return { store, close: () => store.close() };
});
