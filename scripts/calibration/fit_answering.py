"""Fits docqa's answering models on feature dumps of the calibration splits.

Reads JSON Lines written by dump-features.mjs and fits, with scikit-learn's L2-regularised
logistic regression (lbfgs):

1. the unit scorer: which of a question's units holds a gold answer (a conditional logit over
   its units, Platt-scaled to a probability; see fit_scorer), on every question whose context
   holds a gold answer (table questions: lookups only, see AGGREGATION_CUES), each question
   weighing the same;
2. the relevance model: P(the question's source is in the index), on each question asked with
   its source in the index (1) and without it (0, out of corpus), the two sets weighing the same;
3. the answerability model: P(the question is answerable | its source is in the index), on the
   in-corpus questions (SQuAD 2.0's unanswerable ones are 0).

Thresholds are chosen by the rules printed with them (see choose_thresholds). Writes one JSON
object with the weights, thresholds and calibration figures to the --out file.

Usage: python fit_answering.py --name lexical --out fitted.json --in squad.jsonl wtq.jsonl --ooc squad-ooc.jsonl wtq-ooc.jsonl
"""

import argparse
import json
import math
import re

import numpy as np
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression

ANSWERABILITY_FEATURES = [
    "bestScore",
    "scoreMargin",
    "bestCoverage",
    "bestLocalCoverage",
    "passageCoverage",
    "contextCoverage",
    "specificity",
    "constraintsMissing",
    "missingLocal",
    "missingPassage",
    "focusKey",
    "typeMissing",
    "typeOffered",
    "negationMismatch",
    "contradicted",
    "substituted",
    "bestCell",
    "bestCommand",
    "denseMax",
    "tableScore",
]

# The relevance model reads how much of the question the context states, and how specifically:
# the best unit's and the best chunk's coverage, the specific words shared, the heaviest question
# word and the names and numbers the best unit lacks, the dense signal. Features of a unit's kind
# (cell, command) are left out: over the calibration sets they say which data set a question
# comes from (tables or prose), not whether the context is about it.
RELEVANCE_FEATURES = [
    "bestCoverage",
    "bestLocalCoverage",
    "passageCoverage",
    "contextCoverage",
    "specificity",
    "constraintsMissing",
    "missingLocal",
    "denseMax",
    "tableScore",
    "tableExplained",
]

# Regularisation strength of every fit: scikit-learn's default (C = 1), no tuning.
C = 1.0

# Questions over a table that ask for an operation over its rows (a superlative, a count, an
# order, a comparison, a sum) rather than one cell of one row. A cell is the answer only to a
# lookup, so the unit scorer is fitted on table lookups only: over aggregation questions the
# answer's row is the one the operation selects, not the one the question names, which would
# teach the scorer that naming the row does not matter. English cue words (the operations of
# Pasupat & Liang, 2015, "Compositional Semantic Parsing on Semi-Structured Tables", table 1).
AGGREGATION_CUES = re.compile(
    r"\b(how many|total|sum|average|most|least|highest|lowest|largest|smallest|biggest|longest|shortest|oldest|youngest|"
    r"earliest|latest|first|last|next|previous|before|after|more|less|fewer|greater|difference|top|bottom|best|worst|"
    r"only|same|consecutive|combined|number of|count|times|than|above|below|over|under|majority|each|every)\b",
    re.IGNORECASE,
)


def read(paths):
    questions = []
    for path in paths:
        with open(path) as handle:
            for line in handle:
                if line.strip():
                    questions.append(json.loads(line))
    return questions


def sigmoid(value):
    return 1.0 / (1.0 + math.exp(-value))


def unit_score(model, features):
    return sigmoid(model["intercept"] + sum(model["weights"].get(name, 0.0) * value for name, value in features.items()))


def fit(rows, labels, weights, names, name):
    model = LogisticRegression(C=C, max_iter=5000)
    model.fit(np.array(rows), np.array(labels), sample_weight=np.array(weights))
    return {
        "name": name,
        "intercept": round(float(model.intercept_[0]), 4),
        "weights": {feature: round(float(weight), 4) for feature, weight in zip(names, model.coef_[0])},
    }


