/**
 * Interns the distinct (owner, ACL) pairs of an organisation's chunks, so that access is
 * evaluated once per distinct pair and principal rather than once per chunk. Chunks of one
 * document share one pair, and most documents share a handful of ACLs, so a search evaluates a
 * few rules and then checks one byte per candidate chunk.
 */
import { type AccessList, parseAccessList } from "../acl/access-list.js";
import { evaluateAccess } from "../acl/evaluate-access.js";
import { normalizeAccessName, type Principal } from "../acl/principal.js";

interface AccessGroup {
  ownerId: string;
  acl: AccessList;
}

const principalCacheLimit = 1024;

/** Registry of access groups of one organisation. */
export class AccessGroups {
  private readonly byKey = new Map<string, number>();
  private readonly groups: AccessGroup[] = [];
  private readonly decisions = new Map<string, Uint8Array>();

  /** The group id of an (owner, ACL) pair, created on first sight. */
  intern(ownerId: string, acl: string): number {
    const key = `${ownerId}\u0000${acl}`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.groups.length;
      this.groups.push({ ownerId: normalizeAccessName(ownerId), acl: parseAccessList(acl) });
      this.byKey.set(key, id);
    }
    return id;
  }

  /**
   * One byte per group, 1 where `principal` may read, by the spec's seven rules. Cached per
   * principal; groups added since the last call are evaluated incrementally.
   */
  allowedFor(principal: Principal): Uint8Array {
    const key = `${principal.userName}\u0000${principal.roles.join("\u0001")}\u0000${principal.groups.join("\u0001")}`;
    let allowed = this.decisions.get(key);
    const evaluated = allowed?.length ?? 0;
    if (allowed === undefined || evaluated < this.groups.length) {
      const next = new Uint8Array(this.groups.length);
      if (allowed !== undefined) next.set(allowed);
      for (let id = evaluated; id < this.groups.length; id++) {
        next[id] = evaluateAccess(principal, this.groups[id] as AccessGroup).granted ? 1 : 0;
      }
      if (this.decisions.size >= principalCacheLimit) this.decisions.clear();
      this.decisions.set(key, next);
      allowed = next;
    }
    return allowed;
  }
}
