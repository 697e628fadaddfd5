/**
 * Reads configuration from the environment (`loadConfig`) or from code (`resolveConfig`), in one
 * place, through one schema (`configSchema`); see `docs/configuration.md`. The same helpers read
 * any other schema whose settings are marked with `setting()` (the HTTP adapters' server settings).
 */
import type { z } from "zod";
import { DocqaError } from "../errors/docqa-error.js";
import { storeBackendVariables } from "../stores/store-backend-packages.js";
import { configSchema, type DocqaConfig } from "./config-schema.js";
import { settingsOf } from "./setting-helpers.js";

export { type SettingLocation, settingsOf } from "./setting-helpers.js";

/** A map of environment variables, such as `process.env`. */
export type EnvironmentVariables = Record<string, string | undefined>;

/** Every property optional, at every depth. */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [Key in keyof T]?: DeepPartial<T[Key]> | undefined }
    : T;

/** Partial configuration accepted by {@link resolveConfig} and `createRagService`: any settings of any sections. */
export type DocqaConfigOverrides = DeepPartial<DocqaConfig>;

/**
 * Parses `schema` from environment variables: each setting takes its variable's value (trimmed;
 * an empty value counts as unset), then `overrides` (settings given in code, by path; default
 * none) apply over them, and the schema applies defaults and checks.
 *
 * @throws {DocqaError} `config_invalid` naming each offending variable, its value and the problem,
 *   for example `CHUNK_SIZE="big": Invalid input: expected number, received NaN`.
 */
export function loadSettings<Schema extends z.ZodType>(
  schema: Schema,
  environment: EnvironmentVariables,
  overrides: Record<string, unknown> = {},
): z.output<Schema> {
  const settings = settingsOf(schema);
  const input: Record<string, unknown> = {};
  const present: Record<string, string> = {};
  for (const { path, env } of settings) {
    const value = environment[env]?.trim();
    if (value === undefined || value === "") continue;
    present[env] = value;
    let node = input;
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[path.at(-1) as string] = value;
  }
  return parseSettings(schema, mergeDeep(input, overrides), (path) => {
    const location = settings.find((candidate) => candidate.path.join(".") === path.join("."));
    if (!location) return undefined;
    // A value given in code is named by its path.
    if (!(location.env in present) && valueAt(overrides, path) !== undefined) return undefined;
    return `${location.env}=${JSON.stringify(present[location.env] ?? "")}`;
  });
}

/**
 * Parses `input` with `schema`.
 *
 * @param describe - names the setting at a path in messages (for example its variable); default the path.
 * @throws {DocqaError} `config_invalid` listing every problem.
 */
export function parseSettings<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  describe: (path: readonly PropertyKey[]) => string | undefined = () => undefined,
): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === "custom") return issue.message;
    const where = describe(issue.path) ?? issue.path.join(".");
    return `${where}: ${issue.message}`;
  });
  throw new DocqaError("config_invalid", `invalid configuration: ${problems.join("; ")}`, {
    component: "config",
    cause: parsed.error,
    details: problems,
  });
}

/**
 * Parses and validates every docqa environment variable, applying defaults.
 *
 * Empty strings count as unset. Unknown variables are ignored, except those of a store backend
 * whose settings are its own (its registration's `prefix`): they are kept for it
 * (`config.stores.backendVariables`) and checked when the backend is resolved (`storesFromConfig`).
 *
 * @param environment - variables to read; default `process.env`.
 * @returns the resolved configuration.
 * @throws {DocqaError} `config_invalid` naming each offending variable, its value's problem,
 *   and the expected form, for example `CHUNK_SIZE: expected a number, received "big"`; also for
 *   inconsistent settings (`CHUNK_OVERLAP` not below `CHUNK_SIZE`, an embedded store mixed with
 *   a server, both fusion weights 0, `EMBED_PROVIDER=openai` or `ollama` without `EMBED_MODEL_NAME`).
 * @example
 * ```ts
 * const config = loadConfig({ ...process.env, DATA_DIR: "/var/lib/docqa" });
 * ```
 */
export function loadConfig(environment: EnvironmentVariables = process.env): DocqaConfig {
  return loadSettings(configSchema, environment, { stores: { backendVariables: storeBackendVariables(environment) } });
}

/**
 * The configuration from code: `overrides` applied to `base` (default: the defaults, as from an
 * empty environment), parsed and checked exactly like {@link loadConfig}.
 *
 * @throws {DocqaError} `config_invalid` for the same problems as {@link loadConfig}, naming settings by path
 *   (for example `ingestion.chunkSize`).
 * @example
 * ```ts
 * const config = resolveConfig({ retrieval: { vectorTopK: 20 }, stores: { dataDir: "/tmp/docqa" } });
 * const deeper = resolveConfig({ retrieval: { bm25TopK: 50 } }, loadConfig());
 * ```
 */
export function resolveConfig(overrides: DocqaConfigOverrides = {}, base?: DocqaConfig | DocqaConfigOverrides): DocqaConfig {
  return parseSettings(configSchema, mergeDeep(base ?? {}, overrides));
}

/** `overrides` merged into `base`, plain objects recursively; `undefined` values leave the base value. */
function mergeDeep(base: object, overrides: object): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? mergeDeep(current, value) : value;
  }
  return merged;
}

/** The value at `path` in `tree`, or undefined. */
function valueAt(tree: unknown, path: readonly PropertyKey[]): unknown {
  let node = tree;
  for (const key of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[key];
  return node;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
