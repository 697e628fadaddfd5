/**
 * `docqa documents list|show|delete` through the built executable, over the example corpus
 * (BM25 only), with the audit trail in `<DATA_DIR>/audit.log`.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const execFileAsync = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL("../../../..", import.meta.url));
const docqa = join(repositoryRoot, "packages", "cli", "bin", "docqa.js");
const built = existsSync(join(repositoryRoot, "packages", "cli", "dist", "bin.js"));

async function run(args: string[], environment: Record<string, string>): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [docqa, ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, LOG_LEVEL: "warn", EMBED_PROVIDER: "none", DOCQA_USER: "", ...environment },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

describe.skipIf(!built && process.env.CI !== "true")("docqa documents (needs `npm run build`)", () => {
  it("lists, shows and deletes documents under the write rules, and records each write in audit.log", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "docqa-cli-documents-"));
    const env = { DATA_DIR: dataDir };
    const ingest = await run(
      ["ingest", "examples/corpus", "--org", "northwind", "--owner", "hr@northwind.example", "--acl", "|role:staff|", "--no-progress"],
      env,
    );
    expect(ingest.code, ingest.stderr).toBe(0);

    const listed = await run(["documents", "list", "--org", "northwind", "--json"], env);
    const page = JSON.parse(listed.stdout) as {
      documents: { docId: string; ownerId: string; acl: string; chunkCount: number }[];
      nextCursor: null;
    };
    expect(page.documents.length).toBeGreaterThan(3);
    expect(page.documents.every((document) => document.ownerId === "hr@northwind.example" && document.acl === "|role:staff|")).toBe(true);
    expect(page.nextCursor).toBeNull();
    const first = page.documents[0]?.docId as string;

    const stranger = await run(["documents", "list", "--org", "northwind", "--as", "zed@northwind.example", "--role", "guest"], env);
    expect(stranger.stdout).toBe("no documents\n");
    const staff = await run(
      ["documents", "list", "--org", "northwind", "--as", "sam@northwind.example", "--role", "staff", "--limit", "2"],
      env,
    );
    expect(staff.stdout.split("\n")[0]).toMatch(/^ID\s+OWNER\s+ACL\s+CHUNKS\s+UPDATED\s+TITLE$/);
    expect(staff.stdout).toMatch(/\nmore: --cursor \S+\n$/);

    const shown = await run(["documents", "show", first, "--org", "northwind", "--json"], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ docId: first, ownerId: "hr@northwind.example" });
    const missing = await run(["documents", "show", "nothing.md", "--org", "northwind"], env);
    expect([missing.code, missing.stderr]).toEqual([1, 'docqa documents show: no document "nothing.md" in organisation northwind\n']);

    const refused = await run(
      ["documents", "delete", first, "--org", "northwind", "--as", "sam@northwind.example", "--role", "staff"],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe(
      `not deleted ${first}: may not delete document ${JSON.stringify(first)}: only the document's owner or an administrator may delete it (forbidden)\n`,
    );
    const deleted = await run(["documents", "delete", first, "nothing.md", "--org", "northwind"], env);
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toMatch(
      new RegExp(
        `^deleted ${first.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: \\d+ chunks, \\d+ summary nodes\nnot deleted nothing.md: no document "nothing.md" in this organisation \\(not_found\\)\n$`,
      ),
    );
    const after = JSON.parse((await run(["documents", "list", "--org", "northwind", "--json"], env)).stdout) as {
      documents: { docId: string }[];
    };
    expect(after.documents.map((document) => document.docId)).toEqual(page.documents.slice(1).map((document) => document.docId));

    const audit = readFileSync(join(dataDir, "audit.log"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { action: string; actor: string; docId: string; outcome: string; via: string; orgId: string });
    expect(
      audit.filter((event) => event.via === "ingest").every((event) => event.outcome === "created" && event.actor === "cli@localhost"),
    ).toBe(true);
    expect(audit.filter((event) => event.via === "ingest")).toHaveLength(page.documents.length);
    expect(audit.filter((event) => event.via === "delete").map((event) => [event.actor, event.docId, event.outcome])).toEqual([
      ["sam@northwind.example", first, "forbidden"],
      ["cli@localhost", first, "deleted"],
    ]);
    expect(new Set(audit.map((event) => event.orgId))).toEqual(new Set(["northwind"]));
  }, 120_000);
});
