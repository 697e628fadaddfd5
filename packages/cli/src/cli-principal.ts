/**
 * Who the `docqa` command acts as when it writes or lists documents, and where its audit lines
 * go. The command runs with direct access to the stores, so by default it acts as an
 * administrator (the first of `ADMIN_ROLES`) named by `--as`, `DOCQA_USER` or `cli@localhost`;
 * `--role` replaces the roles (for example to see what a user would see). Every write and delete
 * is recorded as one JSON line in `<DATA_DIR>/audit.log`.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AuditLog, DocqaConfig, Principal } from "@docqa/core";

/** The acting user's name when neither `--as` nor `DOCQA_USER` names one. */
export const defaultCliUser = "cli@localhost";

/**
 * The principal of a command: `user` (default `DOCQA_USER`, else {@link defaultCliUser}; empty counts as unset) with
 * `roles`, or, when `roles` is empty, the first administrative role of `ADMIN_ROLES`.
 */
export function cliPrincipal(config: DocqaConfig, user: string | undefined, roles: readonly string[] = []): Principal {
  return {
    userName: [user, process.env.DOCQA_USER].find((name) => name !== undefined && name.trim() !== "") ?? defaultCliUser,
    roles: roles.length > 0 ? [...roles] : config.access.adminRoles.slice(0, 1),
    groups: [],
  };
}

/** An audit log appending one JSON line per event to `<DATA_DIR>/audit.log` (created when missing). */
export function cliAuditLog(config: DocqaConfig): AuditLog {
  const path = join(resolve(config.stores.dataDir), "audit.log");
  return {
    record(event) {
      mkdirSync(resolve(config.stores.dataDir), { recursive: true });
      appendFileSync(path, `${JSON.stringify({ time: new Date().toISOString(), msg: "audit", ...event })}\n`);
    },
  };
}
