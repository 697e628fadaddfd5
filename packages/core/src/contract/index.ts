/**
 * Contract test suites every store implementation (and, with a real model, every chat model) must pass, for Vitest:
 * `import { describeDocumentStoresContract } from "@docqa/core/contract"`.
 */

export {
  type ChatModelContractOptions,
  type ChatModelContractSubject,
  describeChatModelContract,
} from "./describe-chat-model-contract.js";
export { type ConversationMemorySubject, describeConversationMemoryContract } from "./describe-conversation-memory-contract.js";
export { describeDocumentStoresContract } from "./describe-document-stores-contract.js";
export {
  contractJob,
  describeJobStoreContract,
  type JobStoreContractOptions,
  type JobStoreContractSubject,
} from "./describe-job-store-contract.js";
export {
  type ContractClock,
  contractTurn,
  createManualClock,
  describeMemoryStoreContract,
  type ManualClock,
  type MemoryStoreContractOptions,
  type MemoryStoreContractSubject,
} from "./describe-memory-store-contract.js";
export {
  describeWriteRulesProperty,
  type WriteRulesPropertyOptions,
  type WriteRulesSubject,
} from "./describe-write-rules-property.js";
export {
  type ContractDocumentOptions,
  type ContractOptions,
  type ContractSubject,
  contractDocument,
  contractEmbeddingModel,
} from "./document-stores-contract-fixtures.js";
