import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 40 item 1: the Hotel-X documents TravelgateX publishes, kept byte-identical to their source.
const dir = join(import.meta.dirname, "../fixtures/hotelx-published");
type Entry = { file: string; source: { url: string; commit: string }; retrieved: string; sha256: string };
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: Entry[] };

const filesUnder = (at: string): string[] =>
  readdirSync(at).flatMap((name) => {
    const path = join(at, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(dir, path)];
  });

describe("the collected published Hotel-X documents (test/fixtures/hotelx-published)", () => {
  it.each(manifest.files.map((entry) => [entry.file, entry] as const))("%s matches its SHA-256", (file, entry) => {
    const sha256 = createHash("sha256")
      .update(readFileSync(join(dir, file)))
      .digest("hex");
    expect(sha256).toBe(entry.sha256);
    expect(entry.source.url).toMatch(/^https:\/\/github\.com\/.+\/blob\/[0-9a-f]{40}\//);
    expect(entry.retrieved).toBe("2026-12-02");
  });

  it("lists every file it holds, and only those", () => {
    const held = filesUnder(dir).filter((file) => file !== "manifest.json" && file !== ".gitattributes");
    expect(held.sort()).toEqual(manifest.files.map((entry) => entry.file).sort());
  });
});
