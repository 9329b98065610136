import { describe, expect, it } from "vitest";
import { call } from "../../../test/support/api";

const directive = (csp: string, name: string) =>
  csp
    .split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `)) ?? "";

describe("every HTML response carries the page security headers", () => {
  it.each([
    ["a static page the Worker serves", "/", 200],
    ["the API reference", "/docs", 200],
    ["a card-setup page (unknown link)", "/card-setup", 404],
    ["a card-setup page (.html, unknown link)", "/card-setup.html?token=nope", 404],
    ["a chat accommodation page (unknown code)", "/chat/accommodations/NOSUCHHOTEL", 404],
    ["a chat booking page (unknown reference)", "/chat/bookings/BKNOSUCHBOOKING", 404],
  ])("%s (%s)", async (_what, path, status) => {
    const res = await call("GET", path, undefined, { apiKey: null });
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(directive(csp, "default-src")).toBe("default-src 'none'");
    expect(directive(csp, "script-src")).toBe("script-src 'self'");
    expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });
});
