import { DocqaError } from "@docqa/core";
import { describe, expect, it } from "vitest";
import { clusterHealth } from "./cluster-health.js";

describe("clusterHealth", () => {
  it("is healthy when green with every listed node", () => {
    expect(clusterHealth({ status: "green", number_of_nodes: 3, unassigned_shards: 0 }, 3, "opensearch")).toBeUndefined();
    expect(clusterHealth({ status: "green", number_of_nodes: 5 }, 1, "opensearch")).toBeUndefined();
  });

  it("is degraded when yellow, or when fewer nodes are in the cluster than FULLTEXT_URI lists", () => {
    expect(clusterHealth({ status: "yellow", number_of_nodes: 2, unassigned_shards: 6 }, 3, "opensearch")).toEqual({
      degraded: "cluster health yellow (2 of the 3 nodes of FULLTEXT_URI in the cluster; 6 shard copies unassigned)",
    });
    expect(clusterHealth({ status: "green", number_of_nodes: 2, unassigned_shards: 0 }, 3, "opensearch")).toEqual({
      degraded: "cluster health green (2 of the 3 nodes of FULLTEXT_URI in the cluster)",
    });
    expect(clusterHealth({ status: "yellow", number_of_nodes: 1, unassigned_shards: 1 }, 1, "opensearch")).toEqual({
      degraded: "cluster health yellow (1 node; 1 shard copy unassigned)",
    });
  });

  it("is down when red, and refuses an answer that is not a health answer", () => {
    for (const body of [{ status: "red", number_of_nodes: 1, unassigned_shards: 2 }, { error: "x" }, null]) {
      let caught: unknown;
      try {
        clusterHealth(body, 3, "opensearch");
      } catch (error) {
        caught = error;
      }
      expect(DocqaError.isInstance(caught) && caught.code).toBe("store_unavailable");
    }
  });
});
