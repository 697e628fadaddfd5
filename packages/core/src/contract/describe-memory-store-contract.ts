/**
 * The contract every {@link MemoryStore} passes: in memory (with a manual clock) and Redis on a
 * real server (with real, short TTLs of one to two seconds). Cases: missing conversations,
 * append and load in order with every field kept, the owner is the creator, `maxTurns`
 * trimming (default 50), sessions and threads apart, organisation isolation (including ids that
 * look like key separators), expiry, expiry refreshed by load and by append, `deleteUser`
 * deleting the user's session and threads only, and copies in and out.
 *
 * @example
 * ```ts
 * import { createManualClock, describeMemoryStoreContract } from "@docqa/core/contract";
 * const clock = createManualClock();
 * describeMemoryStoreContract("in-memory", async () => {
 *   const store = createInMemoryMemoryStore({ now: clock.now });
 *   return { store, close: () => store.close() };
 * }, { clock });
 * ```
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationKey, ConversationTurn, MemoryStore } from "../memory/memory-store.js";

/** What a memory store contract factory returns. */
export interface MemoryStoreContractSubject {
  /** The store under test. Organisation ids are fresh per test, so one store serves every test. */
  store: MemoryStore;
  /** Releases the subject: closes the store, deletes what the run wrote. */
  close(): Promise<void>;
}

/** A clock the test controls, for stores with an injectable clock. */
export interface ContractClock {
  /** Moves the clock forward by `milliseconds`. */
  advance(milliseconds: number): void;
}

/** A manual clock: `now()` returns the time set, milliseconds since the Unix epoch. */
export interface ManualClock extends ContractClock {
  now(): number;
}

/** Creates a {@link ManualClock} starting at `start` (default 2026-01-01T00:00:00Z). */
export function createManualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let time = start;
  return {
    now: () => time,
    advance(milliseconds) {
      time += milliseconds;
    },
  };
}

/** Options of {@link describeMemoryStoreContract}. */
export interface MemoryStoreContractOptions {
  /**
   * The clock the store reads, when the test controls it. Without one, expiry cases wait in real
   * time (about 10 seconds in all) with TTLs of one and two seconds.
   */
  clock?: ContractClock | undefined;
  /** Per-test timeout in milliseconds; default 30,000. */
  timeoutMs?: number;
}

/** A turn whose fields are derived from `label`. */
export function contractTurn(label: string, createdAt = Date.UTC(2026, 0, 1)): ConversationTurn {
  return { question: `question ${label}`, answer: `answer ${label}`, createdAt };
}

const questions = (turns: readonly ConversationTurn[] | undefined) => (turns ?? []).map((turn) => turn.question);

/**
 * Registers the memory store contract. `create` is called once, before the first test; each test
 * uses fresh organisation ids.
 */
