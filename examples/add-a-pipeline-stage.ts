/**
 * Adding a stage to the request pipeline: a stage is an object with a `name`, an optional PERF
 * `phase`, and `run(state, runtime)`, which reads and writes the request state. This example
 * adds two: docqa's optional MMR diversity stage (one line of configuration), and a stage of your
 * own that drops very short chunks before the context is built. Run after `npm run build`:
 * `node examples/add-a-pipeline-stage.ts`.
 */
import { createRagService } from "@docqa/core";
import { composeEdits, diversifyResults, insertAfter, insertBefore, type RetrievalState, type Stage } from "@docqa/core/pipeline";

/** Your own stage: keeps chunks of at least `minimumChars` characters. */
const dropShortChunks = (minimumChars: number): Stage<RetrievalState> => ({
  name: "drop-short-chunks",
  run(state) {
    state.chunks = state.chunks.filter((result) => result.chunk.text.length >= minimumChars);
  },
});

const service = createRagService({
  config: { stores: { dataDir: "./data/example-stages" }, embeddings: { provider: "none" }, models: { provider: "extractive" } },
  stages: {
    predict: composeEdits(
      insertAfter("rerank", diversifyResults({ lambda: 0.7 })), // near-duplicates no longer fill the top-k
      insertBefore("build-context", dropShortChunks(20)),
    ),
  },
});
const principal = { userName: "ann@northwind.example", roles: [], groups: [] };
await service.upsert({
  orgId: "northwind",
  principal,
  uploader: principal.userName,
  documents: {
    "remote-2023": { title: "Remote work (2023)", content: "Remote work is allowed two days per week with manager approval." },
    "remote-2024": { title: "Remote work (2024)", content: "Remote work is allowed two days per week with manager approval." },
    coworking: { title: "Coworking", content: "Remote work from a coworking space is allowed; the company pays the desk." },
  },
});
const result = await service.predict({ orgId: "northwind", principal, query: "How many days per week may I work remotely?" });
console.log(result.answer.callout_answer);
console.log(result.stages.map((timing) => `${timing.stage} ${timing.milliseconds.toFixed(2)} ms`).join("\n"));
await service.close();
