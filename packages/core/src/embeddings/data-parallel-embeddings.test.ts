import { MessageChannel } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { flattenShare, helpersThroughPort, relayShareOffers } from "../ingestion/embedding-shares.js";
import { DeterministicEmbeddings } from "../testing/deterministic-embeddings.js";
import {
  DataParallelEmbeddings,
  dealShares,
  type EmbeddingHelpers,
  shareOffered,
  shareReclaimed,
  shareTaken,
} from "./data-parallel-embeddings.js";

/** Vectors at float32 precision: shares embedded by helpers travel as `Float32Array`s. */
const float32 = (vectors: number[][]) => vectors.map((vector) => vector.map((value) => Math.fround(value)));
const texts = Array.from({ length: 100 }, (_, index) => `text ${index} ${"word ".repeat(index % 7)}`);

/** Helpers that take every share at once and embed it with `embeddings`, recording what they took. */
function eagerHelpers(count: number, embeddings = new DeterministicEmbeddings()): EmbeddingHelpers & { taken: number[] } {
  const taken: number[] = [];
  return {
    count,
    taken,
    async offer(shareTexts, claims, index) {
      if (Atomics.compareExchange(claims, index, shareOffered, shareTaken) !== shareOffered) return undefined;
      taken.push(index);
      return (await embeddings.embedDocuments([...shareTexts])).map((vector) => Float32Array.from(vector));
    },
  };
}

describe("DataParallelEmbeddings", () => {
  it("deals texts into shares of the same length mix and keeps every position once", () => {
    const shares = dealShares(["aaaa", "b", "ccc", "dd", "eeeee", "f"], 2);
    expect(shares.map((share) => share.texts)).toEqual([
      ["b", "dd", "aaaa"],
      ["f", "ccc", "eeeee"],
    ]);
    expect(shares.flatMap((share) => share.positions).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("returns the vectors of the wrapped embeddings, in input order, when helpers embed shares", async () => {
    const helpers = eagerHelpers(3);
    const parallel = new DataParallelEmbeddings(new DeterministicEmbeddings(), helpers, { minShareSize: 10 });
    expect(float32(await parallel.embedDocuments(texts))).toEqual(float32(await new DeterministicEmbeddings().embedDocuments(texts)));
    // 100 texts, shares of at least 10: ten shares (four per thread would be sixteen); eager helpers take all but the caller's.
    expect(helpers.taken.sort((left, right) => left - right)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("meets a helper that starts late in the middle: the calling thread takes shares back from the end", async () => {
    // A helper that was busy: it starts taking shares from the front once the caller has embedded its first.
    const order: string[] = [];
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reference = new DeterministicEmbeddings();
    // One helper thread: it runs the offered shares one after the other, as a worker runs its queued tasks.
    let queue: Promise<unknown> = started;
    const late: EmbeddingHelpers = {
      count: 1,
      offer(shareTexts, claims, index) {
        const run = queue.then(async () => {
          if (Atomics.compareExchange(claims, index, shareOffered, shareTaken) !== shareOffered) return undefined;
          order.push(`helper ${index}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return (await reference.embedDocuments([...shareTexts])).map((vector) => Float32Array.from(vector));
        });
        queue = run;
        return run;
      },
    };
    const inner = new DeterministicEmbeddings();
    const embed = inner.embedDocuments.bind(inner);
    let calls = 0;
    inner.embedDocuments = async (batch) => {
      calls++;
      order.push(`caller ${batch.length}`);
      if (calls === 1) release();
      await new Promise((resolve) => setTimeout(resolve, 5));
      return embed(batch);
    };
    const parallel = new DataParallelEmbeddings(inner, late, { minShareSize: 12 });
    expect(float32(await parallel.embedDocuments(texts))).toEqual(float32(await reference.embedDocuments(texts)));
    // Eight shares (four per thread): the helper took the first ones, the caller the others from the end; none twice.
    const helped = order.filter((entry) => entry.startsWith("helper")).map((entry) => Number(entry.split(" ")[1]));
    expect(helped).toEqual(Array.from({ length: helped.length }, (_, index) => index + 1));
    expect(helped.length).toBeGreaterThanOrEqual(2);
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(calls + helped.length).toBe(8);
  });

  it("takes back shares no helper started, so a call never waits for a busy thread", async () => {
    let claimSlots: Int32Array | undefined;
    // Busy helpers: they never start a share, and would never answer.
    const busy: EmbeddingHelpers = {
      count: 1,
      offer: (_texts, claims) => {
        claimSlots = claims;
        return new Promise(() => {});
      },
    };
    const inner = new DeterministicEmbeddings();
    const parallel = new DataParallelEmbeddings(inner, busy, { minShareSize: 10 });
    expect(await parallel.embedDocuments(texts)).toEqual(await new DeterministicEmbeddings().embedDocuments(texts));
    // 100 texts, shares of at least 10, one helper: eight shares, all taken back.
    expect(Array.from(claimSlots as Int32Array)).toEqual([shareOffered, ...Array.from({ length: 7 }, () => shareReclaimed)]);
    expect(inner.calls).toBe(8);
  });

  it("embeds a share itself when the helper that took it failed", async () => {
    const failing: EmbeddingHelpers = {
      count: 1,
      offer: async (_texts, claims, index) => {
        Atomics.store(claims, index, shareTaken);
        return undefined;
      },
    };
    const parallel = new DataParallelEmbeddings(new DeterministicEmbeddings(), failing, { minShareSize: 10 });
    expect(await parallel.embedDocuments(texts)).toEqual(await new DeterministicEmbeddings().embedDocuments(texts));
  });

  it("keeps small calls and queries on the calling thread", async () => {
    const helpers = eagerHelpers(3);
    const parallel = new DataParallelEmbeddings(new DeterministicEmbeddings(), helpers);
    await parallel.embedDocuments(texts.slice(0, 63));
    await parallel.embedQuery("a question");
    expect(helpers.taken).toEqual([]);
  });

  it("offers shares over a message channel, answered by the relay (the pool's side)", async () => {
    const channel = new MessageChannel();
    const reference = new DeterministicEmbeddings();
    const relayed: number[] = [];
    const close = relayShareOffers(channel.port1, async (offer) => {
      if (Atomics.compareExchange(offer.claims, offer.index, shareOffered, shareTaken) !== shareOffered) return undefined;
      relayed.push(offer.texts.length);
      return flattenShare(await reference.embedDocuments([...offer.texts]));
    });
    try {
      // A slow calling thread: the relayed share is taken before the calling thread could take it back.
      const slow = new DeterministicEmbeddings();
      const embedSlowly = slow.embedDocuments.bind(slow);
      slow.embedDocuments = async (batch) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return embedSlowly(batch);
      };
      const parallel = new DataParallelEmbeddings(slow, helpersThroughPort(channel.port2, 1), { minShareSize: 10 });
      const vectors = await parallel.embedDocuments(texts);
      expect(float32(vectors)).toEqual(float32(await reference.embedDocuments(texts)));
      // Eight shares of 12 or 13 texts: the relay took some from the front, the caller the rest from the end.
      expect(relayed.length).toBeGreaterThan(0);
      expect(relayed.every((size) => size === 12 || size === 13)).toBe(true);
    } finally {
      close();
      channel.port2.close();
    }
  });
});
