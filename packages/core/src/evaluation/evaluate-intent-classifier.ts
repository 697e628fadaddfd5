/**
 * Accuracy of an intent classifier on a labelled set (by default {@link intentExamples}):
 * overall accuracy, per-intent recall and precision, and the misclassified inputs.
 */
import type { Intent } from "../intent/classify-intent.js";
import type { IntentClassifier } from "../intent/create-model-intent-classifier.js";
import { type IntentExample, intentExamples } from "./intent-examples.js";

/** Per-intent counts and rates. */
export interface IntentScore {
  /** Examples labelled with the intent. */
  support: number;
  /** Of those, classified correctly. */
  correct: number;
  /** Examples classified as the intent. */
  predicted: number;
  /** correct / support (0 when support is 0). */
  recall: number;
  /** correct / predicted (0 when predicted is 0). */
  precision: number;
}

/** Result of {@link evaluateIntentClassifier}. */
export interface IntentEvaluation {
  classifier: string;
  total: number;
  correct: number;
  /** correct / total. */
  accuracy: number;
  /** Share of examples whose `requires_rag` is right (true exactly for `question`). */
  requiresRagAccuracy: number;
  perIntent: Record<Intent, IntentScore>;
  /** Misclassified examples, in set order. */
  errors: { text: string; expected: Intent; predicted: Intent }[];
}

/** Classifies every example sequentially and scores the classifier. */
export async function evaluateIntentClassifier(
  classifier: IntentClassifier,
  examples: readonly IntentExample[] = intentExamples,
): Promise<IntentEvaluation> {
  const intents: Intent[] = ["question", "greeting", "small_talk", "feedback", "command", "out_of_scope"];
  const counts = Object.fromEntries(intents.map((intent) => [intent, { support: 0, correct: 0, predicted: 0 }])) as Record<
    Intent,
    { support: number; correct: number; predicted: number }
  >;
  const errors: IntentEvaluation["errors"] = [];
  let ragCorrect = 0;
  for (const example of examples) {
    const result = await classifier.classify(example.text);
    counts[example.intent].support++;
    counts[result.intent].predicted++;
    if (result.intent === example.intent) counts[example.intent].correct++;
    else errors.push({ text: example.text, expected: example.intent, predicted: result.intent });
    if (result.requires_rag === (example.intent === "question")) ragCorrect++;
  }
  const perIntent = Object.fromEntries(
    intents.map((intent) => {
      const { support, correct, predicted } = counts[intent];
      return [
        intent,
        { support, correct, predicted, recall: support ? correct / support : 0, precision: predicted ? correct / predicted : 0 },
      ];
    }),
  ) as Record<Intent, IntentScore>;
  const correct = examples.length - errors.length;
  return {
    classifier: classifier.name,
    total: examples.length,
    correct,
    accuracy: examples.length ? correct / examples.length : 0,
    requiresRagAccuracy: examples.length ? ragCorrect / examples.length : 0,
    perIntent,
    errors,
  };
}
