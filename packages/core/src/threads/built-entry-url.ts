/**
 * Finding a worker thread's entry file: worker threads load their code by file, which exists
 * only in the package's build (`dist/`), so the sources (tests) load the built one.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The built thread entry `<name>.js`: beside the calling module when it runs from `dist/` (the
 * build puts every entry and shared chunk there), or, when it runs from the sources, the
 * package's `dist/<name>.js`, two folders up from `src/<folder>/`. Undefined when neither exists
 * (the package is not built).
 *
 * @param name - the entry's name in the build (`tsup.config.ts`), for example `ingestion-worker`.
 * @param moduleUrl - the calling module's `import.meta.url`; the module lies in `src/<folder>/`.
 * @example
 * ```ts
 * const workerUrl = builtEntryUrl("ingestion-worker", import.meta.url);
 * ```
 */
export function builtEntryUrl(name: string, moduleUrl: string): URL | undefined {
  const candidates = [new URL(`./${name}.js`, moduleUrl), new URL(`../../dist/${name}.js`, moduleUrl)];
  return candidates.find((candidate) => existsSync(fileURLToPath(candidate)));
}
