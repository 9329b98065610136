/**
 * README's shell blocks as the README test runs them (test/e2e/npm-start/readme.ts): every ```sh or
 * ```bash fence in order, minus the ones README itself marks with `<!-- readme-test: skip (why) -->`
 * on the line before the fence. Each block is cut into segments at its `# -> ...` lines, so what a
 * block shows is compared with what the commands just above it printed.
 */

export const SKIP_MARK = /^<!--\s*readme-test:\s*skip\s*\((.+)\)\s*-->$/;

export type Expectation = { line: number; text: string };
/** Commands up to an expectation line (or the end of the block), and the expectations they must meet. */
export type Segment = { line: number; code: string; expect: Expectation[] };
export type ShellBlock = { line: number; heading: string; code: string; skip: string | null; segments: Segment[] };

const FENCE_OPEN = /^(\s*)```(sh|bash)\s*$/;
const FENCE_ANY = /^\s*```/;
/** `# -> shown output` on its own line; continued on lines indented further (`#     ...`). */
const EXPECT_LINE = /^#\s*->\s?(.*)$/;
const EXPECT_TRAILING = /\s#\s*->\s(.*)$/;
const CONTINUATION = /^#\s{2,}(\S.*)$/;

export const shellBlocks = (markdown: string): ShellBlock[] => {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{2,3} /.test(line)) heading = line.replace(/^#+ /, "");
    if (FENCE_ANY.test(line) && !FENCE_OPEN.test(line)) {
      // Another language's fence: step over its body, whose lines may start with "#".
      const close = lines.findIndex((l, j) => j > i && FENCE_ANY.test(l));
      i = close < 0 ? lines.length : close;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !FENCE_ANY.test(lines[j]!); j++) body.push(lines[j]!.slice(indent));
    let previous = i - 1;
    while (previous >= 0 && lines[previous]!.trim() === "") previous--;
    const skip = previous >= 0 ? (SKIP_MARK.exec(lines[previous]!.trim())?.[1] ?? null) : null;
    blocks.push({ line: i + 1, heading, code: body.join("\n"), skip, segments: segmentsOf(body, i + 2) });
    i = j;
  }
  return blocks;
};

/** `firstLine`: README's line number of the block's first line. */
export const segmentsOf = (body: string[], firstLine: number): Segment[] => {
  const segments: Segment[] = [];
  let code: string[] = [];
  let start = firstLine;
  let last: Segment | undefined;
  const close = (n: number, text: string) => {
    const expectation = { line: firstLine + n, text };
    if (code.some((l) => l.trim() !== "" && !l.trim().startsWith("#")) || !last) {
      last = { line: start, code: code.join("\n"), expect: [expectation] };
      segments.push(last);
    } else {
      // Several shown outputs in a row describe the same commands (a loop printing twice).
      last.expect.push(expectation);
    }
    code = [];
    start = firstLine + n + 1;
  };
  for (let n = 0; n < body.length; n++) {
    const line = body[n]!;
    const own = EXPECT_LINE.exec(line);
    const trailing = own ? null : EXPECT_TRAILING.exec(line);
    if (!own && !trailing) {
      code.push(line);
      continue;
    }
    if (trailing) code.push(line);
    let text = (own ?? trailing)![1]!.trim();
    while (n + 1 < body.length && CONTINUATION.test(body[n + 1]!)) text += ` ${CONTINUATION.exec(body[++n]!)![1]}`;
    close(n, text);
  }
  if (code.some((l) => l.trim() !== "")) segments.push({ line: start, code: code.join("\n"), expect: [] });
  return segments;
};

/** A string written whole in a shown output (not shortened with "..." or "…"). */
const WHOLE_STRING = /"((?:[^"\\]|\\.)*)"/g;
const SCALAR_PAIR = /"((?:[^"\\]|\\.)*)"\s*:\s*(true|false|null)\b/g;
const KEY_AND_VALUE = /"((?:[^"\\]|\\.)*)"\s*:\s*(\S)/g;
/** A value's kind by its first character, as a pattern for what follows `"key":` in compact JSON. */
const KIND: Array<[RegExp, string, string]> = [
  [/"/, '"', "a string"],
  [/\{/, "\\{", "an object"],
  [/\[/, "\\[", "an array"],
  [/[-\d]/, "-?\\d", "a number"],
  [/[tf]/, "(true|false)", "a boolean"],
];
const abbreviated = (s: string) => s.includes("...") || s.includes("…");
const compact = (s: string) => s.replace(/\s+/g, "");

/**
 * What of a shown output the printed one must contain, as a list of problems (empty: consistent).
 * JSON-like text (starting with `{`, `[` or `"`): every string written whole, key or value, every
 * `"key": true|false|null`, and for each key the kind of its value (string, object, array,
 * number, boolean); numbers and shortened strings vary with dates and ids, and are not compared. Other text is what the commands print, compared piece by piece between "..." or
 * "…", spaces aside.
 */
export const mismatches = (expected: string, printed: string): string[] => {
  const out = compact(printed);
  if (!/^[[{"]/.test(expected))
    return expected
      .split(/\.\.\.|…/)
      .map(compact)
      .filter((piece) => piece !== "" && !out.includes(piece))
      .map((piece) => `prints no "${piece}"`);
  const problems: string[] = [];
  for (const [, s] of expected.matchAll(WHOLE_STRING))
    if (!abbreviated(s!) && !out.includes(`"${compact(s!)}"`)) problems.push(`prints no "${s}"`);
  for (const [, key, first] of expected.matchAll(KEY_AND_VALUE)) {
    const kind = KIND.find(([test]) => test.test(first!));
    if (!kind || abbreviated(key!)) continue;
    const escaped = compact(key!).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (!new RegExp(`"${escaped}":${kind[1]}`).test(out)) problems.push(`prints no "${key}" with ${kind[2]}`);
  }
  for (const [, key, value] of expected.matchAll(SCALAR_PAIR))
    if (!abbreviated(key!) && !out.includes(`"${compact(key!)}":${value}`))
      problems.push(`prints no "${key}": ${value}`);
  return problems;
};
