import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * Headers for every response, pages above all: no inline script, no framing, no sniffing, no
 * referrer. Inline <style> stays allowed (the pages' own small style blocks; style cannot run code).
 * CORP stays off: /radar.js is loaded by partner pages on other origins.
 * The same policy covers /docs (Swagger UI from our own assets) and is in snippet/_headers for
 * what the asset router serves alone. `overwrite: false` keeps an asset response's own copy.
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
