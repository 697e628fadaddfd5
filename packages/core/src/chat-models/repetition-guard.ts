/**
 * Detects a generation that has started to loop, so that it can be stopped early instead of
 * running to the token limit (small models, the 0.5B Qwen2.5-Coder in particular, repeat a
 * sentence or a list item until `max_tokens`). The rule: generation loops once some span of
 * {@link repetitionSpanTokens} consecutive tokens has occurred {@link repetitionMaxOccurrences}
 * times in the output. Every span is counted in a hash map as it completes, so checking one token
 * costs O(span) and the memory is O(output length).
 *
 * A repeated span of that length is not a loop by itself: an answer may quote the same source
 * sentence in its callout and again in a list. A loop repeats it again and again, so a loop with
 * a period of p tokens is stopped after about (occurrences − 1) × p + span tokens.
 */

/**
 * Tokens in a span (16): long enough that JSON punctuation, citation markers (`[Source: doc_1]`
 * is 7 tokens for Qwen2.5's tokenizer) and short common phrases never repeat by chance, short
 * enough that a looping list item of a few words is caught within a few periods.
 */
export const repetitionSpanTokens = 16;

/**
 * Occurrences of one span that count as a loop (4): a sentence quoted in the callout and in two
 * lists occurs 3 times and is allowed; the fourth occurrence stops generation.
 */
export const repetitionMaxOccurrences = 4;

/** Settings of {@link RepetitionGuard}; defaults {@link repetitionSpanTokens} and {@link repetitionMaxOccurrences}. */
export interface RepetitionGuardSettings {
  spanTokens?: number;
  maxOccurrences?: number;
}

/**
 * Counts the spans of a generated token sequence.
 *
 * @example
 * ```ts
 * const guard = new RepetitionGuard();
 * onToken: (tokens) => { if (guard.push(tokens)) controller.abort(); }
 * ```
 */
export class RepetitionGuard {
  readonly #span: number;
  readonly #maxOccurrences: number;
  readonly #tokens: number[] = [];
  readonly #counts = new Map<string, number>();
  #looping = false;

  constructor(settings: RepetitionGuardSettings = {}) {
    this.#span = settings.spanTokens ?? repetitionSpanTokens;
    this.#maxOccurrences = settings.maxOccurrences ?? repetitionMaxOccurrences;
    if (!Number.isInteger(this.#span) || this.#span < 1) throw new RangeError(`spanTokens must be a positive integer, got ${this.#span}`);
    if (!Number.isInteger(this.#maxOccurrences) || this.#maxOccurrences < 2) {
      throw new RangeError(`maxOccurrences must be an integer of at least 2, got ${this.#maxOccurrences}`);
    }
  }

  /** True once a span has occurred `maxOccurrences` times. */
  get looping(): boolean {
    return this.#looping;
  }

  /** Tokens seen so far. */
  get length(): number {
    return this.#tokens.length;
  }

  /** Adds generated tokens (ids); returns {@link looping}. */
  push(tokens: Iterable<number>): boolean {
    for (const token of tokens) {
      this.#tokens.push(token);
      if (this.#tokens.length < this.#span) continue;
      const key = this.#tokens.slice(this.#tokens.length - this.#span).join(",");
      const count = (this.#counts.get(key) ?? 0) + 1;
      this.#counts.set(key, count);
      if (count >= this.#maxOccurrences) this.#looping = true;
    }
    return this.#looping;
  }
}
