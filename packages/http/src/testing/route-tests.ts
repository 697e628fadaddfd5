/**
 * The harness of route tests: each test builds an endpoint set's app over a test service
 * (`createTestService` of `@docqa/core/testing`: deterministic embedder, extractive answerer, no
 * RAPTOR, silent logs) whose embedded store sits in a new temporary directory, and requests it
 * with `app.request(...)`, no port needed. Exported as `@docqa/http/testing`.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedStore, type EmbeddedStore, type JobStore, type RagService } from "@docqa/core";
import { createTestService, type TestServiceOptions } from "@docqa/core/testing";
import { resolveServerConfig, type ServerConfig } from "../server-config.js";

/** Server settings of a test, as `resolveServerConfig` takes them. */
type ServerOverrides = Parameters<typeof resolveServerConfig>[0];

/**
 * Options of one {@link RouteTests.harness} call: any option of `createTestService`, the server's,
 * and `routes`, passed to `mount` (for example an endpoint set's `resolvePrincipal`).
 */
export interface RouteTestOptions<RoutesOptions = Record<never, never>> extends Omit<TestServiceOptions, "stores" | "jobStore"> {
  /** Server settings over the tests' defaults (`createRouteTests`' `server`); `jwt.secret` signs the test tokens. */
  server?: ServerOverrides;
  /** Changes the embedded store the service writes, for example to count or fail its calls; default as is. */
  stores?: (store: EmbeddedStore) => EmbeddedStore;
  /**
   * Where ingestion jobs are kept: a job store, or `"configured"` for the service's own choice
   * (SQLite in the data directory); default `createTestService`'s, in memory.
   */
  jobStore?: JobStore | "configured" | undefined;
  /** Wraps the service the routes call (not the one closed afterwards), for example to make a method fail. */
  wrap?: (service: RagService) => RagService;
  /** Options of the app, given to `mount` as they are; default none. */
  routes?: RoutesOptions | undefined;
}

/** What one {@link RouteTests.harness} call builds. */
export interface RouteTest<App> {
  /** The app, from `mount`. */
  app: App;
  /** The service the app calls (`wrap`'s result when given). */
  service: RagService;
  /** The embedded store under the service, as created (before `stores` changed it). */
  store: EmbeddedStore;
  /** The server settings the app was given. */
  server: ServerConfig;
}

/** What {@link createRouteTests} returns. */
export interface RouteTests<App, RoutesOptions = Record<never, never>> {
  /** Builds a service and the app over it; the service and its directory are removed by `close`. */
  harness(options?: RouteTestOptions<RoutesOptions>): RouteTest<App>;
  /** Closes every service built so far and removes its directory; call it in `afterEach`. */
  close(): Promise<void>;
}

/**
 * The route tests of an app: `mount(service, server, routes)` builds the app (an endpoint set
 * with the given server settings and the test's `routes` options), `defaults` are the server
 * settings of every test (the JWT secret).
 *
 * @example
 * ```ts
 * const routes = createRouteTests((service, server) => predictRoutes(service, { server }), { jwt: { secret } });
 * afterEach(routes.close);
 * const { app } = routes.harness();
 * const response = await app.request("/documents", { headers: { Authorization: `Bearer ${token}` } });
 * ```
 */
export function createRouteTests<App, RoutesOptions = Record<never, never>>(
  mount: (service: RagService, server: ServerConfig, routes: RoutesOptions | undefined) => App,
  defaults: ServerOverrides = {},
): RouteTests<App, RoutesOptions> {
  const open: { service: RagService; dataDir: string }[] = [];
  return {
    harness(options = {}) {
      const { server: serverOverrides, stores, wrap, routes, config, jobStore, ...serviceOptions } = options;
      const dataDir = mkdtempSync(join(tmpdir(), "docqa-route-test-"));
      const store = createEmbeddedStore({ dataDir });
      const service = createTestService({
        ...serviceOptions,
        config: { ...config, stores: { ...config?.stores, dataDir } },
        stores: stores ? stores(store) : store,
        // An explicit undefined leaves the choice to the service (createTestService's default is in memory).
        ...(jobStore === undefined ? {} : { jobStore: jobStore === "configured" ? undefined : jobStore }),
      });
      open.push({ service, dataDir });
      const server = resolveServerConfig({ ...defaults, ...serverOverrides });
      const routed = wrap ? wrap(service) : service;
      return { app: mount(routed, server, routes), service: routed, store, server };
    },
    async close() {
      for (const { service, dataDir } of open.splice(0)) {
        await service.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
