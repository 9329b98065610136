/**
 * Features are modules with one door and one direction. `order` lists the layers from the bottom:
 * `[["platform"], ["connections", "partners", ...], ["supply"], ..., ["app.ts"]]`. A file may import
 * its own layer's files only within its own room, a lower layer's room only through its `index.ts`,
 * and never a room of its own layer or above (a room's tables.ts may name a lower room's tables.ts,
 * for a foreign key). `platform` is every file under src/platform/; `app.ts`
 * stands for the entry files at the top of src/ (app.ts, index.ts, upkeep.ts).
 */
export type ImportOrder = string[][];

/** One source file and the repository paths of the files it imports (resolved, with their extension). */
export type ModuleImports = { file: string; imports: string[] };

/** The room a repository path belongs to, or null outside src/. */
export const roomOf = (path: string): string | null => {
  if (path.startsWith("src/platform/")) return "platform";
  const feature = /^src\/features\/([^/]+)\//.exec(path);
  if (feature) return feature[1]!;
  if (/^src\/[^/]+\.ts$/.test(path)) return "app.ts";
  return null;
};

const doorOf = (room: string) => `src/features/${room}/index.ts`;

/**
 * A room's schema file. It may name a lower room's schema file, for a foreign key only: doors
 * export no tables (door-tables.ts), and drizzle declares a foreign key with the other table.
 */
const isSchema = (path: string) => /^src\/features\/[^/]+\/tables\.ts$/.test(path);

/**
 * A room's Durable Object classes, which the Worker's entry (src/index.ts) alone imports, beside the
 * room's door: they load `cloudflare:workers`, which Node tools that enter the room through its
 * index.ts (npm start's seeding, the test servers) cannot load.
 */
const isDurableObjectDoor = (file: string, target: string) =>
  file === "src/index.ts" && /^src\/features\/[^/]+\/durable-objects\.ts$/.test(target);

/**
 * The order as docs/architecture.md writes it, on a line of its own:
 * `Import order: platform < connections, partners < supply < app.ts` (backticks allowed).
 */
export const importOrderIn = (doc: string): ImportOrder | null => {
  const line = /^Import order: `?([^`\n]+)`?\s*$/m.exec(doc);
  if (!line) return null;
  return line[1]!.split("<").map((layer) =>
    layer
      .split(",")
      .map((room) => room.trim())
      .filter(Boolean),
  );
};

/** The import cycles between rooms (each as `a -> b -> a`), whatever the order says. */
export const roomCycles = (modules: ModuleImports[]): string[] => {
  const edges = new Map<string, Set<string>>();
  for (const { file, imports } of modules) {
    const from = roomOf(file);
    if (!from) continue;
    for (const target of imports) {
      const to = roomOf(target);
      if (!to || to === from) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const cycles = new Set<string>();
  const walk = (room: string, path: string[]) => {
    for (const next of edges.get(room) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        // One spelling per cycle: start at its smallest room.
        const loop = path.slice(at);
        const start = loop.indexOf([...loop].sort()[0]!);
        const turned = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.add([...turned, turned[0]].join(" -> "));
      } else walk(next, [...path, next]);
    }
  };
  for (const room of edges.keys()) walk(room, [room]);
  return [...cycles].sort();
};

/** Every import that goes through a side door or against the order, and every cycle between rooms. */
export const importOrderProblems = (modules: ModuleImports[], order: ImportOrder): string[] => {
  const layerOf = new Map(order.flatMap((layer, i) => layer.map((room) => [room, i] as const)));
  const problems: string[] = [];
  for (const { file, imports } of modules) {
    const from = roomOf(file);
    if (!from) continue;
    const fromLayer = layerOf.get(from);
    if (fromLayer === undefined) {
      problems.push(`${file}: room ${from} is not in the import order`);
      continue;
    }
    for (const target of imports) {
      const to = roomOf(target);
      if (!to) continue;
      if (to === from) {
        if (target === doorOf(from)) problems.push(`${file}: imports its own room's index.ts (import the file itself)`);
        continue;
      }
      const toLayer = layerOf.get(to);
      if (toLayer === undefined)
        problems.push(`${file}: imports ${target}, whose room ${to} is not in the import order`);
      else if (toLayer >= fromLayer)
        problems.push(
          `${file}: imports ${target}: ${from} may not import ${to} (${order.map((l) => l.join(", ")).join(" < ")})`,
        );
      else if (
        to !== "platform" &&
        target !== doorOf(to) &&
        !(isSchema(file) && isSchema(target)) &&
        !isDurableObjectDoor(file, target)
      )
        problems.push(`${file}: imports ${target}: another room is entered only through ${doorOf(to)}`);
    }
  }
  return [...problems, ...roomCycles(modules).map((cycle) => `import cycle between rooms: ${cycle}`)];
};

/**
 * The repository paths a TypeScript source imports (static, re-exported and dynamic), for relative
 * specifiers only; `exists` says which candidate file is there (`x.ts`, `x/index.ts`, `x`).
 */
export const importsOf = (file: string, source: string, exists: (path: string) => boolean): string[] => {
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/gms),
    ...source.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1]!);
  const dir = file.split("/").slice(0, -1);
  const resolved: string[] = [];
  for (const specifier of specifiers.filter((s) => s.startsWith("."))) {
    const parts = [...dir];
    for (const part of specifier.split("/")) {
      if (part === "..") parts.pop();
      else if (part !== ".") parts.push(part);
    }
    const base = parts.join("/").replace(/\.(js|ts)$/, "");
    const found = [`${base}.ts`, `${base}/index.ts`, parts.join("/")].find(exists);
    if (found) resolved.push(found);
  }
  return resolved;
};
