import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import domains from "disposable-email-domains";
import { DISPOSABLE_DOMAINS_ASSET, isDisposableEmail } from "./disposable-domains";

describe("disposable-domain list, served as a static asset", () => {
  it("is the maintained package's list, sorted and newline-framed (run `npm run assets` after upgrading it)", async () => {
    const res = await env.ASSETS.fetch(new Request(`https://assets.local${DISPOSABLE_DOMAINS_ASSET}`));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.startsWith("\n") && text.endsWith("\n")).toBe(true);
    const served = text.slice(1, -1).split("\n");
    expect(served).toEqual([...new Set((domains as string[]).map((d) => d.trim().toLowerCase()))].sort());
  });

  it.each([
    ["A@MAILINATOR.COM", true],
    ["a@sub.33m.co", true], // 33m.co is a wildcard entry
    ["a@gmail.com", false],
    ["a@example.com", false],
    ["a@mailinator.com.evil.example", false],
    ["a@inator.com", false],
  ])("%s -> %s", async (email, disposable) => {
    expect(await isDisposableEmail(env.ASSETS, email)).toBe(disposable);
  });
});
