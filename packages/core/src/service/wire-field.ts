/**
 * The per-field marker of the result schema that says which endpoint sets show a field: a field
 * of `predictResultSchema` wrapped in {@link onWire} is on those sets' wires, under its name in
 * the set's case (set A snake_case, set B camelCase), with its value as the service computes it.
 * The sets derive their wire schemas and mappings from the markers (`resultWireOf` of
 * `@docqa/http`), so the core knows nothing of HTTP beyond the names of the sets.
 */
import { z } from "zod";

/** An endpoint set: `A` (`@docqa/predict-api`, snake_case wire names) or `B` (`@docqa/chat-api`, camelCase). */
export type EndpointSet = "A" | "B";

/** How a result field is shown on the wires: what {@link onWire} records. */
export interface WireField<Sets extends EndpointSet = EndpointSet> {
  /** The endpoint sets whose answer carries the field (each under its name in the set's case). */
  sets: readonly Sets[];
  /** The field's OpenAPI description on every set that shows it, unless the set gives its own; default none. */
  description?: string | undefined;
  /** An example value for OpenAPI; default none. */
  example?: unknown;
}

declare const wireSets: unique symbol;

/**
 * A schema marked by {@link onWire}: the sets are also part of its type (a phantom property that
 * exists only for the type checker), so the wire bodies the sets derive are typed.
 */
export type WireMarked<T extends z.ZodType, Sets extends EndpointSet> = T & { readonly [wireSets]: Sets };

/** The markers, keyed by field schema; read with `wireFields.get(schema)`. Not the global zod registry, so no marker leaks into JSON Schema or OpenAPI output. */
export const wireFields = z.registry<WireField>();

/**
 * Marks a result field as shown on the endpoint sets `field.sets`. Returns a copy of `schema`
 * (so a schema shared elsewhere, such as `answerSchema`, is not marked). A marked field inside an
 * unmarked object field of the result (`generation.model`, `timings.llmMs`) is shown at the top
 * level of the wire under its own name.
 *
 * @example
 * ```ts
 * // in predictResultSchema (or predictStateFields, for a field a stage writes):
 * answerLength: onWire(z.number().int(), { sets: ["A", "B"], description: "Characters of the callout." }),
 * // set A answers `answer_length`, set B `answerLength`.
 * ```
 */
export function onWire<T extends z.ZodType, const Sets extends EndpointSet>(schema: T, field: WireField<Sets>): WireMarked<T, Sets> {
  const marked = schema.clone();
  wireFields.add(marked, field);
  return marked as WireMarked<T, Sets>;
}
