/**
 * Counts of a service's stores (`RagService.statistics`), read from what has been prepared so
 * far: it never prepares anything, so a metrics scrape or a status page never waits for start-up.
 */
import type { DocumentStores } from "../stores/document-stores.js";
import type { ServiceStatistics } from "./rag-service.js";

/**
 * The statistics of `stores` (undefined while they are being prepared).
 *
 * @param orgId - when given and the stores are ready, that organisation's chunks are counted too.
 * @throws {DocqaError} `store_unavailable` when the chunk count fails.
 */
export async function serviceStatistics(stores: DocumentStores | undefined, orgId?: string): Promise<ServiceStatistics> {
  const indexes = [stores?.vector, stores?.keyword].filter((index) => index !== undefined);
  const open = indexes.map((index) => index.openOrganisations?.()).filter((count) => count !== undefined);
  return {
    openOrganisationStores: open.length > 0 ? Math.max(...open) : null,
    ...(orgId !== undefined && stores ? { organisation: { orgId, chunks: await stores.keyword.count(orgId) } } : {}),
  };
}
