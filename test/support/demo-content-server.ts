import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { type DemoAccommodation, generateAccommodations } from "./accommodations";

/**
 * vitest globalSetup (runs in Node): the demo accommodations `npm start` seeds, generated once per
 * run and only as far as a test asks, served on 127.0.0.1 so faker and the city data never load
 * into workerd. `GET <url>/accommodations?count=N` answers the first N as JSON (demo-content.ts).
 */
declare module "vitest" {
  interface ProvidedContext {
    demoContent: string;
  }
}

export default async function setup(project: TestProject) {
  const generated: DemoAccommodation[] = [];
  const more = generateAccommodations(Number.MAX_SAFE_INTEGER);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://demo-content");
    const count = Number(url.searchParams.get("count"));
    if (url.pathname !== "/accommodations" || !Number.isSafeInteger(count) || count < 0) {
      res.writeHead(404).end();
      return;
    }
    while (generated.length < count) generated.push(more.next().value as DemoAccommodation);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(generated.slice(0, count)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("demo content server did not start");
  project.provide("demoContent", `http://127.0.0.1:${address.port}`);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
