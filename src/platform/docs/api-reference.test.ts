import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import bundleJs from "swagger-ui-dist/swagger-ui-bundle.js?raw";
import uiCss from "swagger-ui-dist/swagger-ui.css?raw";
import licence from "swagger-ui-dist/LICENSE?raw";
import notice from "swagger-ui-dist/NOTICE?raw";
import { call } from "../../../test/support/api";
import { SWAGGER_UI_ASSET_DIR, SWAGGER_UI_FILES } from "./api-reference";

const PACKAGE_FILES: Record<(typeof SWAGGER_UI_FILES)[number], string> = {
  "swagger-ui-bundle.js": bundleJs,
  "swagger-ui.css": uiCss,
  LICENSE: licence,
  NOTICE: notice,
};

const get = (path: string) => call("GET", path, undefined, { apiKey: null });
const directive = (csp: string, name: string) =>
  csp
    .split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `)) ?? "";
const attributes = (html: string, tag: string, attribute: string) =>
  [...html.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${attribute}="([^"]*)"`, "gi"))].map((m) => m[1]!);

describe("Swagger UI, shipped as static assets from the pinned package", () => {
  it.each(SWAGGER_UI_FILES)(
    "%s is the package's file (run `npm run assets` after upgrading swagger-ui-dist)",
    async (file) => {
      const res = await env.ASSETS.fetch(new Request(`https://assets.local${SWAGGER_UI_ASSET_DIR}/${file}`));
      expect(res.status).toBe(200);
      const served = await res.text();
      expect(served.length).toBe(PACKAGE_FILES[file].length);
      expect(served === PACKAGE_FILES[file]).toBe(true);
    },
  );
});

describe("/docs and / are finished pages under the strict policy", () => {
  it.each(["/docs", "/"])(
    "%s answers 200 HTML with the CSP, only same-origin scripts and nothing inline",
    async (path) => {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(directive(csp, "default-src")).toBe("default-src 'none'");
      expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
      expect(directive(csp, "script-src")).toBe("script-src 'self'");
      expect(directive(csp, "style-src")).toBe("style-src 'self' 'unsafe-inline'");
      expect(csp).not.toMatch(/cdn|https?:/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      // Every script is a file on this origin; no inline script, no handler attribute.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      expect(res.text).not.toMatch(/\son[a-z]+=/i);
      for (const src of [...attributes(res.text, "script", "src"), ...attributes(res.text, "link", "href")]) {
        expect(src, src).toMatch(/^\/(?!\/)|^data:,$/);
      }
    },
  );

  it("every script and stylesheet the pages load is served, and the bootstrap points the UI at /openapi.json", async () => {
    const docs = await get("/docs");
    const index = await get("/");
    const files = new Set(
      [docs.text, index.text]
        .flatMap((html) => [...attributes(html, "script", "src"), ...attributes(html, "link", "href")])
        .filter((f) => f.startsWith("/")),
    );
    expect([...files].sort()).toEqual([
      "/docs.js",
      "/site.css",
      `${SWAGGER_UI_ASSET_DIR}/swagger-ui-bundle.js`,
      `${SWAGGER_UI_ASSET_DIR}/swagger-ui.css`,
    ]);
    for (const file of files) {
      const res = await get(file);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("content-type"), file).toMatch(file.endsWith(".css") ? /text\/css/ : /javascript/);
    }
    const bootstrap = (await get("/docs.js")).text;
    expect(bootstrap).toContain('url: "/openapi.json"');
    expect(bootstrap).not.toMatch(/https?:/);
    expect((await get("/openapi.json")).status).toBe(200);
  });

  it("the landing page links the reference, the document, the radar snippet and names the README sections", async () => {
    const { text } = await get("/");
    expect(attributes(text, "a", "href")).toEqual(expect.arrayContaining(["/docs", "/openapi.json", "/radar.js"]));
    for (const section of [
      "Set-up: two commands",
      "Search, quote, book and cancel with curl",
      "Booking through the chat API with curl",
      "Deploying",
    ]) {
      expect(text).toContain(section);
    }
  });
});
