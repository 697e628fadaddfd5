/**
 * Whether a server accepts TCP connections, for integration tests that skip (or, in CI, fail)
 * when their server is absent.
 */
import { connect } from "node:net";

/**
 * Resolves true when `url` (`http://`, `https://`, `redis://`, … with a port) accepts a TCP
 * connection within `timeoutMs` (default 2,000 ms).
 */
export function isTcpReachable(url: string, timeoutMs = 2000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(false);
    });
  });
}
