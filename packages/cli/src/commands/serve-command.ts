/**
 * `docqa serve`: serves endpoint set A (default port 8002) over the configured stores.
 */
import { createRagService, loadConfig } from "@docqa/core";
import { predictRoutes } from "@docqa/predict-api";
import { serve } from "@hono/node-server";
import type { Command } from "commander";
import { createCliLogger } from "../cli-logger.js";

/** Registers `docqa serve`. */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("serve endpoint set A (/healthz, /query, /predict, /upsert; /docs, /redoc)")
    .option("--port <port>", "port (PORT)")
    .option("--host <host>", "interface to listen on (HOST); 0.0.0.0 for all")
    .option("--data-dir <directory>", "data directory (DATA_DIR)")
    .action(async (options: { port?: string; host?: string; dataDir?: string }) => {
      const config = loadConfig({
        ...process.env,
        ...(options.port ? { PORT: options.port } : {}),
        ...(options.host ? { HOST: options.host } : {}),
        ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}),
      });
      const logger = createCliLogger(config.logLevel === "debug");
      const service = createRagService({ config, logger });
      await service.ready();
      const resumed = await service.resumeIngestions();
      if (resumed > 0) process.stderr.write(`resumed ${resumed} interrupted ingestion job(s)\n`);
      const health = await service.health();
      const app = predictRoutes(service, { logger });
      const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (address) => {
        process.stderr.write(
          `docqa set A listening on http://${config.host}:${address.port} (data: ${config.dataDir}; embeddings: ${
            health.embeddings.status === "ready" ? health.embeddings.model : "unavailable, retrieval uses BM25 only"
          }; answerer: ${health.answerer}${config.jwt.secret ? "" : "; JWT_SECRET unset: authenticated routes answer 503"})\n`,
        );
      });
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`received ${signal}, stopping\n`);
        server.close(() => {
          void service.close().then(() => process.exit(0));
        });
        setTimeout(() => process.exit(0), 10_000).unref();
      };
      process.on("SIGINT", () => stop("SIGINT"));
      process.on("SIGTERM", () => stop("SIGTERM"));
    });
}
