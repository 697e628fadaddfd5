/**
 * A lazily opened connection to Milvus: the client is created on the first call (so building a
 * store never fails when the server is down), every call runs under a deadline, and every
 * failure becomes a `DocqaError("store_unavailable", …, { component: "milvus", cause })`.
 */
import { DocqaError, type Logger } from "@docqa/core";
import { MilvusClient, type ResStatus } from "@zilliz/milvus2-sdk-node";

/** Settings of {@link MilvusConnection}. */
export interface MilvusConnectionSettings {
  /** Server address, for example `http://localhost:19530` (`VECTORDB_URI`). */
  address: string;
  /** Token, `user:password` or an API key (`VECTORDB_TOKEN`); default none. */
  token?: string | undefined;
  /** Deadline of each call in milliseconds (`STORE_TIMEOUT_MS`). */
  timeoutMs: number;
  logger: Logger;
}

/** Options of {@link MilvusConnection.call}. */
export interface CallOptions {
  /** Deadline of this call; default the connection's. */
  timeoutMs?: number | undefined;
  /** Cancels the call; it then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** A Milvus response whose status is not success. */
export class MilvusStatusError extends Error {
  constructor(
    readonly operation: string,
    readonly status: Pick<ResStatus, "error_code" | "reason"> & { code?: number | undefined },
  ) {
    super(`${operation}: ${status.reason || String(status.error_code)}`);
    this.name = "MilvusStatusError";
  }

  /** The collection does not exist. */
  get collectionMissing(): boolean {
    return (
      this.status.error_code === "CollectionNotExists" || this.status.code === 100 || /does not exist|not found/i.test(this.status.reason)
    );
  }

  /** The collection exists but is not loaded (for example after a server restart). */
  get collectionNotLoaded(): boolean {
    return this.status.code === 101 || /not loaded|released|call load/i.test(this.status.reason);
  }

  /** Another client created the collection first. */
  get alreadyExists(): boolean {
    return /already exist/i.test(this.status.reason);
  }
}

/**
 * Returns `response` when its status (its `status` field, or itself for a bare status) is
 * success.
 *
 * @throws {MilvusStatusError} otherwise.
 */
export function checkStatus<T>(operation: string, response: T): T {
  const status = statusOf(response);
  if (status && !isSuccess(status)) throw new MilvusStatusError(operation, status);
  return response;
}

/** The lazily connected client. */
export class MilvusConnection {
  private connecting: Promise<MilvusClient> | undefined;
  private version: Promise<string> | undefined;

  constructor(private readonly settings: MilvusConnectionSettings) {}

  /** The server address, for messages. */
  get address(): string {
    return this.settings.address;
  }

