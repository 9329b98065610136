import { describe, expect, it } from "vitest";
import { openSecret, sealSecret } from "../crypto/secret-box";
import { checkEndpointUrl } from "./public-https-url";

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
    expect(checkEndpointUrl("https://partner.example:8443/hooks", false)).toMatchObject({ ok: true });
  });

  it.each([
    // IPv6 spellings that carry a public IPv4 reach that IPv4, so they pass like it.
    "https://[::ffff:8.8.8.8]/",
    "https://[64:ff9b::808:808]/",
    "https://[2002:808:808::1]/",
  ])("accepts %s (an embedded public IPv4)", (url) => {
    expect(checkEndpointUrl(url, false)).toMatchObject({ ok: true });
  });

  it.each([
    // Issue 25: NAT64, IPv4-translated and 6to4 spellings of link-local and loopback addresses.
    "https://[64:ff9b::a9fe:a9fe]/latest/meta-data",
    "https://[64:ff9b::7f00:1]/",
    "https://[::ffff:0:a9fe:a9fe]/",
    "https://[2002:a9fe:a9fe::]/",
    "https://[2002:7f00:1::1]/",
    // IPv4-compatible (deprecated), Teredo around a private client, local-use NAT64 (RFC 8215).
    "https://[::a9fe:a9fe]/",
    "https://[::127.0.0.1]/",
    "https://[2001:0:808:808:0:0:f5ff:fffe]/",
    "https://[64:ff9b:1::808:808]/",
    // Site-local, documentation, discard, benchmarking and unallocated IPv6.
    "https://[fec0::1]/",
    "https://[2001:db8::1]/",
    "https://[100::1]/",
    "https://[2001:2::1]/",
    "https://[4000::1]/",
    // Documentation, benchmarking and reserved IPv4.
    "https://192.0.2.1/",
    "https://198.51.100.7/",
    "https://203.0.113.9/",
    "https://240.0.0.1/",
  ])("refuses %s as a non-public address", (url) => {
    expect(checkEndpointUrl(url, false)).toEqual({
      ok: false,
      reason: "url must not point to a private, loopback or link-local address",
    });
  });

  it("refuses port 0", () => {
    expect(checkEndpointUrl("https://partner.example:0/hooks", false)).toEqual({
      ok: false,
      reason: "url must not use port 0",
    });
    expect(checkEndpointUrl("http://127.0.0.1:0/hooks", true)).toMatchObject({ ok: false });
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
  // Any key string: the Worker's comes from WEBHOOK_SECRET_KEY.
  const key = "webhook-secret-key-of-this-test";
  it("open only with the same key and row", async () => {
    const sealed = await sealSecret(key, "webhook-signing-secret", "wh_1", "whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
    expect(await openSecret(key, "webhook-signing-secret", "wh_1", sealed)).toBe("whsec_abc");
    await expect(openSecret(key, "webhook-signing-secret", "wh_2", sealed)).rejects.toThrow();
    await expect(openSecret("another-key", "webhook-signing-secret", "wh_1", sealed)).rejects.toThrow();
  });
});
