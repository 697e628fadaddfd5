import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWriteRulesProperty } from "../contract/describe-write-rules-property.js";
import { createEmbeddedStore } from "../embedded-store/embedded-store.js";
import { silentLogger } from "../logging/logger.js";
import { createRagService } from "../service/create-rag-service.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";

describeWriteRulesProperty(
  "embedded store",
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-write-rules-"));
    const embeddings = new DeterministicEmbeddings({ dimension: 32 });
    const store = createEmbeddedStore({ dataDir });
    const service = createRagService({
      config: {
        stores: { dataDir },
        embeddings: { dimension: 32 },
        ingestion: { useRaptor: false, chunkSize: 200, chunkOverlap: 20 },
        models: { provider: "extractive" },
        logging: { level: "silent" },
      },
      stores: store,
      embeddings,
      logger: silentLogger,
    });
    return {
      service,
      embeddingCalls: () => embeddings.calls,
      storedChunks: (orgId) => store.count(orgId),
      async close() {
        await service.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
  { attempts: 1000, readCheckEvery: 25 },
);