def fit_scorer(questions, name):
    """The unit scorer: a conditional logit over each question's units, then Platt scaling.

    The scorer's job is to rank the units of one question, so its weights are fitted on the
    choice among them (McFadden's conditional logit, 1974: each question contributes
    -log(sum of exp(score) over its units holding a gold answer / sum over all its units), each
    question weighing the same, L2 penalty 1 / (2 C) on the weights as scikit-learn's). A
    feature constant within a question (a unit's kind where every unit is a table cell, as in
    WikiTableQuestions) then teaches nothing: per-unit logistic regression had read it as a base
    rate (a question with 200 cells has a lower share of gold units than one with 25 sentences)
    and pushed every record field below prose. The scores are then mapped to probabilities by
    Platt scaling (Platt, 1999: a one-feature logistic regression of the label on the score, over
    the same units and weights), which keeps the ranking and gives `bestScore` its meaning.
    """
    names = questions[0]["features"]
    per_set = {}
    for question in questions:
        if question["set"].startswith("wtq") and AGGREGATION_CUES.search(question["question"]):
            continue
        if any(unit["label"] for unit in question["units"]):
            per_set.setdefault(question["set"], []).append(question)
    groups = []
    for members in per_set.values():
        for question in members:
            units = [unit for unit in question["units"] if not unit.get("echo")]
            if any(unit["label"] for unit in units):
                groups.append((np.array([unit["f"] for unit in units], dtype=float), np.array([unit["label"] for unit in units], dtype=bool)))
    dimensions = len(names)

    def objective(weights):
        loss = 0.5 * float(weights @ weights) / C
        gradient = weights / C
        for rows, labels in groups:
            scores = rows @ weights
            top = scores.max()
            every = np.exp(scores - top)
            gold = every * labels
            loss -= math.log(gold.sum()) - math.log(every.sum())
            gradient -= (gold / gold.sum()) @ rows - (every / every.sum()) @ rows
        return loss, gradient

    solution = minimize(objective, np.zeros(dimensions), jac=True, method="L-BFGS-B", options={"maxiter": 5000})
    weights = solution.x
    # Platt scaling over the same units, each question's units sharing its weight.
    scores = np.concatenate([rows @ weights for rows, _ in groups]).reshape(-1, 1)
    labels = np.concatenate([labels for _, labels in groups]).astype(int)
    shares = np.concatenate([np.full(len(rows), 1.0 / len(rows)) for rows, _ in groups])
    platt = LogisticRegression(C=C, max_iter=5000)
    platt.fit(scores, labels, sample_weight=shares * len(shares) / shares.sum())
    slope = float(platt.coef_[0][0])
    model = {
        "name": name,
        "intercept": round(float(platt.intercept_[0]), 4),
        "weights": {feature: round(slope * float(weight), 4) for feature, weight in zip(names, weights)},
    }
    return model, {key: len(value) for key, value in per_set.items()}


def question_features(question, scorer):
    """The answerability features of a question under `scorer` (as answerabilityFeatures in TypeScript)."""
    names = question["features"]
    units = question["units"]
    if not units:
        return None, None
    scored = []
    for index, unit in enumerate(units):
        features = dict(zip(names, unit["f"]))
        scored.append((0.0 if unit.get("echo") else unit_score(scorer, features), -index, features, unit))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    best_score, _, best, unit = scored[0]
    second = scored[1][0] if len(scored) > 1 else 0.0
    dense = max([item[2]["dense"] for item in scored] + [0.0])
    features = {
        "bestScore": best_score,
        "scoreMargin": best_score - second,
        "bestCoverage": best["coverage"],
        "bestLocalCoverage": best["localCoverage"],
        "passageCoverage": question["passageCoverage"],
        "contextCoverage": question["contextCoverage"],
        "specificity": min(1.0, question["specificity"] / 2),
        "constraintsMissing": best["constraintsMissing"],
        "missingLocal": best["missingLocal"],
        "missingPassage": best["missingPassage"],
        "focusKey": best["focusKey"],
        "typeMissing": best["typeMissing"],
        "typeOffered": best["typeOffered"],
        "negationMismatch": 1.0 if question["questionNegated"] and not unit["negated"] else 0.0,
        "contradicted": float(unit["contradicted"]),
        "substituted": float(unit["substituted"]),
        "bestCell": best["cell"],
        "bestCommand": best["command"],
        "denseMax": dense if question["denseUsed"] else 0.0,
        "tableScore": question.get("tableScore", 0.0),
        "tableExplained": question.get("tableExplained", 0.0),
    }
    return features, unit


