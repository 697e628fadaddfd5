/**
 * @docqa/web-ui: the docqa web page, served by `docqa serve` under `/ui` on both endpoint sets.
 * Sign in with an access token (or mint one in development), ask questions with expandable
 * citations and follow-ups in a thread, upload files with progress and per-file results, find
 * the documents you may read, and see the service's status. The page is a Preact application
 * bundled at build time; no request leaves the server.
 */
export { fileNameOf, uiAnswer } from "./ui-answer.js";
export type {
  AnswerSegment,
  UiAnswer,
  UiConfig,
  UiDocument,
  UiDocumentList,
  UiError,
  UiJob,
  UiSource,
  UiStatus,
  UiUser,
} from "./ui-api-types.js";
export { readWebUiAsset, webUiAssets, webUiContentSecurityPolicy, webUiPage } from "./ui-assets.js";
export {
  type DocumentListRequest,
  documentsPageSize,
  fileNameOfDocumentId,
  type ListDocuments,
  searchDocuments,
  type UiDocumentPage,
} from "./ui-documents.js";
export { devTokensEnabled, type WebUiRoutesOptions, webUiRoutes } from "./web-ui-routes.js";
