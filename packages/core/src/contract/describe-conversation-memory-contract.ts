/**
 * The contract of conversation memory over a memory store: every {@link MemoryStore} (in memory,
 * Redis) must give the question-answering pipeline the same behaviour: threads continued with
 * their history, threads private to their creator and organisation, the token budget, and the
 * privacy deletion.
 *
 * @example
 * ```ts
 * describeConversationMemoryContract("redis", async () => ({ store, close: async () => {} }));
 * ```
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../logging/logger.js";
import { type ConversationMemory, createConversationMemory } from "../memory/conversation-memory.js";
import type { ConversationTurn, MemoryStore } from "../memory/memory-store.js";

/** What a conversation memory contract factory returns. */
export interface ConversationMemorySubject {
  store: MemoryStore;
  close(): Promise<void>;
}

/** Counts whitespace-separated words: a stand-in tokenizer that makes budgets easy to reason about. */
const words = (text: string) => (text === "" ? 0 : text.split(/\s+/).length);

/** Registers the conversation memory contract for the store `create` returns. */
export function describeConversationMemoryContract(name: string, create: () => Promise<ConversationMemorySubject>): void {
  describe(`conversation memory contract: ${name}`, () => {
    let subject: ConversationMemorySubject;
    const turn = (question: string, answer = "ok ok"): ConversationTurn => ({ question, answer, createdAt: Date.now() });
    const memory = (maxSessionTokens = 500): ConversationMemory =>
      createConversationMemory({
        store: subject.store,
        sessionTimeoutSeconds: 600,
        threadTimeoutSeconds: 300,
        maxSessionTokens,
        countTokens: words,
        logger: silentLogger,
      });
    const organisation = () => `org-${randomUUID()}`;

    beforeAll(async () => {
      subject = await create();
    });
    afterAll(async () => {
      await subject?.close();
    });

    it("creates a thread id when none is given and continues a thread with its history", async () => {
      const steps = memory();
      const orgId = organisation();
      const first = await steps.begin({ orgId, userName: "ann@x.org" });
      expect(first).toMatchObject({ history: [], continued: false });
      steps.record({ orgId, userName: "ann@x.org", threadId: first.threadId }, turn("How many vacation days?"));
      await steps.settled();
      const second = await steps.begin({ orgId, userName: "Ann@X.org", threadId: first.threadId });
      expect(second.continued).toBe(true);
      expect(second.history.map((stored) => stored.question)).toEqual(["How many vacation days?"]);
    });

    it("gives the same thread id used by another user or another organisation nothing of the first", async () => {
      const steps = memory();
      const [orgA, orgB] = [organisation(), organisation()];
      steps.record({ orgId: orgA, userName: "ann@x.org", threadId: "shared-id" }, turn("secret salary question"));
      await steps.settled();
      for (const other of [
        { orgId: orgA, userName: "bob@x.org" },
        { orgId: orgB, userName: "ann@x.org" },
      ]) {
        expect(await steps.begin({ ...other, threadId: "shared-id" })).toEqual({ threadId: "shared-id", history: [], continued: false });
        steps.record({ ...other, threadId: "shared-id" }, turn("their own question"));
      }
      await steps.settled();
      const owner = await steps.begin({ orgId: orgA, userName: "ann@x.org", threadId: "shared-id" });
      expect(owner.history.map((stored) => stored.question)).toEqual(["secret salary question"]);
    });

    it("trims the history to the token budget, most recent turns first", async () => {
      const steps = memory(10);
      const request = { orgId: organisation(), userName: "ann@x.org", threadId: "t1" };
      for (const question of ["one two three", "four five six", "seven eight nine"]) {
        steps.record(request, turn(question));
        await steps.settled();
      }
      expect((await steps.begin(request)).history.map((stored) => stored.question)).toEqual(["four five six", "seven eight nine"]);
    });

    it("deletes a user's session and threads, and only theirs", async () => {
      const steps = memory();
      const orgId = organisation();
      steps.record({ orgId, userName: "ann@x.org", threadId: "t1" }, turn("q1"));
      steps.record({ orgId, userName: "bob@x.org", threadId: "t2" }, turn("q2"));
      await steps.settled();
      expect(await steps.forget(orgId, "ann@x.org")).toBe(2);
      expect((await steps.begin({ orgId, userName: "ann@x.org", threadId: "t1" })).continued).toBe(false);
      expect((await steps.begin({ orgId, userName: "bob@x.org", threadId: "t2" })).continued).toBe(true);
    });
  });
}
