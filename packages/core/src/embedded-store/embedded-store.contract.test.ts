import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeDocumentStoresContract } from "../contract/describe-document-stores-contract.js";
import { transactionalDocumentStores } from "../stores/document-stores.js";
import { createEmbeddedStore } from "./embedded-store.js";

describeDocumentStoresContract("embedded", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "docqa-contract-"));
  const stores = transactionalDocumentStores(createEmbeddedStore({ dataDir }));
  return {
    stores,
    async close() {
      await stores.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
