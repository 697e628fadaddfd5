import { describe, expect, it } from "vitest";
import { describeConversationMemoryContract } from "../contract/describe-conversation-memory-contract.js";
import { createManualClock } from "../contract/describe-memory-store-contract.js";
import { silentLogger } from "../logging/logger.js";
import { createConversationMemory } from "./conversation-memory.js";
import { createTokenCounter, encodingForModel } from "./count-tokens.js";
import { createInMemoryMemoryStore } from "./in-memory-memory-store.js";
import type { ConversationTurn, MemoryStore } from "./memory-store.js";
import { carryPreviousTerms, isFollowUp, rewriteFollowUp } from "./rewrite-follow-up.js";
import { trimHistory } from "./trim-history.js";

const words = (text: string) => (text === "" ? 0 : text.split(/\s+/).length);
const turn = (question: string, answer = "An answer.", createdAt = 0): ConversationTurn => ({ question, answer, createdAt });

function memoryWith(store: MemoryStore, overrides: Partial<Parameters<typeof createConversationMemory>[0]> = {}) {
  return createConversationMemory({
    store,
    sessionTimeoutSeconds: 600,
    threadTimeoutSeconds: 300,
    maxSessionTokens: 500,
    countTokens: words,
    logger: silentLogger,
    ...overrides,
  });
}

describeConversationMemoryContract("in-memory", async () => {
  const store = createInMemoryMemoryStore();
  return { store, close: () => store.close() };
});

describe("conversation memory", () => {
  it("forgets a thread after THREAD_TIMEOUT and a session after SESSION_TIMEOUT (controllable clock)", async () => {
    const clock = createManualClock();
    const store = createInMemoryMemoryStore({ now: clock.now });
    const memory = memoryWith(store);
    const request = { orgId: "org", userName: "ann@x.org", threadId: "t1" };
    memory.record(request, turn("first question"));
    await memory.settled();
    clock.advance(299_000);
    expect((await memory.begin(request)).continued).toBe(true); // reading refreshes the TTL
    clock.advance(299_000);
    expect((await memory.begin(request)).continued).toBe(true);
    clock.advance(301_000);
    expect(await memory.begin(request)).toMatchObject({ history: [], continued: false });
    expect(await store.load({ orgId: "org", kind: "session", id: "ann@x.org" }, 600)).toBeUndefined(); // 900 s > 600 s
  });

  it("keeps the session until SESSION_TIMEOUT", async () => {
    const clock = createManualClock();
    const store = createInMemoryMemoryStore({ now: clock.now });
    const memory = memoryWith(store);
    memory.record({ orgId: "org", userName: "ann@x.org", threadId: "t1" }, turn("first question"));
    await memory.settled();
    clock.advance(599_000);
    expect((await store.load({ orgId: "org", kind: "session", id: "ann@x.org" }, 600))?.turns).toHaveLength(1);
    clock.advance(601_000);
    expect(await store.load({ orgId: "org", kind: "session", id: "ann@x.org" }, 600)).toBeUndefined();
  });

  it("answers without history when the store fails, and never throws when storing fails", async () => {
    const failing: MemoryStore = {
      name: "failing",
      load: async () => {
        throw new Error("down");
      },
      append: async () => {
        throw new Error("down");
      },
      deleteUser: async () => 0,
      ping: async () => {
        throw new Error("down");
      },
      close: async () => {},
    };
    const warnings: string[] = [];
    const memory = memoryWith(failing, { logger: { ...silentLogger, warn: (message) => warnings.push(message) } });
    expect(await memory.begin({ orgId: "org", userName: "ann@x.org", threadId: "t1" })).toEqual({
      threadId: "t1",
      history: [],
      continued: false,
    });
    memory.record({ orgId: "org", userName: "ann@x.org", threadId: "t1" }, turn("a private question"));
    await memory.settled();
    expect(warnings).toHaveLength(2);
    expect(warnings.join(" ")).not.toContain("private question");
  });

  it("stores in the background: record returns at once even when the store takes 2 s", async () => {
    const store = createInMemoryMemoryStore();
    const slow: MemoryStore = {
      ...store,
      append: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return store.append(...args);
      },
    };
    const memory = memoryWith(slow);
    const started = performance.now();
    memory.record({ orgId: "org", userName: "ann@x.org", threadId: "t1" }, turn("q"));
    const returnedAfter = performance.now() - started;
    expect(returnedAfter).toBeLessThan(100);
    await memory.settled();
    expect((await memory.begin({ orgId: "org", userName: "ann@x.org", threadId: "t1" })).continued).toBe(true);
  });
});

describe("follow-up rewriting", () => {
  it("recognises follow-ups by cue, back-reference or few content words", () => {
    expect(isFollowUp("and for contractors?")).toBe(true);
    expect(isFollowUp("What about part-time staff?")).toBe(true);
    expect(isFollowUp("Does it apply to interns?")).toBe(true);
    expect(isFollowUp("How many vacation days do new employees get in their first year at the company?")).toBe(true); // "their"
    expect(isFollowUp("How many vacation days do new employees get?")).toBe(false);
  });

  it("carries the previous query's topic words without repeating the question's own", () => {
    expect(carryPreviousTerms("and for contractors?", "How many vacation days do new employees get?")).toBe(
      "and for contractors? (vacation days new)",
    );
  });

  it("rewrites with the model when one is given, and falls back to the heuristic when it fails", async () => {
    const history = [turn("How many vacation days do new employees get?")];
    const model = { invoke: async () => ({ content: "How many vacation days do contractors get?" }) };
    expect(await rewriteFollowUp("and for contractors?", history, { model })).toEqual({
      query: "How many vacation days do contractors get?",
      method: "model",
    });
    const broken = {
      invoke: async () => {
        throw new Error("model down");
      },
    };
    expect(await rewriteFollowUp("and for contractors?", history, { model: broken })).toEqual({
      query: "and for contractors? (vacation days new)",
      method: "heuristic",
    });
    expect(await rewriteFollowUp("and for contractors?", [])).toEqual({ query: "and for contractors?", method: "unchanged" });
  });
});

describe("token budget", () => {
  it("counts tokens with the model family's encoding, offline", async () => {
    expect(encodingForModel("gpt-4o-mini")).toBe("o200k_base");
    expect(encodingForModel("gpt-4")).toBe("cl100k_base");
    expect(encodingForModel("llama3.1:8b")).toBe("cl100k_base");
    const count = await createTokenCounter("gpt-4o-mini");
    expect(count("")).toBe(0);
    expect(count("How many vacation days do new employees get?")).toBe(9);
  });

  it("keeps contiguous recent turns only", () => {
    const turns = [turn("a b c d e f"), turn("a"), turn("b")];
    expect(trimHistory(turns, 6, words).map((kept) => kept.question)).toEqual(["a", "b"]);
  });
});
