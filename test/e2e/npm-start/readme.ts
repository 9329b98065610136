import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mismatches, type ShellBlock, shellBlocks } from "../../support/readme-blocks";
import { npmStart } from "./server";

const root = resolve(import.meta.dirname, "../../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = shellBlocks(readme);
const runnable = blocks.filter((b) => b.skip === null);

const jqVersion = (() => {
  try {
    return execFileSync("jq", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
})();

/**
 * One bash, as a reader's terminal: every segment is sourced from a file with stdin at /dev/null
 * (so no command eats the next one), then a marker line says it ended. `set -e` ends the shell at
 * the first failing command, which the test reports with what the shell printed.
 */
class Shell {
  private out = "";
  private err = "";
  private readonly child: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), "edgestay-readme-"));
  private count = 0;

  constructor(env: NodeJS.ProcessEnv) {
    this.child = spawn("bash", ["--noprofile", "--norc"], { cwd: root, env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout!.on("data", (d) => (this.out += d));
    this.child.stderr!.on("data", (d) => (this.err += d));
    this.child.stdin!.write("set -euo pipefail\n");
  }

  /** Runs `code`; resolves with its stdout, or rejects with the exit status and both streams. */
  async run(code: string): Promise<string> {
    const n = ++this.count;
    const file = join(this.dir, `segment-${n}.sh`);
    writeFileSync(file, `${code}\n`);
    const marker = `@@readme-segment-${n}@@`;
    const from = this.out.length;
    const errFrom = this.err.length;
    this.child.stdin!.write(`. '${file}' < /dev/null\nprintf '\\n%s\\n' '${marker}'\n`);
    for (;;) {
      const at = this.out.indexOf(`\n${marker}\n`, from);
      if (at >= 0) return this.out.slice(from, at);
      if (this.child.exitCode !== null)
        throw new Error(
          `the shell exited with ${this.child.exitCode}\n--- stdout ---\n${this.out.slice(from)}\n--- stderr ---\n${this.err.slice(errFrom)}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  get exited() {
    return this.child.exitCode !== null;
  }

  stop() {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe("README, followed in order against npm start on a non-default port", () => {
  let shell: Shell;
  let failed = false;
  let started = Date.now();

  beforeAll(() => {
    if (!jqVersion)
      throw new Error("jq is missing: README's blocks use it (apt-get install -y jq; .ci/run installs it)");
    started = Date.now();
    // The reader's second terminal: PORT as they started npm start with, nothing of ours exported.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(npmStart().port) };
    for (const name of ["EDGESTAY_URL", "EDGESTAY_OPERATOR_TOKEN", "EDGESTAY_API_KEY", "WEBHOOK_SECRET"])
      delete env[name];
    shell = new Shell(env);
  });

  afterAll(() => {
    shell?.stop();
    console.log(`README's ${runnable.length} blocks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it("marks every block it does not run, with a reason, and runs the rest", () => {
    expect(runnable.length).toBeGreaterThan(15);
    const skipped = blocks.filter((b) => b.skip !== null).map((b) => `${b.heading}: ${b.skip}`);
    expect(skipped).toEqual([
      expect.stringMatching(/^Set-up: two commands: /),
      expect.stringMatching(/^The event log: .+: /),
      expect.stringMatching(/^Deploying: /),
    ]);
    // One base URL for curl, the CLI and the example, exported once near the top.
    expect(readme.match(/^export EDGESTAY_URL=/gm)).toHaveLength(1);
    for (const block of runnable) {
      // Commands only: what a comment says is not run.
      const commands = block.code
        .split("\n")
        .filter((line) => !line.trim().startsWith("#"))
        .map((line) => line.replace(/\s#\s.*$/, ""))
        .join("\n");
      const where = `README line ${block.line}`;
      expect(commands, `${where}: a fixed port`).not.toMatch(/:8787|:8791/);
      expect(commands, `${where}: a <placeholder> to fill in`).not.toMatch(/<[A-Za-z][^<>\n]*>/);
      expect(commands, `${where}: a written date (compute it: date -u -d '+30 days' +%F)`).not.toMatch(
        /\b20\d\d-\d\d-\d\d/,
      );
    }
  });

  const label = (b: ShellBlock) => `line ${b.line} (${b.heading})`;
  for (const block of runnable) {
    it(`runs the block at ${label(block)} and prints what it shows`, async (ctx) => {
      if (failed || shell.exited) ctx.skip();
      try {
        for (const segment of block.segments) {
          const printed = await shell.run(segment.code).catch((e: Error) => {
            throw new Error(`README line ${segment.line}: ${e.message}`);
          });
          for (const shown of segment.expect)
            expect(
              mismatches(shown.text, printed),
              `README line ${shown.line} shows: ${shown.text}\nprinted:\n${printed}`,
            ).toEqual([]);
        }
      } catch (e) {
        failed = true;
        throw e;
      }
    });
  }
});
