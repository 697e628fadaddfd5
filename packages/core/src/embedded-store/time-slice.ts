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

  /** @param budgetMs - milliseconds of work between yields; default {@link defaultSliceBudgetMs}. */
  constructor(private readonly budgetMs = defaultSliceBudgetMs) {}

  /** Resolves at once while the slice has budget left; otherwise after one `setImmediate` turn, starting a new slice. */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

/**
 * Runs work written as steps (a generator yielding between small units) to its end, letting the
 * event loop run whenever `slice`'s budget is spent.
 */
export async function runInSlices(steps: Iterator<void, void, void>, slice: TimeSlice): Promise<void> {
  for (let step = steps.next(); !step.done; step = steps.next()) await slice.yieldIfDue();
}

/**
 * Runs the same steps to their end at once, in a slice without limit: for a caller that needs the
 * work done before it returns (a write applied to the indexes it searches next).
 */
export function runToEnd(steps: Iterator<void, void, void>): void {
  for (let step = steps.next(); !step.done; step = steps.next());
}
