import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configurationDigest, openResultsFile, type RunHeader, readResultsFile } from "./results-file.js";
import { answerRecord } from "./test-records.js";

const directory = mkdtempSync(join(tmpdir(), "docqa-results-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(directory, `run-${++files}.jsonl`);

const header: RunHeader = {
  type: "run",
  dataset: "my-set",
  scorer: "alternatives",
  answerer: "extractive",
  embeddingModel: "none (BM25 only)",
  configuration: "0123456789abcdef",
  startedAt: "2026-01-01T00:00:00.000Z",
};

describe("results file", () => {
  it("writes the run header first, then one line per record, and reads the last record of each question", async () => {
    const path = newFile();
    const file = await openResultsFile(path, header, { resume: false });
    expect(file.done.size).toBe(0);
    await file.append(answerRecord({ id: "a" }));
    await file.append(answerRecord({ id: "b", error: { code: "model_timeout", message: "slow" } }));
    await file.append(answerRecord({ id: "b", callout: "Retried. [Source: doc_1]" }));
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[0] as string)).toEqual(header);
    const records = await file.read();
    expect([...records.keys()]).toEqual(["a", "b"]);
    expect(records.get("b")?.callout).toBe("Retried. [Source: doc_1]");
  });

  it("resumes: skips the questions recorded without an error, asks failed and cut-off ones again", async () => {
    const path = newFile();
    const first = await openResultsFile(path, header, { resume: false });
    await first.append(answerRecord({ id: "a" }));
    await first.append(answerRecord({ id: "f", error: { code: "model_timeout", message: "slow" } }));
    // A run killed in the middle of a line.
    appendFileSync(path, JSON.stringify(answerRecord({ id: "c" })).slice(0, 40));
    const resumed = await openResultsFile(path, { ...header, startedAt: "2026-01-02T00:00:00.000Z" }, { resume: true });
    expect([...resumed.done]).toEqual(["a"]);
    expect([...resumed.existing.keys()]).toEqual(["a", "f"]);
    await resumed.append(answerRecord({ id: "c" }));
    expect([...(await resumed.read()).keys()]).toEqual(["a", "f", "c"]);
    // The cut line stays, alone on its line; the header is not written again.
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines.filter((line) => line.includes('"type":"run"'))).toHaveLength(1);
    expect(lines).toHaveLength(5);
  });

  it("starts a missing file on --resume, and refuses to add to a file with results without it", async () => {
    const path = newFile();
    const file = await openResultsFile(path, header, { resume: true });
    expect(file.done.size).toBe(0);
    await file.append(answerRecord({ id: "a" }));
    await expect(openResultsFile(path, header, { resume: false })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("pass --resume"),
    });
  });

  it("refuses to resume a file written for another set or other settings, naming what differs", async () => {
    const path = newFile();
    await openResultsFile(path, header, { resume: false });
    await expect(openResultsFile(path, { ...header, answerer: "openai (qwen)" }, { resume: true })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("answerer: extractive there, openai (qwen) now"),
    });
    await expect(openResultsFile(path, { ...header, configuration: "fedcba9876543210" }, { resume: true })).rejects.toThrow(
      /configuration/,
    );
    const foreign = newFile();
    writeFileSync(foreign, `${JSON.stringify(answerRecord({ id: "a" }))}\n`);
    await expect(openResultsFile(foreign, header, { resume: true })).rejects.toThrow(/no run header/);
  });

  it("reads an absent file as empty", async () => {
    expect(await readResultsFile(join(directory, "absent.jsonl"))).toEqual({ header: undefined, records: new Map() });
  });
});

describe("configurationDigest", () => {
  const config = {
    embeddings: { provider: "none" },
    models: { provider: "openai", hostedApiKey: "secret-1" },
    retrieval: { bm25TopK: 8, vectorTopK: 8 },
    answering: { abstainMinPassageCoverage: 0.25 },
    ingestion: { chunkSize: 1000 },
  };

  it("ignores the API key and the order of settings, and changes with any setting that shapes answers", () => {
    const digest = configurationDigest(config);
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(configurationDigest({ ...config, models: { hostedApiKey: "secret-2", provider: "openai" } })).toBe(digest);
    expect(configurationDigest({ ...config, retrieval: { vectorTopK: 8, bm25TopK: 8 } })).toBe(digest);
    expect(configurationDigest({ ...config, answering: { abstainMinPassageCoverage: 0.3 } })).not.toBe(digest);
    expect(configurationDigest({ ...config, models: { provider: "ollama", hostedApiKey: "secret-1" } })).not.toBe(digest);
  });
});
