/**
 * The cost model's tokenizer: o200k_base through js-tiktoken (the encoder bench/profile-tokens.ts and
 * docs/profiles.md use), built once per process. Counts are of the exact text a model would read.
 */
import { getEncoding, type Tiktoken } from "js-tiktoken";

export const ENCODING = "o200k_base";
/** Tokens a model writes per tool call (its arguments and a line of reasoning): a fixed estimate, not measured. */
export const OUTPUT_TOKENS_PER_CALL = 60;

let encoder: Tiktoken | undefined;
const cache = new Map<string, number>();

/** Tokens of `text` in o200k_base. Repeated texts (tool lists, instructions) are counted once. */
export function tokens(text: string): number {
  if (text.length > 2000) {
    const cached = cache.get(text);
    if (cached !== undefined) return cached;
  }
  encoder ??= getEncoding(ENCODING);
  const n = encoder.encode(text).length;
  if (text.length > 2000) cache.set(text, n);
  return n;
}