export function describeMemoryStoreContract(
  name: string,
  create: () => Promise<MemoryStoreContractSubject>,
  options: MemoryStoreContractOptions = {},
): void {
  const timeout = options.timeoutMs ?? 30_000;
  const { clock } = options;
  /** Lets `milliseconds` pass, on the manual clock or in real time. */
  const elapse = async (milliseconds: number) => {
    if (clock) clock.advance(milliseconds);
    else await sleep(milliseconds);
  };

  describe(`memory store contract: ${name}`, () => {
    let subject: MemoryStoreContractSubject;
    const organisation = (label = "org") => `contract-${label}-${randomUUID()}`;
    const session = (orgId: string, userName: string): ConversationKey => ({ orgId, kind: "session", id: userName });
    const thread = (orgId: string, threadId: string): ConversationKey => ({ orgId, kind: "thread", id: threadId });
    const ada = "ada@example.org";
    const bob = "bob@example.org";
    const append = (key: ConversationKey, labels: readonly string[], userName = ada, ttlSeconds = 60, maxTurns?: number) =>
      subject.store.append(
        key,
        labels.map((label) => contractTurn(label)),
        { userName, ttlSeconds, maxTurns },
      );

    beforeAll(async () => {
      subject = await create();
    }, timeout);
    afterAll(async () => {
      await subject?.close();
    }, timeout);

    it("answers a health check while the backend is up", async () => {
      await expect(subject.store.ping()).resolves.toBeUndefined();
    });

    it("names itself", () => {
      expect(subject.store.name).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    it(
      "reads nothing for a conversation never written",
      async () => {
        const orgId = organisation();
        expect(await subject.store.load(session(orgId, ada), 60)).toBeUndefined();
        expect(await subject.store.load(thread(orgId, "never"), 60)).toBeUndefined();
      },
      timeout,
    );

    it(
      "appends turns in order, keeps every field and unicode, and records the creator as owner",
      async () => {
        const orgId = organisation();
        const key = thread(orgId, "t-1");
        const first: ConversationTurn = {
          question: 'Wie viel Urlaub habe ich? 日本語 — "quoted" \\ / \u0000 end',
          rewrittenQuery: "vacation days policy",
          answer: "30 Tage [1]. 🎉",
          citedDocIds: ["doc-1", "doc:2"],
          createdAt: 1_767_225_600_123,
        };
        const empty: ConversationTurn = { question: "", answer: "", citedDocIds: [], createdAt: 0 };
        await subject.store.append(key, [first], { userName: ada, ttlSeconds: 60 });
        await subject.store.append(key, [contractTurn("2"), empty, contractTurn("3")], { userName: bob, ttlSeconds: 60 });
        const loaded = await subject.store.load(key, 60);
        expect(loaded).toEqual({ ownerUser: ada, turns: [first, contractTurn("2"), empty, contractTurn("3")] });
        expect(loaded?.turns[0]?.citedDocIds).toEqual(["doc-1", "doc:2"]);
        expect(loaded?.turns[2]?.citedDocIds).toEqual([]);
      },
      timeout,
    );

    it(
      "keeps at most maxTurns turns, dropping the oldest, and 50 by default",
      async () => {
        const orgId = organisation();
        const key = session(orgId, ada);
        await append(key, ["1", "2", "3"], ada, 60, 2);
        expect(questions((await subject.store.load(key, 60))?.turns)).toEqual(["question 2", "question 3"]);
        await append(key, ["4"], ada, 60, 2);
        const trimmed = await subject.store.load(key, 60);
        expect(trimmed).toEqual({ ownerUser: ada, turns: [contractTurn("3"), contractTurn("4")] });
        await append(key, ["5", "6", "7"], ada, 60, 5);
        expect(questions((await subject.store.load(key, 60))?.turns)).toEqual(
          ["3", "4", "5", "6", "7"].map((label) => `question ${label}`),
        );

        const long = thread(orgId, "long");
        const labels = Array.from({ length: 55 }, (_, index) => String(index + 1));
        await append(long, labels.slice(0, 30), bob);
        await append(long, labels.slice(30), ada);
        const loaded = await subject.store.load(long, 60);
        expect(loaded?.ownerUser).toBe(bob);
        expect(questions(loaded?.turns)).toEqual(labels.slice(5).map((label) => `question ${label}`));
      },
      timeout,
    );

    it(
      "keeps sessions and threads apart, and organisations apart, including ids that look like key separators",
      async () => {
        const base = randomUUID();
        const orgId = `${base}:x`;
        await append(session(orgId, "shared"), ["session"], "shared");
        await append(thread(orgId, "shared"), ["thread"], ada);
        expect(questions((await subject.store.load(session(orgId, "shared"), 60))?.turns)).toEqual(["question session"]);
        expect(questions((await subject.store.load(thread(orgId, "shared"), 60))?.turns)).toEqual(["question thread"]);

        const lookalikes: ConversationKey[] = [
          thread(base, "x:shared"),
          thread(base, "x:thread:shared"),
          thread(`${base}:x:thread`, "shared"),
          thread(`${base}:X`, "shared"),
          thread(`${base}%3Ax`, "shared"),
          thread(`${base}:x`, "shared:"),
          thread(`${base}:x`, "Shared"),
          session(base, "x:session:shared"),
          thread(orgId, "session:shared"),
        ];
        for (const key of lookalikes) expect(await subject.store.load(key, 60)).toBeUndefined();
        const otherOrg = organisation("other");
        expect(await subject.store.load(thread(otherOrg, "shared"), 60)).toBeUndefined();
        await append(thread(otherOrg, "shared"), ["other org"], bob);
        expect(await subject.store.load(thread(otherOrg, "shared"), 60)).toEqual({ ownerUser: bob, turns: [contractTurn("other org")] });
        expect(questions((await subject.store.load(thread(orgId, "shared"), 60))?.turns)).toEqual(["question thread"]);

        // Pairs whose organisation, kind and id, joined by a separator, read the same.
        const pairs: ConversationKey[] = [
          thread(base, "x:thread:y"),
          thread(`${base}:thread:x`, "y"),
          session(base, "s:thread:t"),
          thread(`${base}:session:s`, "t"),
          thread(`${base}/x`, "y"),
          thread(base, "x/y"),
        ];
        for (const [index, key] of pairs.entries()) await append(key, [String(index)], `user-${index}`);
        for (const [index, key] of pairs.entries()) {
          expect(await subject.store.load(key, 60)).toEqual({ ownerUser: `user-${index}`, turns: [contractTurn(String(index))] });
        }
      },
      timeout,
    );

    it(
      "stores copies: changing appended or loaded turns changes nothing stored",
      async () => {
        const orgId = organisation();
        const key = thread(orgId, "copies");
        const turn: ConversationTurn = { ...contractTurn("1"), citedDocIds: ["a"] };
        const turns = [turn];
        await subject.store.append(key, turns, { userName: ada, ttlSeconds: 60 });
        turn.question = "changed";
        turns.push(contractTurn("pushed"));
        const loaded = await subject.store.load(key, 60);
        expect(loaded).toEqual({ ownerUser: ada, turns: [{ ...contractTurn("1"), citedDocIds: ["a"] }] });
        if (loaded) {
          loaded.ownerUser = bob;
          loaded.turns.push(contractTurn("x"));
        }
        expect(await subject.store.load(key, 60)).toEqual({ ownerUser: ada, turns: [{ ...contractTurn("1"), citedDocIds: ["a"] }] });
      },
      timeout,
    );

    it(
      "expires a conversation ttlSeconds after its last write",
      async () => {
        const orgId = organisation();
        await append(thread(orgId, "short"), ["1"], ada, 1);
        await append(thread(orgId, "long"), ["1"], ada, 10);
        await elapse(600);
        expect(questions((await subject.store.load(thread(orgId, "short"), 1))?.turns)).toEqual(["question 1"]);
        await elapse(1500);
        expect(await subject.store.load(thread(orgId, "short"), 1)).toBeUndefined();
        expect(await subject.store.load(thread(orgId, "long"), 10)).toBeDefined();
        await append(thread(orgId, "short"), ["new"], bob, 10);
        expect(await subject.store.load(thread(orgId, "short"), 10)).toEqual({ ownerUser: bob, turns: [contractTurn("new")] });
      },
      timeout,
    );

    it(
      "refreshes the expiry on load and on append",
      async () => {
        const orgId = organisation();
        const loaded = thread(orgId, "loaded");
        const appended = thread(orgId, "appended");
        const untouched = thread(orgId, "untouched");
        for (const key of [loaded, appended, untouched]) await append(key, ["1"], ada, 2);
        await elapse(1200);
        expect(await subject.store.load(loaded, 2)).toBeDefined();
        await append(appended, ["2"], ada, 2);
        await elapse(1200);
        expect(await subject.store.load(untouched, 2)).toBeUndefined();
        expect(questions((await subject.store.load(loaded, 2))?.turns)).toEqual(["question 1"]);
        expect(questions((await subject.store.load(appended, 2))?.turns)).toEqual(["question 1", "question 2"]);
        await elapse(2300);
        expect(await subject.store.load(loaded, 2)).toBeUndefined();
        expect(await subject.store.load(appended, 2)).toBeUndefined();
      },
      timeout,
    );

    it(
      "deleteUser deletes the user's session and the threads the user created, in that organisation only",
      async () => {
        const orgId = organisation();
        const otherOrg = organisation("other");
        await append(session(orgId, ada), ["s"], ada);
        await append(thread(orgId, "ada-1"), ["1"], ada);
        await append(thread(orgId, "ada-2"), ["1"], ada, 30);
        await append(thread(orgId, "bob-1"), ["1"], bob);
        await append(thread(orgId, "bob-1"), ["2"], ada);
        await append(session(orgId, bob), ["s"], bob);
        await append(session(otherOrg, ada), ["s"], ada);
        await append(thread(otherOrg, "ada-1"), ["1"], ada);

        expect(await subject.store.deleteUser(orgId, ada)).toBe(3);
        for (const key of [session(orgId, ada), thread(orgId, "ada-1"), thread(orgId, "ada-2")]) {
          expect(await subject.store.load(key, 60)).toBeUndefined();
        }
        expect(await subject.store.load(thread(orgId, "bob-1"), 60)).toEqual({
          ownerUser: bob,
          turns: [contractTurn("1"), contractTurn("2")],
        });
        expect(await subject.store.load(session(orgId, bob), 60)).toBeDefined();
        expect(await subject.store.load(session(otherOrg, ada), 60)).toBeDefined();
        expect(await subject.store.load(thread(otherOrg, "ada-1"), 60)).toBeDefined();
        expect(await subject.store.deleteUser(orgId, ada)).toBe(0);
        expect(await subject.store.deleteUser(organisation("empty"), ada)).toBe(0);

        await append(session(orgId, ada), ["again"], ada);
        expect(await subject.store.load(session(orgId, ada), 60)).toEqual({ ownerUser: ada, turns: [contractTurn("again")] });
        expect(await subject.store.deleteUser(orgId, ada)).toBe(1);
        expect(await subject.store.load(session(orgId, ada), 60)).toBeUndefined();
      },
      timeout,
    );

    it(
      "deleteUser spares a thread id the user once created that expired and another user created again",
      async () => {
        const orgId = organisation();
        await append(session(orgId, ada), ["s"], ada, 30);
        await append(thread(orgId, "reused"), ["ada"], ada, 1);
        await elapse(1500);
        await append(thread(orgId, "reused"), ["bob"], bob, 30);
        expect(await subject.store.deleteUser(orgId, ada)).toBe(1);
        expect(await subject.store.load(thread(orgId, "reused"), 30)).toEqual({ ownerUser: bob, turns: [contractTurn("bob")] });
      },
      timeout,
    );
  });
}
