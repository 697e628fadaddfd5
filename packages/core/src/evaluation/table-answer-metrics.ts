/**
 * Scoring of table answers (WikiTableQuestions, Pasupat and Liang, 2015, "Compositional Semantic
 * Parsing on Semi-Structured Tables"): a question's `answers[]` is ONE answer whose items are all
 * needed (a list answer such as `["Chile", "Ecuador"]` needs both), not alternatives as in SQuAD.
 *
 * - An item is in a text when its SQuAD-normalised form (`normalizeAnswer`) occurs in the
 *   normalised text on word boundaries, or when the item is a number (`numericValue`: thousands
 *   separators, a leading currency sign or a trailing `%` allowed) equal to a number written in the
 *   text, so "1,200" and "1200" agree. The official WikiTableQuestions evaluator also compares
 *   numbers by value; the normalisation is SQuAD's so the table figures read like the SQuAD ones.
 * - Gold answer in the callout: every item is in it.
 * - Exact match and token F1: against the items joined by spaces, in the gold order
 *   (`answer-metrics.ts`).
 */
import { exactMatch, normalizeAnswer, tokenF1 } from "./answer-metrics.js";

/**
 * A written number: an optional sign, then either digit groups of three separated by commas
 * ("1,200,000") or plain digits, then an optional decimal part. Source: English number writing;
 * the comma-group form is tried first so "1,200" is one number, not "1" and "200".
 */
const numberPattern = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/g;

/** An item that is only a number: optional currency sign before, optional `%` after. */
const numericItemPattern = /^[-+]?[$€£¥]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?$/;

/**
 * The value of an item that is a number ("1,200" → 1200, "$3.5" → 3.5, "48.4%" → 48.4), or
 * null when the item is not a number alone ("17 years", "2004-05").
 */
export function numericValue(item: string): number | null {
  const trimmed = item.trim();
  if (!numericItemPattern.test(trimmed)) return null;
  const value = Number(trimmed.replace(/[$€£¥%,]/g, ""));
  return Number.isFinite(value) ? value : null;
}

/** The numbers written in `text`, by value, each whole (digits touching a match are not split off). */
export function numbersIn(text: string): number[] {
  const values: number[] = [];
  for (const match of text.matchAll(numberPattern)) {
    const start = match.index;
    const end = start + match[0].length;
    // A match inside a longer token ("A380", "3.14.1") is not a number of its own.
    if (/[\p{L}\d.]/u.test(text[start - 1] ?? "") || /[\p{L}\d]/u.test(text[end] ?? "")) continue;
    const value = Number(match[0].replace(/,/g, ""));
    if (Number.isFinite(value)) values.push(value);
  }
  return values;
}

/** Whether one answer item is in `text`: normalised containment, or an equal number. */
export function itemInText(text: string, item: string): boolean {
  const needle = normalizeAnswer(item);
  if (needle !== "" && ` ${normalizeAnswer(text)} `.includes(` ${needle} `)) return true;
  const value = numericValue(item);
  return value !== null && numbersIn(text).some((found) => found === value);
}

/** Whether every item of the answer is in `text` (false for an answer without items). */
export function containsAllItems(text: string, items: readonly string[]): boolean {
  return items.length > 0 && items.every((item) => itemInText(text, item));
}

/** Whether any item of the answer is in `text` (a cited row of a list answer holds part of it). */
export function containsAnyItem(text: string, items: readonly string[]): boolean {
  return items.some((item) => itemInText(text, item));
}

/** Exact match of `prediction` against the items joined by spaces (1 or 0). */
export function tableExactMatch(prediction: string, items: readonly string[]): number {
  return exactMatch(prediction, items.length === 0 ? [] : [items.join(" ")]);
}

/** Token F1 of `prediction` against the items joined by spaces. */
export function tableTokenF1(prediction: string, items: readonly string[]): number {
  return tokenF1(prediction, items.length === 0 ? [] : [items.join(" ")]);
}
