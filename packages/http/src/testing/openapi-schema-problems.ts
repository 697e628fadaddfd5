/**
 * Test helper: checks a JSON value against a schema of an OpenAPI 3.1 document (JSON Schema
 * 2020-12), for the keywords `@hono/zod-openapi` emits: `$ref` (local), `type`, `enum`, `const`,
 * `properties`, `required`, `additionalProperties`, `items`, `anyOf`, `oneOf`, `allOf`,
 * `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `maxProperties`,
 * `propertyNames`, `pattern`. Exported as `@docqa/http/testing`; tests use it to validate responses
 * (and Server-Sent Events) against the document the app serves.
 */

/** A JSON Schema object, loosely typed. */
type Schema = Record<string, unknown>;

function resolve(root: Schema, reference: string): Schema {
  if (!reference.startsWith("#/")) throw new Error(`only local $ref are supported: ${reference}`);
  let node: unknown = root;
  for (const segment of reference.slice(2).split("/"))
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
  if (typeof node !== "object" || node === null) throw new Error(`unresolvable $ref ${reference}`);
  return node as Schema;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

/**
 * Every way `value` violates `schema` (empty when it conforms), each as `<path>: <problem>`.
 * `root` is the OpenAPI document that `$ref`s point into.
 */
export function schemaProblems(schema: Schema, value: unknown, root: Schema, path = "$"): string[] {
  if (typeof schema.$ref === "string") return schemaProblems(resolve(root, schema.$ref), value, root, path);
  const problems: string[] = [];
  const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types && !types.some((type) => matchesType(value, type))) return [`${path}: expected ${types.join(" or ")}, got ${typeOf(value)}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && schema.const !== value) problems.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
      problems.push(`${path}: does not match ${schema.pattern}`);
    }
    // JSON Schema 2020-12 section 8: the string's content, when declared JSON, against `contentSchema`.
    if (schema.contentMediaType === "application/json" && typeof schema.contentSchema === "object" && schema.contentSchema !== null) {
      let content: unknown;
      try {
        content = JSON.parse(value);
      } catch {
        return [...problems, `${path}: not JSON`];
      }
      problems.push(...schemaProblems(schema.contentSchema as Schema, content, root, `${path} (JSON)`));
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      problems.push(`${path}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) problems.push(`${path}: more than ${schema.maxItems} items`);
    if (typeof schema.items === "object" && schema.items !== null) {
      value.forEach((item, index) => {
        problems.push(...schemaProblems(schema.items as Schema, item, root, `${path}[${index}]`));
      });
    }
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (typeof schema.maxProperties === "number" && Object.keys(object).length > schema.maxProperties) {
      problems.push(`${path}: more than ${schema.maxProperties} properties`);
    }
    if (typeof schema.propertyNames === "object" && schema.propertyNames !== null) {
      for (const key of Object.keys(object)) {
        problems.push(...schemaProblems(schema.propertyNames as Schema, key, root, `${path}[${JSON.stringify(key)}] (name)`));
      }
    }
    for (const key of (schema.required ?? []) as string[]) if (!(key in object)) problems.push(`${path}.${key}: required`);
    for (const [key, item] of Object.entries(object)) {
      if (properties[key]) problems.push(...schemaProblems(properties[key], item, root, `${path}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${key}: not allowed`);
      else if (typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
        problems.push(...schemaProblems(schema.additionalProperties as Schema, item, root, `${path}.${key}`));
      }
    }
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf as Schema[]) problems.push(...schemaProblems(part, value, root, path));
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const passing = (options as Schema[]).filter((option) => schemaProblems(option, value, root, path).length === 0).length;
    if (passing === 0 || (keyword === "oneOf" && passing > 1)) problems.push(`${path}: matches ${passing} of the ${keyword} alternatives`);
  }
  return problems;
}

/** Problems of a response body against the schema an OpenAPI document gives `method path status`. */
export function responseProblems(document: Schema, method: string, path: string, status: number, body: unknown): string[] {
  const operation = (document.paths as Record<string, Record<string, Schema>>)[path]?.[method.toLowerCase()];
  if (!operation) return [`no operation ${method} ${path} in the document`];
  const response = (operation.responses as Record<string, Schema>)[String(status)];
  if (!response) return [`no response ${status} for ${method} ${path}`];
  const schema = ((response.content as Record<string, Schema> | undefined)?.["application/json"]?.schema ?? undefined) as
    | Schema
    | undefined;
  if (!schema) return [`no JSON schema for ${status} of ${method} ${path}`];
  return schemaProblems(schema, body, document);
}

/**
 * Problems of a `text/event-stream` response body against the schema an OpenAPI document gives
 * its events for `method path status`: the media type's `itemSchema` (OpenAPI 3.2) or, before
 * 3.2, its `schema`, which then describes one event (`{event, data, id, retry}`, `data` as text,
 * its JSON content checked when the schema declares `contentSchema`), checked for every event.
 */
export function eventStreamProblems(document: Schema, method: string, path: string, status: number, body: string): string[] {
  const operation = (document.paths as Record<string, Record<string, Schema>>)[path]?.[method.toLowerCase()];
  const media = (
    (operation?.responses as Record<string, Schema> | undefined)?.[String(status)]?.content as Record<string, Schema> | undefined
  )?.["text/event-stream"];
  const events = (media?.itemSchema ?? media?.schema) as Schema | undefined;
  if (!events) return [`no event schema for text/event-stream of ${status} of ${method} ${path}`];
  return parseEventStream(body).flatMap((event, index) => schemaProblems(events, event, document, `event ${index} (${event.event})`));
}

/**
 * The events of a `text/event-stream` body as docqa writes them (`event: <name>`, then `data: `
 * lines, events separated by a blank line): each event's name (`message` when absent) and data
 * text (its `data:` lines joined by line feeds).
 */
export function parseEventStream(body: string): { event: string; data: string }[] {
  return body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice("event: ".length) ?? "message";
      const data = lines
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice("data: ".length))
        .join("\n");
      return { event, data };
    });
}
