import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { OPENAPI_DOCUMENT_ASSET } from "../src/platform/docs/openapi-document";
import { root } from "../local/platform";

/**
 * wrangler.toml's [build] command (wrangler deploy, wrangler dev, npm start, npm test): what only
 * /openapi.json needs leaves the Worker's upload (issue 40's 260 KiB budget).
 * 1. The document the routes declare, built from the untouched sources under Node and written to
 *    snippet/_data/openapi.json, which the Worker serves.
 * 2. .build/worker.js: src/index.ts without what only the document reads (worker-documentation.ts:
 *    the schemas' `.openapi(...)` metadata, what the routes' configs say for the document alone),
 *    packages left to wrangler, which bundles this file as `main` with its alias, minify and source
 *    map (lines are kept, so traces name the sources' lines).
 * Both are skipped while the sources hash as they did at the last build.
 */

const BUILD_DIR = join(root, ".build");
const DOCUMENT_FILE = join(root, "snippet", OPENAPI_DOCUMENT_ASSET);
const BUILT_FROM = join(BUILD_DIR, "sources.sha256");
const WORKER_FILE = join(BUILD_DIR, "worker.js");
const ZOD = join(root, "src", "platform", "zod-without-locales", "index.ts");

/** The Durable Object base classes the sources extend: nothing of them runs when the document is built. */
const cloudflareWorkersInNode: Plugin = {
  name: "cloudflare-workers-in-node",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "cloudflare:workers", namespace: "stub" }));
    b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      contents: "export class DurableObject {} export class WorkerEntrypoint {} export const env = {};",
      loader: "js",
    }));
  },
};

/** The document the Worker's routes declare, as the asset's text: built in Node from the sources. */
export const openApiDocumentText = async (): Promise<string> => {
  const { build } = await import("esbuild");
  mkdirSync(BUILD_DIR, { recursive: true });
  const bundled = join(BUILD_DIR, "openapi-document.mjs");
  await build({
    stdin: {
      contents: [
        'import { createApp } from "./src/app";',
        'import { declaredDocument } from "./src/platform/docs/openapi-document";',
        'import { errorMessages } from "./src/platform/http/errors";',
        "export const document = () => declaredDocument(createApp(), errorMessages);",
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    conditions: ["workerd", "worker", "browser"],
    alias: { zod: ZOD },
    plugins: [cloudflareWorkersInNode],
    outfile: bundled,
    logLevel: "warning",
  });
  const { document } = (await import(`${pathToFileURL(bundled).href}?${Date.now()}`)) as { document: () => unknown };
  return `${JSON.stringify(document())}\n`;
};

/** Every file the build reads, hashed: the sources, the sandbox's, the locked packages and the build's scripts. */
const sourcesHash = () => {
  const hash = createHash("sha256");
  const files = ["src", "sandbox"].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.(ts|json|graphql)$/.test(file) && !/(^|\/)(node_modules|\.[^/]+)\//.test(file))
      .map((file) => join(dir, file)),
  );
  for (const file of [
    ...files.sort(),
    "package-lock.json",
    "scripts/build-worker.ts",
    "scripts/worker-documentation.ts",
  ])
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(root, file)))
      .update("\0");
  return hash.digest("hex");
};

const documentationLeftOut = (withoutDocumentation: (source: string, fileName: string) => string): Plugin => ({
  name: "documentation-left-out",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      return { contents: withoutDocumentation(readFileSync(args.path, "utf8"), args.path), loader: "ts" };
    });
  },
});

/** .build/worker.js (and its map): the Worker's own code without the metadata; packages stay imports. */
export const buildWorker = async () => {
  const [{ build }, { withoutDocumentation }] = await Promise.all([
    import("esbuild"),
    import("./worker-documentation"),
  ]);
  await build({
    entryPoints: [join(root, "src", "index.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    packages: "external",
    external: ["cloudflare:*", "node:*"],
    sourcemap: "linked",
    plugins: [documentationLeftOut(withoutDocumentation)],
    outfile: WORKER_FILE,
    logLevel: "warning",
  });
  // worker-configuration.d.ts names the Durable Object classes through `main`: their types are the sources'.
  writeFileSync(
    join(BUILD_DIR, "worker.d.ts"),
    'export * from "../src/index";\nexport { default } from "../src/index";\n',
  );
};

/**
 * Both outputs, unless they were built from these very sources (every `wrangler dev` of the tests
 * runs this command: a second one costs the hash alone). Answers whether it built.
 */
export const buildAll = async ({ force = false } = {}) => {
  const hash = sourcesHash();
  const built = [DOCUMENT_FILE, WORKER_FILE, BUILT_FROM].every((file) => existsSync(file));
  if (!force && built && readFileSync(BUILT_FROM, "utf8") === hash) return false;
  rmSync(BUILT_FROM, { force: true });
  writeFileSync(DOCUMENT_FILE, await openApiDocumentText());
  await buildWorker();
  writeFileSync(BUILT_FROM, hash);
  return true;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const built = await buildAll({ force: process.argv.includes("--force") });
  console.log(
    built
      ? `Built ${DOCUMENT_FILE.slice(root.length + 1)} and .build/worker.js in ${Date.now() - started} ms`
      : "snippet/_data/openapi.json and .build/worker.js are up to date",
  );
}
