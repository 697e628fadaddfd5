/**
 * A fixed random sample of an evaluation set (`docqa eval --sample N --seed S`): the same `N`,
 * `S` and set give the same questions on every machine and Node version.
 *
 * Method: the generator is xoroshiro128+ (Blackman and Vigna, 2018, "Scrambled linear
 * pseudorandom number generators"), seeded with `S`, from `pure-rand` (integer arithmetic only);
 * a partial Fisher–Yates shuffle (Durstenfeld, 1964, Algorithm 235) of the question positions
 * draws `N` of them, position `i` swapped with a uniform position in `[i, n - 1]`
 * (`pure-rand`'s `uniformInt`, rejection sampling, so no modulo bias); the drawn positions are
 * returned in file order, so a sample reads like the set, and a larger sample with the same seed
 * holds the smaller one (its first draws are the same).
 */
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { DocqaError } from "../errors/docqa-error.js";

/** The seed when `--sample` is given without `--seed`: an arbitrary fixed value, printed with every report. */
export const defaultSampleSeed = 1;

/** The sampling method, as printed in reports. */
export const sampleMethod = "xoroshiro128+ (pure-rand) partial Fisher-Yates, drawn positions in file order";

/**
 * `size` items of `items` drawn without replacement with `seed`, in their order in `items`; all
 * of them (in order) when `size` is at least their number.
 *
 * @param size - a non-negative integer.
 * @param seed - an integer in [-2^31, 2^32) (`pure-rand` seeds with a 32-bit integer).
 * @throws {DocqaError} `invalid_request` for a negative or fractional size or a seed out of range.
 * @example
 * ```ts
 * sampleQuestions(["a", "b", "c", "d"], 2, 7); // the same two on every run, in file order
 * ```
 */
export function sampleQuestions<T>(items: readonly T[], size: number, seed: number): T[] {
  if (!Number.isInteger(size) || size < 0)
    throw new DocqaError("invalid_request", `the sample size must be a non-negative integer, not ${size}`, { component: "evaluation" });
  if (!Number.isInteger(seed) || seed < -(2 ** 31) || seed >= 2 ** 32)
    throw new DocqaError("invalid_request", `the seed must be an integer in [-2^31, 2^32), not ${seed}`, { component: "evaluation" });
  if (size >= items.length) return [...items];
  const generator = xoroshiro128plus(seed);
  const positions = items.map((_, index) => index);
  for (let index = 0; index < size; index += 1) {
    const other = uniformInt(generator, index, positions.length - 1);
    [positions[index], positions[other]] = [positions[other] as number, positions[index] as number];
  }
  return positions
    .slice(0, size)
    .sort((left, right) => left - right)
    .map((position) => items[position] as T);
}