  /**
   * Runs `action` with the client under a deadline of `options.timeoutMs` (connecting first when
   * needed). `action` receives the deadline to pass as the SDK's per-request `timeout`.
   *
   * @throws {DocqaError} `store_unavailable` when the server is unreachable, refuses the request
   *   or does not answer in time (the cause is a {@link MilvusStatusError} for refusals); an error
   *   `action` throws as a `DocqaError` passes through unchanged.
   */
  async call<T>(operation: string, action: (client: MilvusClient, timeoutMs: number) => Promise<T>, options: CallOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const signal = options.signal;
    signal?.throwIfAborted();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceeded(timeoutMs)), timeoutMs);
      if (signal) {
        onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    const work = (async () => action(await this.client(), timeoutMs))();
    try {
      return await Promise.race([work, deadline]);
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      // A dead or hung connection is dropped, so the next call dials again instead of waiting
      // out gRPC's reconnect backoff (up to two minutes) after the server is back.
      if (isTransportFailure(error)) this.dropClient();
      throw this.storeError(operation, error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The server's version string (for example `v2.5.4`, or `milvus_lite-3.2.2`), read once. */
  serverVersion(options: CallOptions = {}): Promise<string> {
    this.version ??= this.call("read the server version", async (client) => (await client.getVersion()).version ?? "", options).catch(
      (error: unknown) => {
        this.version = undefined;
        throw error;
      },
    );
    return this.version;
  }

  /** Closes the client, if one was opened. Later calls reconnect. */
  async close(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    this.version = undefined;
    if (!connecting) return;
    const client = await connecting.catch(() => undefined);
    await client?.closeConnection().catch(() => undefined);
  }

  private dropClient(): void {
    const connecting = this.connecting;
    this.connecting = undefined;
    this.version = undefined;
    void connecting?.then((client) => client.closeConnection()).catch(() => undefined);
  }

  private client(): Promise<MilvusClient> {
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  private async connect(): Promise<MilvusClient> {
    const client = new MilvusClient({
      address: this.settings.address,
      token: this.settings.token,
      timeout: this.settings.timeoutMs,
      logLevel: "error",
      telemetry: { enabled: false },
      // Each client gets its own gRPC subchannels: with grpc-js's global pool, a new client would
      // inherit the old one's reconnect backoff after an outage and stay unavailable for minutes.
      // Reconnects back off from 200 ms to at most STORE_TIMEOUT_MS.
      channelOptions: {
        "grpc.use_local_subchannel_pool": 1,
        "grpc.initial_reconnect_backoff_ms": 200,
        "grpc.max_reconnect_backoff_ms": Math.max(1000, this.settings.timeoutMs),
      },
      __SKIP_CONNECT__: true,
    });
    client.connect(MilvusClient.sdkInfo.version);
    try {
      await client.connectPromise;
    } catch (error) {
      await client.closeConnection().catch(() => undefined);
      throw error;
    }
    this.settings.logger.debug("connected to Milvus", { component: "milvus", address: this.settings.address });
    return client;
  }

  private storeError(operation: string, error: unknown): DocqaError {
    if (DocqaError.isInstance(error)) return error;
    const options = { component: "milvus", cause: error };
    if (error instanceof DeadlineExceeded) {
      return new DocqaError(
        "store_unavailable",
        `Milvus at ${this.address} did not ${operation} within ${error.timeoutMs} ms (STORE_TIMEOUT_MS)`,
        options,
      );
    }
    if (error instanceof MilvusStatusError) {
      return new DocqaError("store_unavailable", `Milvus at ${this.address} could not ${operation}: ${error.status.reason}`, options);
    }
    const message = messageOf(error);
    if (/UNAVAILABLE|ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|No connection established|Failed to connect/i.test(message)) {
      return new DocqaError(
        "store_unavailable",
        `VECTORDB_URI ${this.address} is unreachable (${message}): start Milvus or unset VECTORDB_URI to use the embedded store`,
        options,
      );
    }
    if (/DEADLINE_EXCEEDED/i.test(message)) {
      return new DocqaError(
        "store_unavailable",
        `Milvus at ${this.address} did not ${operation} in time (STORE_TIMEOUT_MS): ${message}`,
        options,
      );
    }
    return new DocqaError("store_unavailable", `Milvus at ${this.address} could not ${operation}: ${message}`, options);
  }
}

class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`deadline of ${timeoutMs} ms exceeded`);
  }
}

function statusOf(response: unknown): (ResStatus & { code?: number }) | undefined {
  if (typeof response !== "object" || response === null) return undefined;
  const record = response as Record<string, unknown>;
  if (typeof record.status === "object" && record.status !== null) return record.status as ResStatus;
  if ("error_code" in record) return record as unknown as ResStatus;
  return undefined;
}

function isSuccess(status: ResStatus & { code?: number }): boolean {
  const code = status.code ?? 0;
  return (status.error_code === "Success" || status.error_code === 0 || status.error_code === undefined) && code === 0;
}

/** The message of a thrown value; the SDK sometimes throws bare status objects. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null) {
    const record = error as Record<string, unknown>;
    if (typeof record.reason === "string" && record.reason !== "") return record.reason;
    if (typeof record.message === "string") return record.message;
    return JSON.stringify(error);
  }
  return String(error);
}

/**
 * Turns a value the SDK threw (a bare status object or an Error) into a {@link MilvusStatusError}
 * when it carries a status, so callers can inspect it; other values are returned unchanged.
 */
export function asStatusError(operation: string, error: unknown): unknown {
  if (error instanceof MilvusStatusError || error instanceof Error) return error;
  const status = statusOf(error);
  return status ? new MilvusStatusError(operation, status) : error;
}

/** Whether `error` means the server could not be reached or did not answer in time. */
function isTransportFailure(error: unknown): boolean {
  if (error instanceof DeadlineExceeded) return true;
  if (error instanceof MilvusStatusError) return false;
  return /UNAVAILABLE|ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|No connection established|Failed to connect|DEADLINE_EXCEEDED/i.test(
    messageOf(error),
  );
}
