import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { root } from "../local/platform";

// npm test: the checks (`npm run checks`: worker types, tsc, lint, Redocly) and `vitest run` side
// by side. vitest waits on its servers and runtimes much of the time, which the checks fill: one
// after the other took about 20 s longer on the 2-core machine. vitest's report streams as it
// runs; the checks' output is printed when vitest ends, then one line says how each ended.
// Arguments go to vitest (`npm test -- --project unit`).
const vitestPackage = createRequire(import.meta.url).resolve("vitest/package.json");
const vitestBin = join(dirname(vitestPackage), JSON.parse(readFileSync(vitestPackage, "utf8")).bin.vitest);

const exitOf = (child: ReturnType<typeof spawn>) =>
  new Promise<number>((done) => child.on("exit", (code, signal) => done(code ?? (signal ? 1 : 0))));

let checksOutput = "";
const checks = spawn("npm", ["run", "--silent", "checks"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
checks.stdout!.on("data", (d) => (checksOutput += d));
checks.stderr!.on("data", (d) => (checksOutput += d));
const checksEnded = exitOf(checks);

const vitest = spawn(process.execPath, [vitestBin, "run", ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
const [vitestCode, checksCode] = [await exitOf(vitest), await checksEnded];

process.stdout.write(`\n${checksOutput}\n`);
console.log(`checks (npm run checks): ${checksCode === 0 ? "passed" : `failed with exit code ${checksCode}`}`);
console.log(`vitest run: ${vitestCode === 0 ? "passed" : `failed with exit code ${vitestCode}`}`);
process.exit(vitestCode !== 0 ? vitestCode : checksCode);
