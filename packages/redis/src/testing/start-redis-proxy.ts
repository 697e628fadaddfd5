/**
 * Test support: a TCP proxy in front of a Redis that can cut every connection and refuse new
 * ones, to simulate an outage and a recovery of a real server.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running proxy. */
export interface RedisProxy {
  /** The loopback port clients connect to. */
  port: number;
  /** Cuts every open connection and refuses new ones. */
  cut(): void;
  /** Cuts every open connection and accepts new ones without ever forwarding a byte (a hung server). */
  hang(): void;
  /** Accepts and forwards connections again. */
  restore(): void;
  /** Stops the proxy. */
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port forwarding to the Redis at `url` (`redis://host:port`). */
export async function startRedisProxy(url: string): Promise<RedisProxy> {
  const target = new URL(url);
  let mode: "open" | "refuse" | "hang" = "open";
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  };
  const server = createServer((socket) => {
    if (mode === "refuse") {
      socket.destroy();
      return;
    }
    track(socket);
    if (mode === "hang") return;
    const upstream = connect(Number(target.port || 6379), target.hostname);
    track(upstream);
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      mode = "refuse";
      cutAll();
    },
    hang() {
      mode = "hang";
      cutAll();
    },
    restore() {
      mode = "open";
    },
    async close() {
      cutAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
