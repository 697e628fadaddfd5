/**
 * A loopback TCP proxy that puts a server "down" or makes it "hang" on demand, for fault tests
 * of the production backends: the service talks to the proxy, the proxy to the real server
 * (Redis, Milvus, OpenSearch), and the test switches the proxy's mode mid-run.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

/**
 * - `up`: forwards bytes both ways.
 * - `down`: refuses the server: every open connection is reset and new ones are closed at once,
 *   as when the server process has stopped.
 * - `hang`: accepts connections and never answers, as when the server is overloaded or a network
 *   link drops packets; clients run into their time limits.
 */
export type FaultMode = "up" | "down" | "hang";

/** A running proxy. */
export interface TcpFaultProxy {
  /** `127.0.0.1:<port>` of the proxy. */
  readonly host: string;
  readonly port: number;
  /** The current mode. */
  readonly mode: FaultMode;
  /** Switches the mode; leaving `up` drops every open connection. */
  setMode(mode: FaultMode): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free loopback port in front of `target` (`host:port`).
 *
 * @example
 * ```ts
 * const proxy = await startTcpFaultProxy("127.0.0.1:9200");
 * // point the service at http://127.0.0.1:${proxy.port}
 * proxy.setMode("down"); // requests now fail with 503
 * ```
 */
export async function startTcpFaultProxy(target: string): Promise<TcpFaultProxy> {
  const [targetHost = "127.0.0.1", targetPort = "0"] = target.split(":");
  const open = new Set<Socket>();
  let mode: FaultMode = "up";

  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };

  const server: Server = createServer((client) => {
    track(client);
    if (mode === "down") {
      client.resetAndDestroy();
      return;
    }
    if (mode === "hang") return; // Accepted, never answered.
    const upstream = tcpConnect({ host: targetHost, port: Number(targetPort) });
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;

  return {
    host: "127.0.0.1",
    port,
    get mode() {
      return mode;
    },
    setMode(next) {
      if (next !== "up") for (const socket of open) socket.resetAndDestroy();
      mode = next;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
