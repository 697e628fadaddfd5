import { describe, expect, it } from "vitest";
import { generationUsage } from "./generation-usage.js";

const timings = { retrievalMs: 5, contextMs: 1, llmMs: 2000, postMs: 1, totalMs: 2007 };
const generation = { model: "m", numPredict: null, numCtx: null, fallbackReason: null, promptVersion: null };

describe("generationUsage (the tokens/s hook)", () => {
  it("is null while the service reports no token count", () => {
    expect(generationUsage({ timings, generation })).toBeNull();
    expect(generationUsage({ timings, generation: undefined })).toBeNull();
  });

  it("reads the generated tokens with the decoding time, or else the whole model phase", () => {
    expect(generationUsage({ timings, generation: { ...generation, outputTokens: 50, generationMs: 1000 } as typeof generation })).toEqual({
      outputTokens: 50,
      milliseconds: 1000,
      includesPrompt: false,
    });
    expect(generationUsage({ timings, generation: { ...generation, outputTokens: 50 } as typeof generation })).toEqual({
      outputTokens: 50,
      milliseconds: 2000,
      includesPrompt: true,
    });
  });
});
