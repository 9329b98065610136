import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openSecret, sealSecret } from "../../platform/crypto/secret-box";
import { checkEndpointUrl } from "./endpoint-url";

describe("checkEndpointUrl", () => {
  it("allows http://127.0.0.1:<port> only in local development", () => {
    expect(checkEndpointUrl("http://127.0.0.1:9999/hooks", true)).toEqual({
      ok: true,
      url: "http://127.0.0.1:9999/hooks",
    });
    expect(checkEndpointUrl("http://127.0.0.1:9999/hooks", false)).toEqual({ ok: false, reason: "url must use https" });
    expect(checkEndpointUrl("https://127.0.0.1:9999/hooks", true)).toMatchObject({ ok: false });
  });

  it("accepts public https names and addresses, normalised", () => {
    expect(checkEndpointUrl("https://Partner.Example/a?b=1", false)).toEqual({
      ok: true,
      url: "https://partner.example/a?b=1",
    });
    expect(checkEndpointUrl("https://8.8.8.8/hooks", false)).toMatchObject({ ok: true });
    expect(checkEndpointUrl("https://[2606:4700::1111]/hooks", false)).toMatchObject({ ok: true });
    expect(checkEndpointUrl("https://172.32.0.1/hooks", false)).toMatchObject({ ok: true });
  });

  it.each([
    "https://0.0.0.0/",
    "https://0x7f.1/",
    "https://127.1/",
    "https://100.64.0.1/",
    "https://192.0.0.8/",
    "https://198.18.0.1/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[ff02::1]/",
    "https://printer.local/",
    "https://db.internal/",
    "https://router.home.arpa/",
    "https://localhost./",
  ])("refuses %s", (url) => {
    expect(checkEndpointUrl(url, false).ok).toBe(false);
  });
});

describe("sealed webhook secrets", () => {
  it("open only with the same key and row", async () => {
    const sealed = await sealSecret(env.WEBHOOK_SECRET_KEY, "webhook-signing-secret", "wh_1", "whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
    expect(await openSecret(env.WEBHOOK_SECRET_KEY, "webhook-signing-secret", "wh_1", sealed)).toBe("whsec_abc");
    await expect(openSecret(env.WEBHOOK_SECRET_KEY, "webhook-signing-secret", "wh_2", sealed)).rejects.toThrow();
    await expect(openSecret("another-key", "webhook-signing-secret", "wh_1", sealed)).rejects.toThrow();
  });
});
