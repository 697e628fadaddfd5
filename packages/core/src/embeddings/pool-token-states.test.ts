import { describe, expect, it } from "vitest";
import { poolTokenStates } from "./pool-token-states.js";

// Two rows, three token positions, dimension 2; row 1 has one real token and two of padding.
const states = {
  data: Float32Array.from([3, 4, 1, 0, 0, 1, /* row 1 */ 0, 2, 9, 9, 9, 9]),
  rows: 2,
  tokens: 3,
  dimension: 2,
};

describe("poolTokenStates", () => {
  it("takes the first token's state for CLS pooling, L2-normalised", () => {
    const [first, second] = poolTokenStates(states, [3, 1], "cls");
    expect(Array.from(first as Float32Array)).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(Array.from(second as Float32Array)).toEqual([0, 1]);
  });

  it("averages the real tokens only for mean pooling", () => {
    const [first, second] = poolTokenStates(states, [3, 1], "mean");
    // Row 0: mean (4/3, 5/3), normalised by sqrt(41)/3; row 1: the padding (9, 9) is ignored.
    expect(first?.[0]).toBeCloseTo(4 / Math.sqrt(41), 6);
    expect(first?.[1]).toBeCloseTo(5 / Math.sqrt(41), 6);
    expect(Array.from(second as Float32Array)).toEqual([0, 1]);
  });

  it("leaves a zero vector at zero", () => {
    const zero = { data: new Float32Array(4), rows: 1, tokens: 2, dimension: 2 };
    expect(Array.from(poolTokenStates(zero, [2], "mean")[0] as Float32Array)).toEqual([0, 0]);
  });
});
