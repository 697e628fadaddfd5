import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/load-config.js";
import { retrievalConfigurations, serviceRetrievalConfiguration } from "./retrieval-configurations.js";

describe("retrieval configurations of docqa eval", () => {
  it("describes the service's default configuration with its candidate depths", () => {
    const service = serviceRetrievalConfiguration(resolveConfig({ retrieval: { useReranker: false } }));
    expect(service).toEqual({
      name: "service",
      description: "the service's configuration: weighted sum 0.5/0.5, min-max, 30 + 30 candidates",
      retrieval: {
        weightVector: 0.5,
        weightBm25: 0.5,
        normalization: "min-max",
        fusion: "weighted",
        vectorTopK: 8,
        bm25TopK: 8,
        fusionCandidates: 30,
      },
      rerank: false,
      needsVectors: true,
      raptor: false,
    });
    const configured = serviceRetrievalConfiguration(
      resolveConfig({ retrieval: { vectorTopK: 50, fusionCandidates: 0, scoreNormalization: "z-score" } }),
    );
    expect(configured.description).toBe("the service's configuration: weighted sum 0.5/0.5, z-score, 50 + 8 candidates");
  });

  it("gives every alternative hybrid its own depth, whatever FUSION_CANDIDATES is", () => {
    const hybrids = retrievalConfigurations.filter(
      (configuration) => configuration.retrieval.weightBm25 && configuration.retrieval.weightVector,
    );
    expect(
      hybrids.map((configuration) => [configuration.name, configuration.retrieval.vectorTopK, configuration.retrieval.fusionCandidates]),
    ).toEqual([
      ["hybrid-minmax", 100, 0],
      ["hybrid-zscore", 100, 0],
      ["hybrid-minmax-deep", 1000, 0],
      ["rrf", 100, 0],
      ["hybrid-rerank", 100, 0],
      ["hybrid-raptor", 100, 0],
    ]);
    expect(
      retrievalConfigurations.filter((configuration) => !configuration.needsVectors).map((configuration) => configuration.name),
    ).toEqual(["bm25", "bm25-raptor"]);
  });
});
