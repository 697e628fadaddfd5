import { describe, expect, it } from "vitest";
import type { AccessTokenClaims } from "./access-token-claims.js";
import { createCachedPrincipalResolver, type PrincipalAttributes, principalFromClaims } from "./resolve-principal.js";

const claims = (email: string, extra: Partial<AccessTokenClaims> = {}): AccessTokenClaims => ({
  email,
  org_id: "org-1",
  type: "access",
  exp: 2_000_000_000,
  ...extra,
});

describe("principalFromClaims", () => {
  it("takes roles from role and roles, groups from groups, without empty or repeated values", () => {
    expect(principalFromClaims(claims("ann@x.org", { role: "admin", roles: ["hr", "admin", " "], groups: ["eng", "eng", ""] }))).toEqual({
      roles: ["admin", "hr"],
      groups: ["eng"],
    });
    expect(principalFromClaims(claims("ann@x.org"))).toEqual({ roles: [], groups: [] });
  });
});

describe("createCachedPrincipalResolver", () => {
  it("asks the directory once per organisation and user, sharing concurrent lookups", async () => {
    const asked: string[] = [];
    const resolver = createCachedPrincipalResolver({
      resolve: async (token): Promise<PrincipalAttributes> => {
        asked.push(`${token.org_id}/${token.email}`);
        return { roles: [], groups: [`${token.email.split("@")[0]}-team`] };
      },
    });
    const results = await Promise.all([resolver(claims("ann@x.org")), resolver(claims("ANN@x.org")), resolver(claims("bob@x.org"))]);
    expect(results.map((result) => result.groups)).toEqual([["ann-team"], ["ann-team"], ["bob-team"]]);
    expect(await resolver(claims("ann@x.org", { org_id: "org-2" }))).toEqual({ roles: [], groups: ["ann-team"] });
    expect(asked).toEqual(["org-1/ann@x.org", "org-1/bob@x.org", "org-2/ann@x.org"]);
    resolver.clear();
    await resolver(claims("ann@x.org"));
    expect(asked).toHaveLength(4);
  });

  it("fails with store_unavailable when the directory fails, and does not cache the failure", async () => {
    let fail = true;
    const resolver = createCachedPrincipalResolver({
      resolve: () => {
        if (fail) throw new Error("directory down");
        return { roles: ["hr"], groups: [] };
      },
    });
    await expect(resolver(claims("ann@x.org"))).rejects.toMatchObject({
      code: "store_unavailable",
      message: "[docqa] [auth] resolving the roles and groups of the user failed: directory down",
    });
    fail = false;
    expect(await resolver(claims("ann@x.org"))).toEqual({ roles: ["hr"], groups: [] });
  });
});
