import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { dirname, join, resolve } from "node:path";
import { unstable_startWorker } from "wrangler";
import { quietWranglerEnv, root } from "../../local/platform";

/**
 * Writes the Worker's own /openapi.json, fetched from the real Worker in workerd (the document is
 * built at run time from the routes, so this is exactly what partners get), to the path given
 * (default .openapi/openapi.json). No network: a throwaway state folder, no migrations needed.
 */
export const dumpOpenApi = async (target = join(root, ".openapi", "openapi.json")) => {
  Object.assign(process.env, quietWranglerEnv());
  const stateDir = mkdtempSync(join(tmpdir(), "edgestay-openapi-"));
  const worker = await unstable_startWorker({
    config: join(root, "wrangler.toml"),
    envFiles: [join(root, ".dev.vars.example")],
    dev: {
      server: { hostname: "127.0.0.1", port: 0 },
      inspector: false,
      persist: stateDir,
      watch: false,
      logLevel: "warn",
    },
  });
  try {
    await worker.ready;
    const response = await fetch(new URL("/openapi.json", await worker.url));
    if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}: ${await response.text()}`);
    const document = await response.json();
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
    return target;
  } finally {
    await worker.dispose();
    rmSync(stateDir, { recursive: true, force: true });
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = await dumpOpenApi(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`OpenAPI document written to ${written}`);
}
