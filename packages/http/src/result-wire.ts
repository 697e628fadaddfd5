/**
 * An endpoint set's answer body derived from the core's result schema (`predictResultSchema`):
 * the fields the schema marks with `onWire` for the set, named in the set's case (set A
 * snake_case, set B camelCase), plus the fields the set computes itself. One call gives the wire
 * schema (for validation and OpenAPI) and the mapping from a result, so a field marked in the core
 * is on the wire without a line in the set.
 */
import { DocqaError, type EndpointSet, type WireMarked, wireFields } from "@docqa/core";
import { z } from "@hono/zod-openapi";

/** The case of a set's wire names: `snake_case` (set A, `originalQuery` → `original_query`) or `camelCase` (set B). */
export type WireCase = "snake_case" | "camelCase";

/** `originalQuery` → `original_query`, as a type. */
type SnakeCase<Name extends string> = Name extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : Name;

/** `original_query` → `originalQuery`, as a type. */
type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name;

/** A result field's name on a wire of case `Case`; {@link wireName} at run time. */
export type WireName<Name extends string, Case extends WireCase> = Case extends "snake_case" ? SnakeCase<Name> : CamelCase<Name>;

/** The fields of `Shape` marked for `Set`, keyed by their result names, with their output types. */
type MarkedFields<Shape, Set extends EndpointSet> = {
  [Key in keyof Shape & string as Shape[Key] extends WireMarked<z.ZodType, infer Sets>
    ? Set extends Sets
      ? Key
      : never
    : never]: Shape[Key] extends z.ZodType ? z.output<Shape[Key]> : never;
};

/** The marked fields of the unmarked object fields of `Shape` (`generation.model`), one object per field. */
type NestedFields<Shape, Set extends EndpointSet> = {
  [Key in keyof Shape]: Shape[Key] extends WireMarked<z.ZodType, EndpointSet>
    ? Record<never, never>
    : Shape[Key] extends z.ZodObject<infer Inner>
      ? MarkedFields<Inner, Set>
      : Record<never, never>;
}[keyof Shape];

type Intersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (value: infer All) => void ? All : never;

/** The result fields of `Shape` that `Set` shows (nested ones flattened), keyed by their result names. */
export type ShownFields<Shape, Set extends EndpointSet> = MarkedFields<Shape, Set> & Intersection<NestedFields<Shape, Set>>;

/** The derived part of a set's body: {@link ShownFields} under their wire names. */
export type WireBody<Shape, Set extends EndpointSet, Case extends WireCase> = {
  [Key in keyof ShownFields<Shape, Set> & string as WireName<Key, Case>]: ShownFields<Shape, Set>[Key];
};

/** A set's own wire schema or OpenAPI prose for a derived field. */
export interface WireFieldOverride {
  /** The wire schema, with its OpenAPI metadata, used as it is; default the result field's schema. */
  schema?: z.ZodType | undefined;
  /** OpenAPI description; default the marker's (`WireField.description`). Ignored with `schema`. */
  description?: string | undefined;
  /** OpenAPI example; default the marker's. Ignored with `schema`. */
  example?: unknown;
}

/** Options of {@link resultWireOf}. */
export interface ResultWireOptions<
  Shape extends z.ZodRawShape,
  Set extends EndpointSet,
  Case extends WireCase,
  Extra extends z.ZodRawShape,
> {
  /** The result schema: `predictResultSchema`, or an extension of it. */
  result: z.ZodObject<Shape>;
  /** The endpoint set whose marked fields are shown. */
  set: Set;
  /** The case of the wire names. */
  case: Case;
  /** Per result field (by its result name): the set's own wire schema or prose; default the field's schema and the marker's prose. */
  fields?: { [Key in keyof ShownFields<Shape, Set>]?: WireFieldOverride } | undefined;
  /**
   * Wire fields the set computes itself (from several result fields, the request or its
   * settings), by wire name, with their schemas; their values are `toWire`'s second argument.
   * Default none.
   */
  extra?: Extra | undefined;
  /**
   * Wire names that come first, in this order (the fields the interface specification lists);
   * the other derived fields follow in the result schema's order, then the other `extra` fields.
   * Default none.
   */
  leading?: readonly string[] | undefined;
}

/** What {@link resultWireOf} derives. */
export interface ResultWire<Shape extends z.ZodRawShape, Set extends EndpointSet, Case extends WireCase, Extra extends z.ZodRawShape> {
  /** The wire fields' schemas, in wire order; wrap with `z.object(shape).openapi(name)`. */
  shape: Record<string, z.ZodType>;
  /** The body for `result`, with the set's own `extra` values, keys in wire order; values are the result's, not copied. */
  toWire(
    result: z.output<z.ZodObject<Shape>>,
    extra: z.output<z.ZodObject<Extra>>,
  ): WireBody<Shape, Set, Case> & z.output<z.ZodObject<Extra>>;
}