def balanced(groups):
    """Sample weights giving each group the same total weight, normalised to a mean of 1."""
    weights = []
    for members in groups:
        weights.extend([1.0 / len(members)] * len(members))
    total = sum(weights)
    return [weight * len(weights) / total for weight in weights]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--in", dest="inside", nargs="+", required=True)
    parser.add_argument("--ooc", nargs="+", required=True)
    parser.add_argument("--report-in", nargs="*", default=[], help="dumps of report splits, in corpus (never fitted on)")
    parser.add_argument("--report-ooc", nargs="*", default=[], help="dumps of report splits, out of corpus (never fitted on)")
    parser.add_argument("--near", nargs="*", default=[], help="dumps near the topic (the question's paragraph removed): a figure, never fitted on")
    parser.add_argument("--report-near", nargs="*", default=[], help="dumps of report splits near the topic (never fitted on)")
    arguments = parser.parse_args()

    inside = read(arguments.inside)
    outside = read(arguments.ooc)
    near = read(arguments.near)
    scorer, scorer_questions = fit_scorer(inside, arguments.name)

    # Question-level features under the fitted scorer.
    def featured(questions):
        result = []
        for question in questions:
            features, best = question_features(question, scorer)
            result.append((question, features, best))
        return result

    all_inside = featured(inside)
    all_outside = featured(outside)
    all_near = featured(near)
    inside_featured = [item for item in all_inside if item[1] is not None]
    outside_featured = [item for item in all_outside if item[1] is not None]

    # Relevance: in-corpus (1) against out-of-corpus (0), per set, each (set, condition) group
    # weighing the same. Near-topic questions (--near) are not fitted on: as negatives they moved
    # the threshold along the same trade-off of gold answers against near-topic declines (SQuAD
    # test, BM25, at 67.2-67.4 % gold: 66.4 % of near-topic questions declined fitted on them,
    # 66.2 % without; 2026-11-29): the lexical features do not tell the paragraph that answers
    # from its neighbours.
    groups = {}
    for question, features, _ in inside_featured + outside_featured:
        groups.setdefault((question["set"], question["condition"]), []).append((question, features))
    ordered = list(groups.values())
    rows = [[features[name] for name in RELEVANCE_FEATURES] for members in ordered for _, features in members]
    labels = [1 if question["condition"] == "in" else 0 for members in ordered for question, _ in members]
    relevance = fit(rows, labels, balanced(ordered), RELEVANCE_FEATURES, f"{arguments.name}-relevance")

    # Answerability: in-corpus questions, answerable (1) against unanswerable (0), each (set, label) group weighing the same.
    groups = {}
    for question, features, _ in inside_featured:
        groups.setdefault((question["set"], question["answerable"]), []).append((question, features))
    ordered = list(groups.values())
    rows = [[features[name] for name in ANSWERABILITY_FEATURES] for members in ordered for _, features in members]
    labels = [question["answerable"] for members in ordered for question, _ in members]
    answerability = fit(rows, labels, balanced(ordered), ANSWERABILITY_FEATURES, f"{arguments.name}-answerability")

    thresholds, table = choose_thresholds(inside_featured, outside_featured, relevance, answerability)
    relevance["threshold"] = thresholds["relevance"]
    answerability["threshold"] = thresholds["answerability"]
    result = {
        "scorer": scorer,
        "relevance": relevance,
        "answerability": answerability,
        "calibration": {
            "scorerQuestions": scorer_questions,
            "table": table,
            "figures": figures(all_inside, all_outside, relevance, answerability, all_near),
        },
    }
    if arguments.report_in:
        result["report"] = figures(
            featured(read(arguments.report_in)),
            featured(read(arguments.report_ooc)),
            relevance,
            answerability,
            featured(read(arguments.report_near)),
        )
    with open(arguments.out, "w") as handle:
        json.dump(result, handle, indent=1)
    print(json.dumps(result["calibration"], indent=1))


# Out-of-corpus questions the relevance threshold must decline on every calibration set: the
# product target (docs/answering.md: "out-of-corpus sets >= 90 % declined") plus 2 points of
# margin for sets that were not calibrated on: with the target itself (0.90), the share declined
# on SQuAD's report split fell 2.3 and 2.7 points below the calibration split's in the fits of
# 2026-11-29 (0.926 -> 0.903 and 0.917 -> 0.890), and the threshold sits where the binding
# calibration set (WikiTableQuestions' tuning half, 297 questions) just meets it.
OOC_DECLINE_TARGET = 0.92
# Abstention precision the answerability threshold must keep on the calibration questions: the
# target of 0.8 (SQuAD 2.0 test split), with 5 points of margin.
PRECISION_TARGET = 0.85


def correct_answer(question, features, best):
    """Whether the callout holds the gold answer: the answer computed over the table when its score
    is above the best unit's (as the extractive answerer chooses), else the best unit."""
    if best is None or features is None:
        return False
    if question.get("tableScore", 0.0) > features["bestScore"]:
        return question.get("tableLabel", 0) == 1
    return best["label"] == 1


