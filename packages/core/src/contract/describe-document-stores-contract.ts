/**
 * The contract every store bundle passes: the embedded store, and the server backends (Milvus,
 * Elasticsearch/OpenSearch) on real servers. It exercises stores through {@link DocumentStores},
 * the same protocol the service uses, so a backend passes only if the whole write and read path
 * holds: replace and delete, organisation isolation, ACL pre-filtering that fills top-k, safe
 * filters, metadata filters, sorted and normalisable scores, empty organisations, unicode text,
 * a 10,000-chunk batch, the embedding model check, the registry's document records and paged,
 * principal-filtered listings, counting a query's matches under the same filters, reading a
 * version's stored chunks back with their embeddings,
 * deletion of every chunk, vector, full-text entry and summary of a document, a health check
 * (`ping`) of every part, and, for staged stores, that a write failing half-way leaves nothing
 * visible and that the sweeper removes a version an interrupted write left uncommitted.
 *
 * @example
 * ```ts
 * import { describeDocumentStoresContract } from "@docqa/core/contract";
 * describeDocumentStoresContract("my store", async () => ({ stores: myStores(), close: async () => {} }));
 * ```
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe } from "vitest";
import { describeFilterCases } from "./describe-contract-filter-cases.js";
import { describeRegistryCases } from "./describe-contract-registry-cases.js";
import { describeSearchCases } from "./describe-contract-search-cases.js";
import { describeWriteCases } from "./describe-contract-write-cases.js";
import {
  type ContractContext,
  type ContractOptions,
  type ContractSubject,
  contractEmbeddingModel,
} from "./document-stores-contract-fixtures.js";

/**
 * Registers the contract suite for a store bundle. `create` is called once; each test uses fresh
 * organisation ids.
 */
export function describeDocumentStoresContract(name: string, create: () => Promise<ContractSubject>, options: ContractOptions = {}): void {
  const timeout = options.timeoutMs ?? 60_000;
  describe(`document stores contract: ${name}`, () => {
    let subject: ContractSubject;
    const context: ContractContext = {
      get subject() {
        return subject;
      },
      timeout,
      options,
      organisation: (label = "org") => `contract-${label}-${randomUUID()}`,
      write: async (orgId, documents, deleteDocIds = []) => {
        await subject.stores.write(orgId, documents, { embeddingModel: contractEmbeddingModel, deleteDocIds });
      },
    };

    beforeAll(async () => {
      subject = await create();
    }, timeout * 3);
    afterAll(async () => {
      await subject?.close();
    }, timeout);

    describeSearchCases(context);
    describeFilterCases(context);
    describeRegistryCases(context);
    describeWriteCases(context);
  });
}
