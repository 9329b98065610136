import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { staticData } from "./static-data";

const ASSET = "/_data/timezone-countries.json";

// The real ASSETS binding, answering 503 to the first `failures` reads: an asset read that fails
// once (a deploy in flight, a transient error) must not stay failed for the isolate's life.
const flakyAssets = (failures: number) => {
  let reads = 0;
  const fetcher = {
    fetch: (request: Request) =>
      ++reads <= failures ? Promise.resolve(new Response("", { status: 503 })) : env.ASSETS.fetch(request),
  } as unknown as Fetcher;
  return { fetcher, reads: () => reads };
};

describe("staticData", () => {
  it("reads the asset once and answers every later call from the first read", async () => {
    let parses = 0;
    const load = staticData(ASSET, (res) => {
      parses++;
      return res.json<Record<string, string[]>>();
    });
    const assets = flakyAssets(0);
    const [a, b] = await Promise.all([load(assets.fetcher), load(assets.fetcher)]);
    expect(a["Europe/Madrid"]).toContain("ES");
    expect(await load(assets.fetcher)).toBe(a);
    expect(b).toBe(a);
    expect(assets.reads()).toBe(1);
    expect(parses).toBe(1);
  });

  it("names the asset and its status when the read fails", async () => {
    const load = staticData("/_data/no-such-file.json", (res) => res.json());
    await expect(load(env.ASSETS)).rejects.toThrow("/_data/no-such-file.json unavailable (404)");
  });

  it("does not keep a failed read: the next call reads again and succeeds", async () => {
    const load = staticData(ASSET, (res) => res.json<Record<string, string[]>>());
    const assets = flakyAssets(1);
    await expect(load(assets.fetcher)).rejects.toThrow(`${ASSET} unavailable (503)`);
    expect((await load(assets.fetcher))["Europe/Madrid"]).toContain("ES");
    expect(assets.reads()).toBe(2);
  });
});
