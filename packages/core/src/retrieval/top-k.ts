/**
 * Selection of the k highest-scoring items with a bounded binary min-heap: O(n log k) time,
 * O(k) memory. Ties are broken by the lower id first, so results are deterministic.
 */

/** An item id with its score. */
export interface IdScore {
  id: number;
  score: number;
}

/** Collects the top `k` (id, score) pairs offered to it. */
export class TopK {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    this.ids = new Int32Array(Math.max(k, 1));
    this.scores = new Float64Array(Math.max(k, 1));
  }

  /** The smallest score that would still enter the heap, or `-Infinity` while it is not full. */
  get threshold(): number {
    return this.size < this.k ? Number.NEGATIVE_INFINITY : (this.scores[0] as number);
  }

  /** Offers an item; kept if it is among the best `k` so far. */
  offer(id: number, score: number): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      let index = this.size++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!this.worse(score, id, this.scores[parent] as number, this.ids[parent] as number)) break;
        this.ids[index] = this.ids[parent] as number;
        this.scores[index] = this.scores[parent] as number;
        index = parent;
      }
      this.ids[index] = id;
      this.scores[index] = score;
      return;
    }
    if (!this.worse(this.scores[0] as number, this.ids[0] as number, score, id)) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= this.size) break;
      const right = left + 1;
      let child = left;
      if (
        right < this.size &&
        this.worse(this.scores[right] as number, this.ids[right] as number, this.scores[left] as number, this.ids[left] as number)
      ) {
        child = right;
      }
      if (!this.worse(this.scores[child] as number, this.ids[child] as number, score, id)) break;
      this.ids[index] = this.ids[child] as number;
      this.scores[index] = this.scores[child] as number;
      index = child;
    }
    this.ids[index] = id;
    this.scores[index] = score;
  }

  /** The kept items, best first. */
  sorted(): IdScore[] {
    const items: IdScore[] = [];
    for (let index = 0; index < this.size; index++) {
      items.push({ id: this.ids[index] as number, score: this.scores[index] as number });
    }
    return items.sort((left, right) => right.score - left.score || left.id - right.id);
  }

  /** True when (scoreA, idA) ranks below (scoreB, idB). */
  private worse(scoreA: number, idA: number, scoreB: number, idB: number): boolean {
    return scoreA < scoreB || (scoreA === scoreB && idA > idB);
  }
}
