/**
 * HOOK for generation speed in `docqa eval`: the tokens a chat model generated for one answer and
 * the milliseconds it took, when the service reports them.
 *
 * `PredictResult` (and the PERF `rag_end` line) carry no token counts yet. This reads, when
 * present, `result.generation.outputTokens` (tokens generated) and `result.generation.generationMs`
 * (milliseconds from the first to the last generated token, so prompt processing is left out);
 * without `generationMs` the whole model phase (`timings.llmMs`, prompt processing included) is
 * used, and the figure is marked so. A provider that reports its counts under these names makes
 * `docqa eval` print generation tokens/s with no change here; until then the figure is "not
 * reported".
 */
import type { PredictResult } from "../service/rag-service.js";

/** Tokens and time of one answer's generation. */
export interface GenerationUsage {
  /** Tokens the model generated. */
  outputTokens: number;
  /** Milliseconds of generation. */
  milliseconds: number;
  /** True when `milliseconds` is the whole model phase (prompt processing included), not decoding alone. */
  includesPrompt: boolean;
}

/** The generation usage of `result`, or null when the service did not report a token count. */
export function generationUsage(result: {
  timings: PredictResult["timings"];
  /** Absent for results of services that report no generation (a remote endpoint). */
  generation?: PredictResult["generation"] | undefined;
}): GenerationUsage | null {
  const generation = result.generation as { outputTokens?: unknown; generationMs?: unknown } | undefined;
  const tokens = generation?.outputTokens;
  if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens <= 0) return null;
  const decodeMs = generation?.generationMs;
  if (typeof decodeMs === "number" && Number.isFinite(decodeMs) && decodeMs > 0)
    return { outputTokens: tokens, milliseconds: decodeMs, includesPrompt: false };
  const modelMs = result.timings.llmMs;
  return modelMs > 0 ? { outputTokens: tokens, milliseconds: modelMs, includesPrompt: true } : null;
}
