import { describe, expect, it } from "vitest";
import { contractTurn, createManualClock, describeMemoryStoreContract } from "../contract/describe-memory-store-contract.js";
import { createInMemoryMemoryStore } from "./in-memory-memory-store.js";
import type { ConversationKey } from "./memory-store.js";

const clock = createManualClock();
describeMemoryStoreContract(
  "in-memory",
  async () => {
    const store = createInMemoryMemoryStore({ now: clock.now });
    return { store, close: () => store.close() };
  },
  { clock },
);

const thread = (id: string): ConversationKey => ({ orgId: "acme", kind: "thread", id });
const options = { userName: "ada@example.org", ttlSeconds: 60 };

describe("in-memory memory store", () => {
  it("evicts the least recently used conversation beyond maxConversations", async () => {
    const store = createInMemoryMemoryStore({ maxConversations: 3, now: createManualClock().now });
    const questionsOf = async (id: string) => (await store.load(thread(id), 60))?.turns.map((turn) => turn.question);
    for (const id of ["a", "b", "c"]) await store.append(thread(id), [contractTurn(id)], options);
    // Using "a" makes "b" the least recently used, so "d" evicts "b" (not "a", the oldest by creation).
    expect(await questionsOf("a")).toEqual(["question a"]);
    await store.append(thread("d"), [contractTurn("d")], options);
    expect(await store.load(thread("b"), 60)).toBeUndefined();
    expect(await questionsOf("a")).toEqual(["question a"]);
    expect(await questionsOf("c")).toEqual(["question c"]);
    expect(await questionsOf("d")).toEqual(["question d"]);
    // Recency is now a, c, d (least recent first); appending to "c" makes it the most recent, so "e" evicts "a".
    await store.append(thread("c"), [contractTurn("c2")], options);
    await store.append(thread("e"), [contractTurn("e")], options);
    expect(await store.load(thread("a"), 60)).toBeUndefined();
    expect(await questionsOf("c")).toEqual(["question c", "question c2"]);
    expect(await questionsOf("d")).toEqual(["question d"]);
    expect(await questionsOf("e")).toEqual(["question e"]);
  });

  it("drops expired conversations before live ones when full", async () => {
    const clock = createManualClock();
    const store = createInMemoryMemoryStore({ maxConversations: 2, now: clock.now });
    await store.append(thread("live"), [contractTurn("1")], { ...options, ttlSeconds: 600 });
    await store.append(thread("short"), [contractTurn("1")], { ...options, ttlSeconds: 1 });
    await store.load(thread("short"), 1);
    clock.advance(2000);
    await store.append(thread("new"), [contractTurn("1")], options);
    // "short" was used last but has expired: it goes, and "live", the least recently used, stays.
    expect(await store.load(thread("short"), 1)).toBeUndefined();
    expect(await store.load(thread("live"), 600)).toEqual({ ownerUser: options.userName, turns: [contractTurn("1")] });
    expect(await store.load(thread("new"), 60)).toEqual({ ownerUser: options.userName, turns: [contractTurn("1")] });
  });

  it("expires exactly ttlSeconds after the last use, by the injected clock", async () => {
    const clock = createManualClock();
    const store = createInMemoryMemoryStore({ now: clock.now });
    await store.append(thread("t"), [contractTurn("1")], { ...options, ttlSeconds: 5 });
    clock.advance(4999);
    expect(await store.load(thread("t"), 5)).toBeDefined();
    clock.advance(4999);
    expect(await store.load(thread("t"), 5)).toBeDefined();
    clock.advance(5000);
    expect(await store.load(thread("t"), 5)).toBeUndefined();
    expect(await store.deleteUser("acme", options.userName)).toBe(0);
  });

  it("keeps no turns with maxTurns 0, and counts only live conversations in deleteUser", async () => {
    const clock = createManualClock();
    const store = createInMemoryMemoryStore({ now: clock.now });
    await store.append(thread("zero"), [contractTurn("1")], { ...options, maxTurns: 0 });
    expect(await store.load(thread("zero"), 60)).toEqual({ ownerUser: options.userName, turns: [] });
    await store.append(thread("gone"), [contractTurn("1")], { ...options, ttlSeconds: 1 });
    clock.advance(1000);
    expect(await store.deleteUser("acme", options.userName)).toBe(1);
  });
});
