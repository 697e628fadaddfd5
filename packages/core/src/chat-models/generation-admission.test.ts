import { describe, expect, it } from "vitest";
import { DocqaError } from "../errors/docqa-error.js";
import { GenerationAdmission } from "./generation-admission.js";

/** Resolves after the promise callbacks queued so far have run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("GenerationAdmission", () => {
  it("runs `slots` calls at once and starts waiting calls in arrival order as slots are returned", async () => {
    const admission = new GenerationAdmission({ slots: 2, queueSize: 2 });
    const first = await admission.acquire();
    const second = await admission.acquire();
    const started: string[] = [];
    const track = (name: string) => (release: () => void) => {
      started.push(name);
      return release;
    };
    const third = admission.acquire().then(track("third"));
    const fourth = admission.acquire().then(track("fourth"));
    await settle();
    expect([admission.active, admission.waiting, started]).toEqual([2, 2, []]);
    second();
    await settle();
    expect([admission.active, admission.waiting, started]).toEqual([2, 1, ["third"]]);
    first();
    first();
    await settle();
    expect([admission.active, admission.waiting, started]).toEqual([2, 0, ["third", "fourth"]]);
    (await third)();
    (await fourth)();
    expect([admission.active, admission.waiting]).toEqual([0, 0]);
  });

  it("refuses one call more than the queue holds with model_busy and a Retry-After, and accepts again once a slot is back", async () => {
    const admission = new GenerationAdmission({ slots: 1, queueSize: 1 });
    const running = await admission.acquire();
    const waiting = admission.acquire();
    const refused = await admission.acquire().catch((error: unknown) => error);
    expect(DocqaError.isInstance(refused)).toBe(true);
    expect((refused as DocqaError).code).toBe("model_busy");
    expect((refused as DocqaError).retryAfterSeconds).toBe(5);
    expect((refused as DocqaError).publicMessage).toBe(
      "the local model is generating 1 answers and 1 more wait (LOCALLLM_SEQUENCES is 1, LOCALLLM_QUEUE_SIZE 1); retry after 5 s",
    );
    running();
    (await waiting)();
    expect([admission.active, admission.waiting]).toEqual([0, 0]);
  });

  it("with no queue refuses as soon as every slot is taken", async () => {
    const admission = new GenerationAdmission({ slots: 1, queueSize: 0 });
    const release = await admission.acquire();
    await expect(admission.acquire()).rejects.toMatchObject({ code: "model_busy" });
    release();
    (await admission.acquire())();
  });

  it("takes a waiting call whose signal aborts out of the queue, with the signal's reason", async () => {
    const admission = new GenerationAdmission({ slots: 1, queueSize: 2 });
    const running = await admission.acquire();
    const controller = new AbortController();
    const abandoned = admission.acquire(controller.signal);
    const next = admission.acquire();
    controller.abort(new Error("client went away"));
    await expect(abandoned).rejects.toThrow("client went away");
    expect(admission.waiting).toBe(1);
    running();
    (await next)();
    expect([admission.active, admission.waiting]).toEqual([0, 0]);
  });

  it("does not queue a call whose signal has already aborted", async () => {
    const admission = new GenerationAdmission({ slots: 1, queueSize: 1 });
    await expect(admission.acquire(AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
    expect([admission.active, admission.waiting]).toEqual([0, 0]);
  });

  it("refuses every waiting call when the model closes", async () => {
    const admission = new GenerationAdmission({ slots: 1, queueSize: 2 });
    await admission.acquire();
    const waiting = [admission.acquire(), admission.acquire()];
    admission.rejectWaiting(new Error("closed"));
    for (const call of waiting) await expect(call).rejects.toThrow("closed");
    expect(admission.waiting).toBe(0);
  });

  it("rejects settings that would admit nothing", () => {
    expect(() => new GenerationAdmission({ slots: 0, queueSize: 1 })).toThrow(RangeError);
    expect(() => new GenerationAdmission({ slots: 1, queueSize: -1 })).toThrow(RangeError);
  });
});
