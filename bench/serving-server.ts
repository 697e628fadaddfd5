/**
 * The server process of the serving-under-ingestion benchmark (`serving-under-ingestion.ts`):
 * both endpoint sets over one service built from the environment, as `docqa serve` builds them
 * (set B without per-user rate limits, so the hostile set measures the server, not the limiter).
 * Over its IPC channel it reports the event loop delay (`perf_hooks.monitorEventLoopDelay`, 1 ms
 * resolution, reset on every report) and the process RSS, worker threads included.
 */
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { chatRoutes } from "@docqa/chat-api";
import { createConsoleLogger, createRagService, loadConfig } from "@docqa/core";
import { loadServerConfig } from "@docqa/http";
import { predictRoutes } from "@docqa/predict-api";
import { type ServerType, serve } from "@hono/node-server";

/** What the server reports on `stats`. */
export interface ServerStats {
  /** Event loop delay since the last report, milliseconds. */
  loopDelay: { p50: number; p99: number; max: number };
  /** Resident set size of the process (serving thread and worker threads), bytes. */
  rss: number;
}

const config = loadConfig(process.env);
const server = loadServerConfig(process.env);
const service = createRagService({ config, logger: createConsoleLogger(config.logging.level) });
await service.ready();

const listen = (fetch: (request: Request) => Response | Promise<Response>) =>
  new Promise<ServerType>((resolve) => {
    const listening = serve({ fetch, port: 0, hostname: "127.0.0.1" });
    listening.once("listening", () => resolve(listening));
  });
const setA = await listen(predictRoutes(service, { server }).fetch);
const setB = await listen(chatRoutes(service, { server, rateLimit: false }).fetch);
const url = (listening: ServerType) => `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
process.on("message", (message) => {
  if (message === "stats") {
    const stats: ServerStats = {
      loopDelay: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
      rss: process.memoryUsage.rss(),
    };
    delay.reset();
    process.send?.({ stats });
  } else if (message === "stop") {
    setA.close();
    setB.close();
    void service.close().then(() => process.exit(0));
  }
});
process.send?.({ ready: { setA: url(setA), setB: url(setB) } });