def choose_thresholds(inside, outside, relevance, answerability):
    """Relevance: the highest threshold (most permissive is lowest) that still declines
    OOC_DECLINE_TARGET of the out-of-corpus questions of every calibration set, searched on a
    0.01 grid. Answerability: the threshold that maximises gold answers in the callout plus
    unanswerable questions declined, among those whose abstention precision on the calibration
    questions is at least PRECISION_TARGET."""
    grid = [step / 100 for step in range(1, 100)]

    def probabilities(items, model, names):
        return [unit_score({"intercept": model["intercept"], "weights": model["weights"]}, {name: f[name] for name in names}) for _, f, _ in items]

    rel_in = probabilities(inside, relevance, RELEVANCE_FEATURES)
    rel_out = probabilities(outside, relevance, RELEVANCE_FEATURES)
    ans_in = probabilities(inside, answerability, ANSWERABILITY_FEATURES)
    sets = sorted({question["set"] for question, _, _ in outside})
    chosen_relevance = grid[0]
    for threshold in grid:
        ok = True
        for name in sets:
            values = [p for (question, _, _), p in zip(outside, rel_out) if question["set"] == name]
            if values and sum(1 for p in values if p < threshold) / len(values) < OOC_DECLINE_TARGET:
                ok = False
        if ok:
            chosen_relevance = threshold
            break

    table = {"relevance": chosen_relevance, "ooc_declined": {}, "answerability_grid": []}
    for name in sets:
        values = [p for (question, _, _), p in zip(outside, rel_out) if question["set"] == name]
        table["ooc_declined"][name] = round(sum(1 for p in values if p < chosen_relevance) / len(values), 4)

    best_threshold, best_value = 0.0, -1.0
    for threshold in [0.0] + grid:
        stats = evaluate(inside, rel_in, ans_in, chosen_relevance, threshold)
        table["answerability_grid"].append({"threshold": threshold, **stats})
        value = stats["goldInCallout"] * stats["answerable"] + stats["abstentionRecall"] * stats["unanswerable"]
        if stats["abstentionPrecision"] >= PRECISION_TARGET and value > best_value:
            best_threshold, best_value = threshold, value
    table["answerability"] = best_threshold
    table["chosen"] = evaluate(inside, rel_in, ans_in, chosen_relevance, best_threshold)
    table["answerability_grid"] = [row for row in table["answerability_grid"] if round(row["threshold"] * 100) % 5 == 0]
    return {"relevance": chosen_relevance, "answerability": best_threshold}, table


def figures(inside, outside, relevance, answerability, near=()):
    """Per set: gold answer in the best unit among answerable questions, abstention precision and
    recall over unanswerable ones, the share of out-of-corpus questions declined (by relevance),
    and of near-topic ones (by either check, as the pipeline declines). A question whose context
    is empty counts as declined (`no_documents`)."""
    def probability(model, names, features):
        return 0.0 if features is None else unit_score(model, {key: features[key] for key in names})

    result = {}
    near = list(near)
    for name in sorted({question["set"] for question, _, _ in inside + outside + near}):
        members = [item for item in inside if item[0]["set"] == name]
        rel_in = [probability(relevance, RELEVANCE_FEATURES, f) for _, f, _ in members]
        ans_in = [probability(answerability, ANSWERABILITY_FEATURES, f) for _, f, _ in members]
        stats = evaluate(members, rel_in, ans_in, relevance["threshold"], answerability["threshold"]) if members else {}
        away = [item for item in outside if item[0]["set"] == name]
        if away:
            declined = sum(1 for _, f, _ in away if probability(relevance, RELEVANCE_FEATURES, f) < relevance["threshold"])
            stats["outOfCorpusDeclined"] = round(declined / len(away), 4)
            stats["outOfCorpus"] = len(away)
        close = [item for item in near if item[0]["set"] == name]
        if close:
            declined = sum(
                1
                for _, f, _ in close
                if probability(relevance, RELEVANCE_FEATURES, f) < relevance["threshold"]
                or probability(answerability, ANSWERABILITY_FEATURES, f) < answerability["threshold"]
            )
            stats["nearTopicDeclined"] = round(declined / len(close), 4)
            stats["nearTopic"] = len(close)
        result[name] = stats
    return result


def evaluate(inside, rel_in, ans_in, relevance_threshold, answerability_threshold):
    answerable = unanswerable = correct = abstained_unanswerable = abstained = 0
    for (question, features, best), rel, ans in zip(inside, rel_in, ans_in):
        abstain = rel < relevance_threshold or ans < answerability_threshold
        if question["answerable"]:
            answerable += 1
            if not abstain and correct_answer(question, features, best):
                correct += 1
        else:
            unanswerable += 1
            if abstain:
                abstained_unanswerable += 1
        if abstain:
            abstained += 1
    return {
        "answerable": answerable,
        "unanswerable": unanswerable,
        "goldInCallout": round(correct / answerable, 4) if answerable else 0,
        "abstentionPrecision": round(abstained_unanswerable / abstained, 4) if abstained else 1.0,
        "abstentionRecall": round(abstained_unanswerable / unanswerable, 4) if unanswerable else 0,
    }


if __name__ == "__main__":
    main()
