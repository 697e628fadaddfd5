import { DocqaError } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { connectSearchEngine, type SearchEngineClientFactories, searchEngineInfo } from "./connect-search-engine.js";
import type { SearchEngine, SearchEngineClient } from "./search-engine-client.js";

const settings = { node: "http://localhost:9200", requestTimeoutMs: 1_000 };

function factories(rootBody: unknown | Error) {
  const created: { engine: SearchEngine; closed: boolean }[] = [];
  const make = (engine: SearchEngine) => (): SearchEngineClient => {
    const entry = { engine, closed: false };
    created.push(entry);
    return {
      engine,
      async request() {
        if (rootBody instanceof Error) throw rootBody;
        return { statusCode: 200, body: rootBody };
      },
      async close() {
        entry.closed = true;
      },
    };
  };
  const result: SearchEngineClientFactories = { elasticsearch: make("elasticsearch"), opensearch: make("opensearch") };
  return { factories: result, created };
}

describe("searchEngineInfo", () => {
  it("tells OpenSearch from Elasticsearch by version.distribution", () => {
    expect(searchEngineInfo({ version: { distribution: "opensearch", number: "3.1.0" } })).toEqual({
      engine: "opensearch",
      version: "3.1.0",
    });
    expect(searchEngineInfo({ version: { number: "9.1.0", build_flavor: "default" }, tagline: "You Know, for Search" })).toEqual({
      engine: "elasticsearch",
      version: "9.1.0",
    });
    expect(() => searchEngineInfo({ hello: "world" })).toThrow(DocqaError);
  });
});

describe("connectSearchEngine", () => {
  it("uses the configured engine without asking the server", async () => {
    const { factories: made, created } = factories(new Error("must not be called"));
    const client = await connectSearchEngine({ ...settings, engine: "elasticsearch" }, made);
    expect(client.engine).toBe("elasticsearch");
    expect(created).toEqual([{ engine: "elasticsearch", closed: false }]);
  });

  it("keeps the probing client for OpenSearch", async () => {
    const { factories: made, created } = factories({ version: { distribution: "opensearch", number: "2.19.0" } });
    const client = await connectSearchEngine({ ...settings, engine: "auto" }, made);
    expect(client.engine).toBe("opensearch");
    expect(created).toEqual([{ engine: "opensearch", closed: false }]);
  });

  it("switches to the Elasticsearch client for Elasticsearch", async () => {
    const { factories: made, created } = factories({ version: { number: "8.15.0" } });
    const client = await connectSearchEngine({ ...settings, engine: "auto" }, made);
    expect(client.engine).toBe("elasticsearch");
    expect(created).toEqual([
      { engine: "opensearch", closed: true },
      { engine: "elasticsearch", closed: false },
    ]);
  });

  it("fails with store_unavailable when the server cannot be asked", async () => {
    const { factories: made, created } = factories(
      new DocqaError("store_unavailable", "FULLTEXT_URI is unreachable", { component: "opensearch" }),
    );
    const error = await connectSearchEngine({ ...settings, engine: "auto" }, made).catch((caught: unknown) => caught);
    expect(DocqaError.isInstance(error) && error.code).toBe("store_unavailable");
    expect((error as DocqaError).component).toBe("search-engine");
    expect((error as Error).message).toContain("cannot detect the engine at FULLTEXT_URI");
    expect(created[0]?.closed).toBe(true);
  });
});
