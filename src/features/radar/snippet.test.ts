import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const gzippedSize = async (text: string) => {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
};

describe("snippet /radar.js (static asset)", () => {
  it("is served as JavaScript and is at most 5 KB gzipped", async () => {
    const res = await exports.default.fetch("https://edgestay.test/radar.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    const text = await res.text();
    expect(text).toContain("/api/v1/radar/sessions/signals");
    expect(await gzippedSize(text)).toBeLessThanOrEqual(5 * 1024);
  });

  it("has no dependencies, uses only the collector key, posts with keepalive and swallows its own errors", async () => {
    const text = await (await exports.default.fetch("https://edgestay.test/radar.js")).text();
    expect(text).not.toMatch(/\bimport\b|\brequire\(/);
    expect(text).not.toContain("api-key");
    expect(text).toContain("x-radar-collector-key");
    expect(text).toContain("keepalive: true");
    // Session ids under 16 characters are refused by the API; the snippet does not post them.
    expect(text).toContain("sessionId.length < 16");
    // The whole body is one try/catch inside an IIFE; only window.EdgestayRadar is assigned globally.
    expect(text.trim()).toMatch(/^\/\*[\s\S]*?\*\/\s*\(function \(\) \{\s*"use strict";[\s\S]*\}\)\(\);$/);
    expect([...text.matchAll(/\bw\.([A-Za-z]+)\s*=(?!=)/g)].map((m) => m[1])).toEqual(["EdgestayRadar"]);
  });
});
