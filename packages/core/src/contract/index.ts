/**
 * Contract test suites every store implementation must pass, for Vitest:
 * `import { describeDocumentStoresContract } from "@docqa/core/contract"`.
 */
export {
  type ContractDocumentOptions,
  type ContractOptions,
  type ContractSubject,
  contractDocument,
  contractEmbeddingModel,
  describeDocumentStoresContract,
} from "./describe-document-stores-contract.js";
