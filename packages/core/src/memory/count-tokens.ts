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

/** Builds an encoding's tables on first call (about half a second: they are parsed from the rank file). */
type EncoderFactory = () => Tiktoken;

const encoders = new Map<string, Promise<EncoderFactory>>();

async function loadEncoder(encoding: "o200k_base" | "cl100k_base"): Promise<EncoderFactory> {
  const { Tiktoken } = await import("js-tiktoken/lite");
  const ranks =
    encoding === "o200k_base"
      ? (await import("js-tiktoken/ranks/o200k_base")).default
      : (await import("js-tiktoken/ranks/cl100k_base")).default;
  let encoder: Tiktoken | undefined;
  return () => {
    encoder ??= new Tiktoken(ranks);
    return encoder;
  };
}

/**
 * A token counter for `modelName` (see the module documentation for the encoding chosen). The
 * rank file is loaded once per process, and its tables are built on the first count (about half a
 * second), so a process that never counts (a one-shot `docqa ask`) never pays for them.
 */
export async function createTokenCounter(modelName?: string): Promise<TokenCounter> {
  const encoding = encodingForModel(modelName);
  let factory = encoders.get(encoding);
  if (!factory) {
    factory = loadEncoder(encoding);
    encoders.set(encoding, factory);
  }
  const encoder = await factory;
  return (text) => (text === "" ? 0 : encoder().encode(text).length);
}
