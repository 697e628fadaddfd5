/**
 * The open organisation databases of the embedded store, bounded: at most `maximum` are kept
 * open (each holds three file descriptors: the database, its WAL and its shared-memory index),
 * the least recently used closed first (an LRU of `lru-cache`). A database is closed only when no
 * request is using it: one evicted while in use is closed when its last user lets go, and is
 * taken back into the cache if it is asked for again before that. So a process serving any
 * number of organisations holds a bounded number of descriptors, and no request ever finds its
 * database closed under it.
 */
import { LRUCache } from "lru-cache";

/** Something that can be closed once. */
export interface Closeable {
  close(): void;
}

/** One open handle and the requests using it. */
interface Entry<T extends Closeable> {
  handle: T;
  /** Requests using the handle now. */
  users: number;
  /** Evicted from the cache while in use: closed when `users` drops to 0. */
  evicted: boolean;
}

/** The bounded set of open handles, by organisation. */
export class OrganisationHandles<T extends Closeable> {
  private readonly cache: LRUCache<string, Entry<T>>;
  /** Evicted handles still in use, by organisation. */
  private readonly draining = new Map<string, Entry<T>>();

  /**
   * @param maximum - most handles kept open when none is in use (at least 1).
   * @param open - opens the handle of an organisation (may throw; nothing is cached then).
   */
  constructor(
    maximum: number,
    private readonly open: (orgId: string) => T,
  ) {
    this.cache = new LRUCache<string, Entry<T>>({
      max: Math.max(1, Math.floor(maximum)),
      dispose: (entry, orgId, reason) => {
        if (reason === "set") return; // never replaced while cached: see acquire
        this.retire(orgId, entry);
      },
    });
  }

  /** Number of handles open (cached plus evicted ones still in use). */
  get size(): number {
    return this.cache.size + this.draining.size;
  }

  /** Whether the organisation's handle is open. */
  has(orgId: string): boolean {
    return this.cache.has(orgId) || this.draining.has(orgId);
  }

  /**
   * Runs `action` with the organisation's handle, opening it when needed (and evicting the least
   * recently used idle handle beyond the maximum). The handle stays open until `action` settles.
   *
   * @throws whatever opening the handle or `action` throws.
   */
  use<R>(orgId: string, action: (handle: T) => R): R {
    const entry = this.acquire(orgId);
    let result: R;
    try {
      result = action(entry.handle);
    } catch (error) {
      this.release(orgId, entry);
      throw error;
    }
    if (result instanceof Promise) {
      return result.finally(() => this.release(orgId, entry)) as R;
    }
    this.release(orgId, entry);
    return result;
  }

  /** The open handles (cached, and evicted ones still in use). */
  openHandles(): T[] {
    return [...this.cache.values(), ...this.draining.values()].map((entry) => entry.handle);
  }

  /** Closes every handle now, in use or not (the store is closing). */
  closeAll(): void {
    const entries = [...this.cache.values(), ...this.draining.values()];
    this.draining.clear();
    // Clearing would dispose (retire) each cached entry; mark them evicted with no users first so
    // that each is closed exactly once, below.
    for (const entry of entries) {
      entry.users = 0;
      entry.evicted = true;
    }
    this.cache.clear();
    for (const entry of entries) closeQuietly(entry);
  }

  private acquire(orgId: string): Entry<T> {
    let entry = this.cache.get(orgId);
    if (!entry) {
      entry = this.draining.get(orgId);
      if (entry) {
        // Asked for again before its last user let go: back into the cache, not closed.
        this.draining.delete(orgId);
        entry.evicted = false;
      } else {
        entry = { handle: this.open(orgId), users: 0, evicted: false };
      }
      entry.users++;
      this.cache.set(orgId, entry);
      return entry;
    }
    entry.users++;
    return entry;
  }

  private release(orgId: string, entry: Entry<T>): void {
    entry.users = Math.max(0, entry.users - 1);
    if (entry.users === 0 && entry.evicted && this.draining.get(orgId) === entry) {
      this.draining.delete(orgId);
      closeQuietly(entry);
    }
  }

  /** Called when the cache lets go of an entry: closed now when idle, else when released. */
  private retire(orgId: string, entry: Entry<T>): void {
    if (entry.evicted) return; // closeAll closes it
    entry.evicted = true;
    if (entry.users === 0) closeQuietly(entry);
    else this.draining.set(orgId, entry);
  }
}

function closeQuietly<T extends Closeable>(entry: Entry<T>): void {
  try {
    entry.handle.close();
  } catch {
    // Closing a database that failed is not worth a request's failure.
  }
}
