import { describe, expect, it } from "vitest";
import { mismatches, shellBlocks } from "../support/readme-blocks";

const fence = "```";

describe("README's shell blocks", () => {
  it("takes sh and bash fences in order, dedented, with the skip mark of the line before", () => {
    const blocks = shellBlocks(
      [
        "## One",
        `${fence}sh`,
        "echo one",
        fence,
        "<!-- readme-test: skip (serves forever) -->",
        "",
        `${fence}bash`,
        "npm start",
        fence,
        `${fence}json`,
        "# not a heading",
        fence,
        "1. a list item",
        `   ${fence}sh`,
        "   echo three",
        `   ${fence}`,
      ].join("\n"),
    );
    expect(blocks.map((b) => [b.line, b.heading, b.code, b.skip])).toEqual([
      [2, "One", "echo one", null],
      [7, "One", "npm start", "serves forever"],
      [14, "One", "echo three", null],
    ]);
  });

  it("cuts a block at its shown outputs, joining continued lines and outputs shown in a row", () => {
    const [block] = shellBlocks(
      [
        `${fence}sh`,
        "A=1",
        "echo $A   # -> 1",
        "for x in a b; do echo $x; done",
        '# -> {"x": "a",',
        '#      "y": true}',
        "# -> b",
        "# a plain comment",
        "echo tail",
        fence,
      ].join("\n"),
    );
    expect(block!.segments).toEqual([
      { line: 2, code: "A=1\necho $A   # -> 1", expect: [{ line: 3, text: "1" }] },
      {
        line: 4,
        code: "for x in a b; do echo $x; done",
        expect: [
          { line: 6, text: '{"x": "a", "y": true}' },
          { line: 7, text: "b" },
        ],
      },
      { line: 8, code: "# a plain comment\necho tail", expect: [] },
    ]);
  });
});

describe("a shown output against the printed one", () => {
  it("accepts whole strings, booleans and value kinds that are printed, whatever the numbers", () => {
    const printed =
      '{\n  "status": "cancelled",\n  "cancelPrice": {"currency": "USD", "amount": 0},\n  "ok": true, "n": 7\n}';
    expect(mismatches('{"status":"cancelled","cancelPrice":{"currency":"USD",…},"ok":true,"n":3}', printed)).toEqual(
      [],
    );
  });

  it("names what is missing: a string, a key, a boolean, or a value of another kind", () => {
    const printed = '{"status":"success","cancelPrice":{"currency":"USD","amount":0},"ok":false,"id":"BK12"}';
    expect(mismatches('{"status":"cancelled","cancelPrice":0,"ok":true,"id":"BK…"}', printed)).toEqual([
      'prints no "cancelled"',
      'prints no "cancelPrice" with a number',
      'prints no "ok": true',
    ]);
    expect(mismatches('{"missing":"x…"}', printed)).toEqual([
      'prints no "missing"',
      'prints no "missing" with a string',
    ]);
  });

  it("compares plain text piece by piece between ellipses, spaces aside", () => {
    expect(mismatches("booked: BK… (success), … USD", "booked: BK12 (success), 403.92 USD\n")).toEqual([]);
    expect(mismatches("booked: BK… (failed)", "booked: BK12 (success)")).toEqual(['prints no "(failed)"']);
  });
});
