/**
 * Token counting for the memory budget (`MAX_SESSION_TOKENS`), with OpenAI's byte-pair encodings
 * through `js-tiktoken`, which ships its rank files, so counting needs no network:
 *
 * - `o200k_base` for the GPT-4o, GPT-4.1, GPT-5 and o-series families;
 * - `cl100k_base` for GPT-4 and GPT-3.5, and as the documented approximation for every other
 *   model (Llama, Mistral and Qwen tokenizers count English within about 10–20 % of it).
 */
import type { Tiktoken } from "js-tiktoken/lite";

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** The encoding `js-tiktoken` uses for `modelName`: `o200k_base` or `cl100k_base`. */
export function encodingForModel(modelName: string | undefined): "o200k_base" | "cl100k_base" {
  const name = (modelName ?? "").toLowerCase();
  return /(^|\/)(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o)/.test(name) ? "o200k_base" : "cl100k_base";
}

const encoders = new Map<string, Promise<Tiktoken>>();

async function loadEncoder(encoding: "o200k_base" | "cl100k_base"): Promise<Tiktoken> {
  const { Tiktoken } = await import("js-tiktoken/lite");
  const ranks =
    encoding === "o200k_base"
      ? (await import("js-tiktoken/ranks/o200k_base")).default
      : (await import("js-tiktoken/ranks/cl100k_base")).default;
  return new Tiktoken(ranks);
}

/**
 * A token counter for `modelName` (see the module documentation for the encoding chosen). The
 * rank file is loaded once per process, on first use (about 100 ms).
 */
export async function createTokenCounter(modelName?: string): Promise<TokenCounter> {
  const encoding = encodingForModel(modelName);
  let encoder = encoders.get(encoding);
  if (!encoder) {
    encoder = loadEncoder(encoding);
    encoders.set(encoding, encoder);
  }
  const loaded = await encoder;
  return (text) => (text === "" ? 0 : loaded.encode(text).length);
}
