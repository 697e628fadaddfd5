/**
 * Wraps an object without copying it: a proxy that answers some members with replacements and
 * forwards every other one, so members the wrapper does not know (a store's extra methods, a
 * getter) keep working and `this` stays the original object (class private fields included).
 */

/**
 * `target` seen through a proxy where the members named in `replacements` are replaced; every
 * other function is bound to `target`. `instanceof` still sees `target`'s class.
 *
 * @example
 * ```ts
 * const counted = overrideMethods(index, { searchByText: (orgId, query, options) => { calls++; return index.searchByText(orgId, query, options); } });
 * ```
 */
export function overrideMethods<T extends object>(target: T, replacements: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === originalObject) return unwrapped(object);
      if (Object.hasOwn(replacements, property)) return replacements[property as keyof T];
      const value: unknown = Reflect.get(object, property);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

/** The key under which a wrapper answers the object it wraps. */
const originalObject = Symbol("docqa.originalObject");

/**
 * The object behind any {@link overrideMethods} wrappers of `value` (itself when not wrapped):
 * what to compare when asking whether two wrapped stores are one backend (readiness pings each
 * backend once).
 */
export function unwrapped<T>(value: T): T {
  const original = typeof value === "object" && value !== null ? (value as Record<symbol, unknown>)[originalObject] : undefined;
  return (original ?? value) as T;
}
