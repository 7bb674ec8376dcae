/**
 * An empty record for keys that come from outside (body keys, header names, metadata): it has no
 * prototype, so "__proto__", "constructor" or "toString" are ordinary keys, never Object's members.
 */
export const emptyDict = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;
