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
      if (Object.hasOwn(replacements, property)) return replacements[property as keyof T];
      const value: unknown = Reflect.get(object, property);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
