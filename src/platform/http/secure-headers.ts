import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * Headers for every response, pages above all: no inline script, no framing, no sniffing, no
 * referrer. Inline <style> stays allowed (the pages' own small style blocks; style cannot run code).
 * CORP stays off: /radar.js is loaded by partner pages on other origins.
 * `overwrite: false` lets a route that needs a wider policy (/docs) set its own.
 */
export const pageSecurityHeaders = (): MiddlewareHandler =>
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
    crossOriginResourcePolicy: false,
    xFrameOptions: "DENY",
    referrerPolicy: "no-referrer",
    overwrite: false,
  });

const SWAGGER_CDN = "https://cdn.jsdelivr.net";

/**
 * /docs (@hono/swagger-ui) loads Swagger UI from a CDN and starts it with one inline script: the
 * policy allows that CDN and exactly that script, by its SHA-256, and nothing else inline.
 */
export const docsSecurityPolicy = (): MiddlewareHandler =>
  async function docsSecurityPolicy(c, next) {
    await next();
    const html = await c.res.clone().text();
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    const hashes = await Promise.all(
      inline.map(async (code) => {
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code)));
        return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
      }),
    );
    c.res.headers.set(
      "Content-Security-Policy",
      [
        "default-src 'none'",
        `script-src ${SWAGGER_CDN} ${hashes.join(" ")}`,
        `style-src ${SWAGGER_CDN} 'unsafe-inline'`,
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join("; "),
    );
  };
