import { describe, expect, it } from "vitest";
import { chunkAccessTokens, principalAccessTokens } from "./access-tokens.js";
import { canRead } from "./evaluate-access.js";
import type { Principal } from "./principal.js";

/** The engine's view: a chunk passes when it shares a grant with the principal and does not deny the user. */
function passesTokenFilter(principal: Principal, ownerId: string, acl: string): boolean {
  const { grants, denied } = chunkAccessTokens(ownerId, acl);
  const tokens = new Set(principalAccessTokens(principal));
  const user = principal.userName.trim().toLowerCase();
  return grants.some((grant) => tokens.has(grant)) && !(user !== "" && denied.includes(user));
}

describe("access tokens", () => {
  it("encode owner, everyone, users, roles and groups as grants and deny entries separately", () => {
    expect(chunkAccessTokens("Ann@X.org", "|user:_all_|user:Bob@x.org|role:HR|group:eng|deny:eve@x.org|")).toEqual({
      grants: ["user:ann@x.org", "all", "user:bob@x.org", "role:hr", "group:eng"],
      denied: ["eve@x.org"],
    });
    expect(principalAccessTokens({ userName: " Ann@X.org ", roles: ["HR", ""], groups: ["eng"] })).toEqual([
      "all",
      "user:ann@x.org",
      "role:hr",
      "group:eng",
    ]);
  });

  it("agree with the seven rules on every combination of principal and ACL", () => {
    const principals: Principal[] = [
      { userName: "ann@x.org", roles: ["hr"], groups: ["eng"] },
      { userName: "bob@x.org", roles: [], groups: [] },
      { userName: "", roles: ["hr"], groups: [] },
      { userName: "eve@x.org", roles: ["hr"], groups: ["eng"] },
    ];
    const owners = ["", "ann@x.org", "eve@x.org"];
    const acls = [
      "",
      "|user:_all_|",
      "|user:_all_|deny:eve@x.org|",
      "|user:bob@x.org|",
      "|role:hr|",
      "|group:eng|deny:ann@x.org|",
      "|deny:eve@x.org|",
      "|user:eve@x.org|deny:eve@x.org|",
    ];
    for (const principal of principals)
      for (const owner of owners)
        for (const acl of acls)
          expect(passesTokenFilter(principal, owner, acl), `${principal.userName} ${owner} ${acl}`).toBe(
            canRead(principal, { ownerId: owner, acl }),
          );
  });
});
