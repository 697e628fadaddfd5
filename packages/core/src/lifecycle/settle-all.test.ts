import { describe, expect, it } from "vitest";
import { settleAll, settlesWithin } from "./settle-all.js";

/** A live set of tasks as owners keep it: each task leaves the set once it has settled. */
function tracked() {
  const tasks = new Set<Promise<unknown>>();
  const add = (task: Promise<unknown>) => {
    tasks.add(task);
    task.then(
      () => tasks.delete(task),
      () => tasks.delete(task),
    );
  };
  return { tasks, add };
}

describe("settlesWithin", () => {
  it("is true when the work fulfils or rejects in time, false when it never settles", async () => {
    expect(await settlesWithin(Promise.resolve(1), 10_000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error("failed")), 10_000)).toBe(true);
    expect(await settlesWithin(new Promise(() => {}), 5)).toBe(false);
  });
});

describe("settleAll", () => {
  it("waits for every task, those added while it waits included", async () => {
    const { tasks, add } = tracked();
    const finished: string[] = [];
    let releaseSecond = () => {};
    add(
      new Promise<void>((resolve) => setTimeout(resolve, 5)).then(() => {
        finished.push("first");
        // A task handed out while the owner is closing is awaited too.
        add(
          new Promise<void>((resolve) => {
            releaseSecond = resolve;
          }).then(() => finished.push("second")),
        );
        setTimeout(() => releaseSecond(), 5);
      }),
    );
    expect(await settleAll(tasks, 10_000)).toBe(true);
    expect(finished).toEqual(["first", "second"]);
    expect(tasks.size).toBe(0);
  });

  it("is false once the time runs out with a task still running", async () => {
    const { tasks, add } = tracked();
    add(new Promise(() => {}));
    expect(await settleAll(tasks, 5)).toBe(false);
    expect(tasks.size).toBe(1);
  });
});
