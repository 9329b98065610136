import { describe, expect, it } from "vitest";
import { keyring } from "./keyring";
import { openToken, signToken } from "./signed-token";

const OLD = "o".repeat(32);
const NEW = "n".repeat(32);
const NOW = Date.parse("2030-01-01T00:00:00Z");

describe("signed tokens: one helper for every purpose", () => {
  it("opens what it signed until the expiry, then reports it expired with its payload", async () => {
    const token = await signToken(keyring(NEW), "content-page", { a: 1 }, NOW + 1000);
    expect(await openToken(keyring(NEW), "content-page", token, NOW)).toEqual({
      kind: "ok",
      payload: { a: 1 },
      expiresAt: NOW + 1000,
    });
    expect(await openToken(keyring(NEW), "content-page", token, NOW + 1000)).toEqual({
      kind: "expired",
      payload: { a: 1 },
      expiresAt: NOW + 1000,
    });
    const lasting = await signToken(keyring(NEW), "chat-booking-page", { r: "BK1" }, null);
    expect((await openToken(keyring(NEW), "chat-booking-page", lasting, NOW + 10 ** 12)).kind).toBe("ok");
  });

  it("never opens a token under another purpose, even with the same secret and payload", async () => {
    const token = await signToken(keyring(NEW), "booking-list-cursor", { a: 1 }, null);
    for (const purpose of ["content-page", "booking-option", "chat-booking-page"] as const) {
      expect((await openToken(keyring(NEW), purpose, token, NOW)).kind).toBe("bad_signature");
    }
  });

  it("signs with the current secret and still opens tokens of the previous one during a rotation", async () => {
    const before = await signToken(keyring(OLD), "booking-option", [4], NOW + 1000);
    const during = await signToken(keyring(NEW, OLD), "booking-option", [4], NOW + 1000);
    expect((await openToken(keyring(NEW, OLD), "booking-option", before, NOW)).kind).toBe("ok");
    expect((await openToken(keyring(NEW), "booking-option", during, NOW)).kind).toBe("ok");
    expect((await openToken(keyring(OLD), "booking-option", during, NOW)).kind).toBe("bad_signature");
    expect((await openToken(keyring(NEW), "booking-option", before, NOW)).kind).toBe("bad_signature");
  });

  it("tells a malformed token from a forged one, and refuses a forged expiry", async () => {
    const token = await signToken(keyring(NEW), "content-page", { a: 1 }, NOW + 1000);
    const [, sig] = token.split(".") as [string, string];
    const later = btoa(JSON.stringify({ d: { a: 1 }, e: NOW + 10 ** 9 }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    expect((await openToken(keyring(NEW), "content-page", `${later}.${sig}`, NOW)).kind).toBe("bad_signature");
    for (const bad of [
      "",
      "abc",
      "a.b.c",
      `${btoa("not json")}.${sig}`,
      `${btoa(JSON.stringify({ d: 1, e: "soon" }))}.${sig}`,
    ]) {
      expect((await openToken(keyring(NEW), "content-page", bad, NOW)).kind, bad).toBe("malformed");
    }
  });
});
