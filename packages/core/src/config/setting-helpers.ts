/**
 * The building blocks of docqa's settings schemas: `setting()` marks a schema as read from an
 * environment variable (`loadSettings` reads every marked setting), and the helpers below make
 * the common kinds of value (integers, fractions, flags, name lists) accept environment strings;
 * `settingsOf` lists a schema's settings.
 */
import { z } from "zod";

/** Metadata of a setting: the environment variable it is read from. */
export interface SettingMetadata {
  env: string;
}

/** Marks `schema` as the setting read from the environment variable `env`. */
export function setting<T extends z.ZodType>(env: string, schema: T): T {
  return schema.meta({ env } satisfies SettingMetadata as Record<string, unknown>) as T;
}

/** An integer at least `minimum`, default `defaultValue`; numeric strings are accepted. */
export const integer = (defaultValue: number, minimum = 0) => z.coerce.number().int().min(minimum).default(defaultValue);
/** An optional integer at least `minimum`. */
export const optionalInteger = (minimum = 1) => z.coerce.number().int().min(minimum).optional();
/** A number in [0, 1], default `defaultValue`. */
export const fraction = (defaultValue: number) => z.coerce.number().min(0).max(1).default(defaultValue);
/** A boolean, or a string `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`; default `defaultValue`. */
export const flag = (defaultValue: boolean) => z.union([z.boolean(), z.stringbool()]).default(defaultValue);
/** An optional string; an empty string counts as unset. */
export const optionalString = () => z.string().optional();

/** A comma-separated list (or an array) of names, trimmed, without empty entries; default `defaultValue`. */
export const nameList = (defaultValue: readonly string[]) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (typeof value === "string" ? value.split(",") : value).map((name) => name.trim()).filter((name) => name !== ""))
    .default([...defaultValue]);

/** A setting of a schema: where it sits and the variable it is read from. */
export interface SettingLocation {
  path: string[];
  env: string;
}

interface ZodInternals {
  _zod: { def: { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; in?: z.ZodType } };
}

/** The object schema under defaults, prefaults, optionals, pipes and transforms, or undefined for a leaf. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let current = schema as unknown as ZodInternals;
  for (;;) {
    const { def } = current._zod;
    if (def.type === "object") return def.shape;
    const inner = def.innerType ?? def.in;
    if (!inner) return undefined;
    current = inner as unknown as ZodInternals;
  }
}

/** Every setting of `schema` (marked with `setting()`), depth first, in declaration order. */
export function settingsOf(schema: z.ZodType): SettingLocation[] {
  const found: SettingLocation[] = [];
  const visit = (node: z.ZodType, path: string[]) => {
    const env = (node.meta() as Partial<SettingMetadata> | undefined)?.env;
    if (env) {
      found.push({ path, env });
      return;
    }
    const shape = objectShape(node);
    if (shape) for (const [key, child] of Object.entries(shape)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return found;
}
