import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OPENAPI_DOCUMENT_ASSET } from "../../src/platform/docs/openapi-document";
import { root } from "../../local/platform";
import { buildAll } from "../build-worker";

/**
 * Writes the Worker's own /openapi.json, indented, to the path given (default .openapi/openapi.json):
 * the document the Worker serves (snippet/_data/openapi.json, built with the Worker from the routes;
 * a workerd test holds it equal to what the routes declare), on npm start's default origin.
 */
export const dumpOpenApi = async (target = join(root, ".openapi", "openapi.json")) => {
  await buildAll();
  const document = JSON.parse(readFileSync(join(root, "snippet", OPENAPI_DOCUMENT_ASSET), "utf8"));
  const served = { ...document, servers: [{ url: "http://127.0.0.1:8787", description: "This deployment" }] };
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(served, null, 2)}\n`);
  return target;
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = await dumpOpenApi(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`OpenAPI document written to ${written}`);
}
