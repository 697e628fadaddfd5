import { setImmediate as turn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { stopServing } from "./stop-serving.js";

/** Servers whose `close()` resolves when `drain()` is called or their connections are closed. */
function fakeServers(steps: string[]) {
  let drain: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    drain = resolve;
  });
  return {
    drain,
    close: () => {
      steps.push("servers.close");
      return closed;
    },
    closeConnections: () => {
      steps.push("servers.closeConnections");
      drain();
    },
  };
}

describe("stopServing", () => {
  it("closes the service once the requests in progress have finished, then releases the rest, in order", async () => {
    const steps: string[] = [];
    const servers = fakeServers(steps);
    const stopped = stopServing(
      {
        servers,
        service: { close: async () => void steps.push("service.close") },
        afterwards: [() => void steps.push("counters.close"), async () => void steps.push("tracing.shutdown")],
      },
      { graceMs: 60_000 },
    );
    await turn();
    expect(steps).toEqual(["servers.close"]);
    servers.drain();
    await stopped;
    expect(steps).toEqual(["servers.close", "service.close", "counters.close", "tracing.shutdown"]);
  });

  it("does not wait past the grace for a request still open: the service closes (ending its ingestion), then the connection is closed", async () => {
    const steps: string[] = [];
    await stopServing({ servers: fakeServers(steps), service: { close: async () => void steps.push("service.close") } }, { graceMs: 0 });
    expect(steps).toEqual(["servers.close", "service.close", "servers.closeConnections"]);
  });

  it("resolves only once the service has closed, so that the process never exits while ingestion workers run", async () => {
    const steps: string[] = [];
    const servers = fakeServers(steps);
    servers.drain();
    let closeService: () => void = () => {};
    const serviceClosed = new Promise<void>((resolve) => {
      closeService = resolve;
    });
    let resolved = false;
    const stopped = stopServing({ servers, service: { close: () => serviceClosed } }).then(() => {
      resolved = true;
    });
    await turn();
    await turn();
    expect(resolved).toBe(false);
    closeService();
    await stopped;
    expect(resolved).toBe(true);
  });
});
