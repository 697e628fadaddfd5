/**
 * Builds every package with tsup: ESM, type declarations, source maps, Node 22 target.
 * Dependencies of each package stay external; each package is built from its own sources, its
 * entries sharing chunks. The web page's browser bundle is built alongside (`webUiBrowser`).
 */
import { readFileSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

interface PackageEntry {
  folder: string;
  entry: Record<string, string>;
  /** Extra patterns of the output folder's clean (`!browser/**` keeps another build's output). */
  keep?: string[];
}

const packages: PackageEntry[] = [
  {
    folder: "core",
    entry: {
      index: "src/index.ts",
      "pipeline/index": "src/pipeline/index.ts",
      "answering/index": "src/answering/index.ts",
      "evaluation/index": "src/evaluation/index.ts",
      "ingestion/index": "src/ingestion/index.ts",
      "retrieval/index": "src/retrieval/index.ts",
      "stores/index": "src/stores/index.ts",
      "telemetry/index": "src/telemetry/index.ts",
      "testing/index": "src/testing/index.ts",
      "contract/index": "src/contract/index.ts",
      // The ingestion worker thread's entry, loaded by file (worker-pool-executor.ts).
      "ingestion-worker": "src/ingestion/ingestion-worker.ts",
      // The model threads' entry (the embedding and reranker threads), loaded by file (threads/model-thread.ts).
      "model-worker": "src/threads/model-worker.ts",
    },
  },
  { folder: "http", entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts" } },
  { folder: "milvus", entry: { index: "src/index.ts" } },
  { folder: "elasticsearch", entry: { index: "src/index.ts" } },
  { folder: "redis", entry: { index: "src/index.ts" } },
  { folder: "predict-api", entry: { index: "src/index.ts" } },
  { folder: "chat-api", entry: { index: "src/index.ts" } },
  { folder: "observability", entry: { index: "src/index.ts" } },
  { folder: "web-ui", entry: { index: "src/index.ts" }, keep: ["!browser/**"] },
  { folder: "cli", entry: { index: "src/index.ts", bin: "src/bin.ts" } },
];

function externalsOf(folder: string): RegExp[] {
  const manifest = JSON.parse(readFileSync(`packages/${folder}/package.json`, "utf8")) as Record<
    string,
    Record<string, string> | undefined
  >;
  const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
  return [/^node:/, ...names.map((name) => new RegExp(`^${name.replace(/[/.]/g, "\\$&")}(/.*)?$`))];
}

/**
 * The web page's browser bundle (`@docqa/web-ui`): the Preact application and its style sheet,
 * everything bundled (no import is left for the browser to fetch), minified, into
 * `packages/web-ui/dist/browser/` (`app.js`, `app.css`).
 */
const webUiBrowser: Options = {
  name: "web-ui-browser",
  entry: { app: "packages/web-ui/browser/main.tsx" },
  outDir: "packages/web-ui/dist/browser",
  format: ["esm"],
  target: "es2022",
  platform: "browser",
  dts: false,
  sourcemap: true,
  clean: true,
  minify: true,
  splitting: false,
  noExternal: [/.*/],
  tsconfig: "packages/web-ui/browser/tsconfig.json",
};

export default defineConfig([
  ...packages.map(
    ({ folder, entry, keep }): Options => ({
      name: folder,
      entry: Object.fromEntries(Object.entries(entry).map(([name, path]) => [name, `packages/${folder}/${path}`])),
      outDir: `packages/${folder}/dist`,
      format: ["esm"],
      target: "node22",
      platform: "node",
      dts: { compilerOptions: { paths: {}, allowImportingTsExtensions: false } },
      sourcemap: true,
      clean: keep ?? true,
      // Entries of one package share chunks, so `@docqa/core` and `@docqa/core/pipeline` are one copy.
      splitting: true,
      removeNodeProtocol: false,
      treeshake: true,
      external: externalsOf(folder),
      tsconfig: "tsconfig.json",
    }),
  ),
  webUiBrowser,
]);
