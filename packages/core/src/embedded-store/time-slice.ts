/**
 * Cooperative time slicing for long in-memory work on the serving thread: the work calls
 * {@link TimeSlice.yieldIfDue} between small units, which lets the event loop run (I/O callbacks,
 * other requests) once the slice's budget is spent, so no single step holds the thread for long.
 * The same steps run at once, in a slice without limit, with {@link runToEnd}.
 */

/** Default budget of one slice, in milliseconds. */
export const defaultSliceBudgetMs = 5;

/** A budget of milliseconds after which the work yields to the event loop. */
export class TimeSlice {
  private started = performance.now();
  /** The longest slice so far: how long the work held the event loop at once, in milliseconds. */
  longestMs = 0;

  /** @param budgetMs - milliseconds of work between yields; default {@link defaultSliceBudgetMs}. */
  constructor(private readonly budgetMs = defaultSliceBudgetMs) {}

  /** Resolves at once while the slice has budget left; otherwise after one `setImmediate` turn, starting a new slice. */
  async yieldIfDue(): Promise<void> {
    const elapsed = performance.now() - this.started;
    if (elapsed < this.budgetMs) return;
    this.longestMs = Math.max(this.longestMs, elapsed);
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

/**
 * Runs work written as steps (a generator yielding between small units) to its end, letting the
 * event loop run whenever `slice`'s budget is spent; resolves to the generator's return value.
 */
export async function runInSlices<T = void>(steps: Iterator<void, T, void>, slice: TimeSlice): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await slice.yieldIfDue();
  }
}

/**
 * Runs the same steps to their end at once, in a slice without limit: for a caller that needs the
 * work done before it returns (a write applied to the indexes it searches next).
 */
export function runToEnd<T = void>(steps: Iterator<void, T, void>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}
