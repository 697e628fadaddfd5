/**
 * `docqa token`: mints a development access token with the spec's claims.
 */
import { mintAccessToken } from "@docqa/core";
import { loadServerConfig } from "@docqa/http";
import type { Command } from "commander";

/** Registers `docqa token`. */
export function registerTokenCommand(program: Command): void {
  program
    .command("token")
    .description("mint a development access token signed with JWT_SECRET (spec claims: email, role, org_id, type, exp, iat, iss, jti)")
    .requiredOption("--email <email>", "the user's e-mail (email claim)")
    .requiredOption("--org <id>", "organisation id (org_id claim)")
    .option("--role <role>", "role claim", "user")
    .option("--roles <roles>", "comma-separated further roles (docqa's roles claim), for example admin")
    .option("--groups <groups>", "comma-separated groups (docqa's groups claim)")
    .option("--ttl <seconds>", "lifetime in seconds", "3600")
    .action(async (options: { email: string; org: string; role: string; roles?: string; groups?: string; ttl: string }) => {
      const list = (value: string | undefined) =>
        value
          ?.split(",")
          .map((item) => item.trim())
          .filter(Boolean);
      const token = await mintAccessToken(loadServerConfig().jwt, {
        email: options.email,
        orgId: options.org,
        role: options.role,
        roles: list(options.roles),
        groups: list(options.groups),
        expiresInSeconds: Number.parseInt(options.ttl, 10),
      });
      process.stdout.write(`${token}\n`);
    });
}
