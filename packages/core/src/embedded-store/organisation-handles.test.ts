import { describe, expect, it } from "vitest";
import { OrganisationHandles } from "./organisation-handles.js";

/** A handle that records when it is closed. */
class FakeHandle {
  closed = 0;
  constructor(readonly orgId: string) {}
  close(): void {
    this.closed++;
  }
}

function handles(maximum: number) {
  const opened: FakeHandle[] = [];
  const cache = new OrganisationHandles<FakeHandle>(maximum, (orgId) => {
    const handle = new FakeHandle(orgId);
    opened.push(handle);
    return handle;
  });
  return { cache, opened };
}

describe("OrganisationHandles", () => {
  it("keeps at most the maximum open, closing the least recently used", () => {
    const { cache, opened } = handles(2);
    cache.use("a", () => undefined);
    cache.use("b", () => undefined);
    cache.use("a", () => undefined); // a is now the most recently used
    cache.use("c", () => undefined);
    expect(cache.size).toBe(2);
    expect(opened.map((handle) => [handle.orgId, handle.closed])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 0],
    ]);
    expect(cache.has("b")).toBe(false);
    cache.use("b", () => undefined); // reopened; a is evicted now
    expect(opened.map((handle) => [handle.orgId, handle.closed])).toEqual([
      ["a", 1],
      ["b", 1],
      ["c", 0],
      ["b", 0],
    ]);
  });

  it("closes a handle evicted while in use only when its last user lets go", async () => {
    const { cache, opened } = handles(1);
    let finish: () => void = () => {};
    const busy = cache.use("a", () => new Promise<string>((resolve) => (finish = () => resolve("done"))));
    cache.use("b", () => undefined); // evicts a, which is in use
    expect(opened[0]?.closed).toBe(0);
    expect(cache.size).toBe(2);
    finish();
    expect(await busy).toBe("done");
    expect(opened[0]?.closed).toBe(1);
    expect(cache.size).toBe(1);
  });

  it("takes back an evicted handle still in use instead of opening a second one", async () => {
    const { cache, opened } = handles(1);
    let finish: () => void = () => {};
    const busy = cache.use("a", () => new Promise<void>((resolve) => (finish = resolve)));
    cache.use("b", () => undefined);
    const again = cache.use("a", (handle) => handle);
    expect(again).toBe(opened[0]);
    finish();
    await busy;
    expect(opened.map((handle) => [handle.orgId, handle.closed])).toEqual([
      ["a", 0],
      ["b", 1],
    ]);
  });

  it("releases the handle when the action throws, and caches nothing when opening fails", () => {
    const failing = new OrganisationHandles<FakeHandle>(2, (orgId) => {
      if (orgId === "bad") throw new Error("cannot open");
      return new FakeHandle(orgId);
    });
    expect(() => failing.use("bad", () => undefined)).toThrow("cannot open");
    expect(failing.size).toBe(0);
    expect(() =>
      failing.use("a", () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(failing.size).toBe(1);
  });

  it("closes every handle once on closeAll, in use or not", async () => {
    const { cache, opened } = handles(1);
    let finish: () => void = () => {};
    const busy = cache.use("a", () => new Promise<void>((resolve) => (finish = resolve)));
    cache.use("b", () => undefined);
    cache.closeAll();
    finish();
    await busy;
    expect(opened.map((handle) => handle.closed)).toEqual([1, 1]);
    expect(cache.size).toBe(0);
  });
});