/** A result field's name on a wire of case `wireCase` (`originalQuery` → `original_query` or `originalQuery`). */
export function wireName(name: string, wireCase: WireCase): string {
  return wireCase === "snake_case"
    ? name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
    : name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** A wire field: its schema and where its value comes from (a path in the result, or `extra`). */
interface WireEntry {
  name: string;
  schema: z.ZodType;
  path?: readonly string[];
}

/** The fields of `shape` marked for `set`, and the marked fields of its unmarked object fields, in order. */
function shownEntries(
  shape: z.ZodRawShape,
  set: EndpointSet,
  path: readonly string[],
): { key: string; path: string[]; schema: z.ZodType }[] {
  return Object.entries(shape as Record<string, z.ZodType>).flatMap(([key, schema]) => {
    const marker = wireFields.get(schema);
    if (marker) return marker.sets.includes(set) ? [{ key, path: [...path, key], schema }] : [];
    return path.length === 0 && schema instanceof z.ZodObject ? shownEntries(schema.shape, set, [key]) : [];
  });
}

/**
 * Derives a set's answer wire from the result schema: every field marked with `onWire` for `set`
 * (nested ones flattened), named by {@link wireName}, with the set's `fields` overrides, then the
 * set's `extra` fields, ordered by `leading`. Values are passed as they are (only names change:
 * the keys inside the Answer and Source objects are the spec's).
 *
 * @throws {DocqaError} `config_invalid` when two fields have one wire name (a marked field and an
 * `extra` one, or two nested ones) or a `leading` name is no field.
 * @example
 * ```ts
 * const wire = resultWireOf({ result: predictResultSchema, set: "B", case: "camelCase", extra: { sessionId: z.string() } });
 * const responseSchema = z.object(wire.shape).openapi("ChatResponse");
 * c.json(wire.toWire(result, { sessionId }));
 * ```
 */
export function resultWireOf<
  Shape extends z.ZodRawShape,
  Set extends EndpointSet,
  Case extends WireCase,
  Extra extends z.ZodRawShape = Record<never, never>,
>(options: ResultWireOptions<Shape, Set, Case, Extra>): ResultWire<Shape, Set, Case, Extra> {
  const overrides = (options.fields ?? {}) as Record<string, WireFieldOverride | undefined>;
  const entries: WireEntry[] = shownEntries(options.result.shape, options.set, []).map(({ key, path, schema }) => {
    const override = overrides[key];
    const marker = wireFields.get(schema);
    const description = override?.description ?? marker?.description;
    const example = override && "example" in override ? override.example : marker?.example;
    const metadata = { ...(description !== undefined ? { description } : {}), ...(example !== undefined ? { example } : {}) };
    // A clone: a schema built before `@hono/zod-openapi` extended zod (as the core's are) lacks `.openapi`.
    const derived = Object.keys(metadata).length > 0 ? schema.clone().openapi(metadata) : schema;
    return { name: wireName(key, options.case), schema: override?.schema ?? derived, path };
  });
  for (const [name, schema] of Object.entries((options.extra ?? {}) as Record<string, z.ZodType>)) entries.push({ name, schema });
  const byName = new Map<string, WireEntry>();
  for (const entry of entries) {
    if (byName.has(entry.name)) {
      throw new DocqaError(
        "config_invalid",
        `set ${options.set} has two wire fields named ${entry.name}: rename one or unmark it for the set`,
        {
          component: "http",
        },
      );
    }
    byName.set(entry.name, entry);
  }
  const leading = (options.leading ?? []).map((name) => {
    const entry = byName.get(name);
    if (!entry) throw new DocqaError("config_invalid", `set ${options.set} has no wire field ${name} to put first`, { component: "http" });
    return entry;
  });
  const ordered = [...leading, ...entries.filter((entry) => !leading.includes(entry))];
  return {
    shape: Object.fromEntries(ordered.map((entry) => [entry.name, entry.schema])),
    toWire(result, extra) {
      const body: Record<string, unknown> = {};
      for (const entry of ordered) {
        body[entry.name] = entry.path
          ? entry.path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], result)
          : (extra as Record<string, unknown>)[entry.name];
      }
      return body as WireBody<Shape, Set, Case> & z.output<z.ZodObject<Extra>>;
    },
  };
}
