import type { RouterRoute } from "hono/types";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A route path (`/api/bookings/:ref`) as a regular expression over request paths. */
const patternOf = (path: string) =>
  new RegExp(
    `^${path
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment === "*" ? ".*" : escapeRegExp(segment)))
      .join("/")}/?$`,
  );

/**
 * The methods the app serves at a path, read from its own route table (built on first use, after
 * every route is registered), so a wrong method can answer 405 with `Allow` instead of 404.
 * Middleware entries (method ALL) are not routes. GET implies HEAD, as Hono serves it.
 */
export const allowedMethods = (routes: readonly RouterRoute[]) => {
  let table: Array<{ method: string; pattern: RegExp }> | null = null;
  return (path: string): string[] => {
    table ??= routes
      .filter((route) => route.method !== "ALL")
      .map((route) => ({ method: route.method, pattern: patternOf(route.path) }));
    const methods = new Set(table.filter((entry) => entry.pattern.test(path)).map((entry) => entry.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
};
