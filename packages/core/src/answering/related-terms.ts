/**
 * Question terms a text states in other words: a unit's text is analysed with the question terms
 * that one of its words is related to ({@link relatedWords}: a related form, a pertainym, a
 * first-sense noun synonym) appended, so that every coverage feature of `rankEvidence` counts
 * "price" as stating the question's "cost" and "President" the question's "presidential".
 */
import { type RelatedWordsOptions, relatedWords } from "../text/related-forms.js";

/**
 * An analysis function for the context's text: `analyze(text)` plus, for each of its terms that
 * analyses a word related to a question word, that question word's term.
 *
 * @param questionWords - the question's content terms and the word each came from (`contentWords`).
 * @param analyze - the index's analyzer.
 * @param options - which relations count ({@link relatedWords}); default all.
 */
export function withRelatedTerms(
  questionWords: ReadonlyMap<string, string>,
  analyze: (text: string) => string[],
  options: RelatedWordsOptions = {},
): (text: string) => string[] {
  const questionTermsOf = new Map<string, Set<string>>();
  for (const [term, word] of questionWords) {
    for (const related of relatedWords(word, options)) {
      for (const relatedTerm of analyze(related)) {
        if (relatedTerm === term || questionWords.has(relatedTerm)) continue;
        let terms = questionTermsOf.get(relatedTerm);
        if (!terms) questionTermsOf.set(relatedTerm, (terms = new Set()));
        terms.add(term);
      }
    }
  }
  if (questionTermsOf.size === 0) return analyze;
  return (text) => {
    const terms = analyze(text);
    const added: string[] = [];
    for (const term of terms) for (const questionTerm of questionTermsOf.get(term) ?? []) added.push(questionTerm);
    return added.length === 0 ? terms : [...terms, ...added];
  };
}
