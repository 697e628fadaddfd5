/**
 * The README's library snippet compiles: the `ts` block under "### Library" is type-checked
 * against the sources with the repository's TypeScript settings, as if it were a file of the
 * repository (served from memory; nothing is written), so a change of the API that breaks the
 * snippet fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The first `ts` code block after the heading `heading` of `markdown`. */
function snippetAfter(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
  const block = /```ts\n([\s\S]*?)```/.exec(markdown.slice(start));
  if (!block?.[1]) throw new Error(`no ts block after ${JSON.stringify(heading)}`);
  return block[1];
}

let previous: ts.Program | undefined;

/**
 * Type errors of `source`, compiled as the file `path` of the repository with its tsconfig.json
 * (reusing the previous call's program for the files that did not change).
 */
function typeErrors(path: string, source: string): string[] {
  const configFile = join(repositoryRoot, "tsconfig.json");
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, repositoryRoot, undefined, configFile);
  const host = ts.createCompilerHost(parsed.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === path ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === path || fileExists(name);
  const program = ts.createProgram({ rootNames: [path], options: { ...parsed.options, noEmit: true }, host, oldProgram: previous });
  previous = program;
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(path))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

describe("the README's library snippet", () => {
  it("type-checks against the sources", () => {
    const snippet = snippetAfter(readFileSync(join(repositoryRoot, "README.md"), "utf8"), "### Library");
    expect(snippet).toContain("createRagService");
    // A module of the repository: top-level await and the workspace's paths resolve as in the packages.
    const path = join(repositoryRoot, "packages", "core", "src", "readme-library-snippet.ts");
    expect(typeErrors(path, snippet)).toEqual([]);
    // The check can fail: an undefined name is reported.
    expect(typeErrors(path, `${snippet}\nawait service.ask(principal);\n`)).toEqual([
      expect.stringContaining("Property 'ask' does not exist on type 'RagService'"),
    ]);
  }, 120_000);
});
