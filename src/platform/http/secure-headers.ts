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

/**
 * The partner console's page (snippet/console/) is stricter still: its one stylesheet is a file,
 * so no inline style either, and its forms are sent by its script, never by the browser. Set
 * over the policy above (whichever copy an asset response brought).
 */
export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export const consoleSecurityHeaders = (): MiddlewareHandler => async (c, next) => {
  await next();
  c.res.headers.set("Content-Security-Policy", CONSOLE_CONTENT_SECURITY_POLICY);
};
