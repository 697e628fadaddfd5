/**
 * Intent detection for `POST /query` without a language model: ordered pattern rules over the
 * normalised text. The intents and their meaning are documented in `docs/intents.md`.
 */

/** Intents `/query` can return. Only `question` requires retrieval-augmented answering. */
export type Intent = "question" | "greeting" | "small_talk" | "feedback" | "command" | "out_of_scope";

/** Result of intent detection (spec `POST /query` response fields). */
export interface IntentResult {
  intent: Intent;
  /** Confidence in [0, 1]. */
  confidence: number;
  /** Whether `/predict` should be called. */
  requires_rag: boolean;
}

interface Rule {
  intent: Intent;
  pattern: RegExp;
  confidence: number;
}

const rules: readonly Rule[] = [
  {
    intent: "greeting",
    pattern:
      /^(hi|hello|hey|hiya|howdy|good (morning|afternoon|evening|day)|greetings|yo)\b[\s!.,]*(there|team|all|everyone|bot)?[\s!.,]*$/,
    confidence: 0.95,
  },
  {
    intent: "feedback",
    pattern:
      /^(thanks|thank you|thx|ty|great|perfect|awesome|nice|cool|ok(ay)?|got it|that('s| is| was) (wrong|right|correct|incorrect|helpful|not helpful|useless|great|perfect)|(this|that|the) answer (is|was) (wrong|incorrect|bad|good|helpful)|wrong( answer)?|not helpful|very helpful)\b[\s!.,]*.{0,40}$/,
    confidence: 0.9,
  },
  {
    intent: "small_talk",
    pattern:
      /^(how are you|how('s| is) it going|what('s| is) up|who are you|what are you|are you (a )?(bot|human|real)|what('s| is) your name|tell me a joke|bye|goodbye|see you)\b/,
    confidence: 0.9,
  },
  {
    intent: "command",
    pattern:
      /^(please )?(delete|remove|upload|ingest|reset|clear|restart|stop|start|cancel|forget|export|download|log ?out|sign ?out|open|close|set|enable|disable|create|add|send|email|schedule)\b(?!.*\b(how|what|why|when|where|which|who)\b)/,
    confidence: 0.75,
  },
  {
    intent: "out_of_scope",
    pattern: /\b(weather|stock price|bitcoin|lottery|horoscope|sports? score|recipe for|movie times)\b/,
    confidence: 0.6,
  },
];

const questionPattern =
  /\?\s*$|^(what|who|whom|whose|when|where|why|which|how|is|are|was|were|do|does|did|can|could|should|would|will|may|might|must|has|have|had|tell me|explain|describe|list|summari[sz]e|define|compare|find|show me|give me)\b/;

/**
 * Classifies `text` by ordered rules: greeting, feedback, small talk, command, out of scope;
 * otherwise `question` (any text with a question form scores 0.9, other text 0.6, since a
 * keyword query is most likely a request for information).
 */
export function classifyIntent(text: string): IntentResult {
  const normalized = text.normalize("NFKC").trim().toLowerCase().replace(/\s+/g, " ");
  if (normalized === "") return { intent: "small_talk", confidence: 0.5, requires_rag: false };
  for (const rule of rules) {
    if (rule.pattern.test(normalized)) return { intent: rule.intent, confidence: rule.confidence, requires_rag: false };
  }
  return { intent: "question", confidence: questionPattern.test(normalized) ? 0.9 : 0.6, requires_rag: true };
}
