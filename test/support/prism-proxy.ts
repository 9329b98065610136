import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "../../local/server";

const require = createRequire(import.meta.url);
const prismBin = join(dirname(require.resolve("@stoplight/prism-cli/package.json")), "dist", "index.js");

/** Problem types Prism answers with itself (its own 404, 422, 500 ...), never the Worker's. */
const PRISM_PROBLEM = "https://stoplight.io/prism/errors#";

export type PrismProxy = { url: string; output: () => string; stop: () => Promise<void> };

/** One Prism finding, as the `sl-violations` header and its problem bodies list them. */
type Violation = { location?: string[]; severity?: string; code?: string | number; message?: string };

const describeViolations = (violations: Violation[]) =>
  violations
    .map((v) => `  ${v.severity ?? "?"} at ${(v.location ?? []).join(".") || "(whole)"}: ${v.message}`)
    .join("\n");

/**
 * `prism proxy --errors <document> <upstream>` on a free loopback port: every request is checked
 * against the document and forwarded, every answer checked against the operation's responses.
 * Resolves once Prism says it listens.
 */
export const startPrismProxy = async (document: string, upstream: string): Promise<PrismProxy> => {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [prismBin, "proxy", "--errors", "--host", "127.0.0.1", "--port", String(port), document, upstream],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" } },
  );
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  await new Promise<void>((ready, fail) => {
    const deadline = setTimeout(() => fail(new Error(`Prism not listening in 60 s\n${output}`)), 60_000);
    const check = () => {
      if (output.includes("Prism is listening on")) {
        clearTimeout(deadline);
        ready();
      }
    };
    child.stdout!.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(deadline);
      fail(new Error(`Prism exited with ${code}\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
};

/**
 * What Prism found wrong with one exchange, or "" when the Worker answered and the document
 * describes its answer: a problem Prism answered itself (a request the document refuses, a
 * response that breaks its schema under --errors), or any finding in `sl-violations` (Prism
 * lets an undocumented 4xx/5xx status through with only a warning there).
 */
export const prismFindings = (answer: { status: number; headers: Headers; json: unknown }): string => {
  const findings: string[] = [];
  const problem = answer.json as { type?: string; title?: string; detail?: string; validation?: Violation[] } | null;
  if (typeof problem?.type === "string" && problem.type.startsWith(PRISM_PROBLEM)) {
    findings.push(`Prism answered ${answer.status} itself: ${problem.title}. ${problem.detail ?? ""}`);
    if (problem.validation) findings.push(describeViolations(problem.validation));
  }
  const header = answer.headers.get("sl-violations");
  if (header) {
    try {
      findings.push(`sl-violations:\n${describeViolations(JSON.parse(header) as Violation[])}`);
    } catch {
      findings.push(`sl-violations: ${header}`);
    }
  }
  return findings.join("\n");
};
