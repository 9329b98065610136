import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { quietWranglerEnv, root, wranglerBin } from "../local/platform";

// `wrangler types --check` (4.86) ignores --env-file and so fails on a clone without .dev.vars;
// this regenerates beside the committed file and compares everything but the command line.
const committed = join(root, "worker-configuration.d.ts");
const fresh = join(root, "worker-configuration.check.d.ts");
const body = (path: string) => readFileSync(path, "utf8").split("\n").slice(2).join("\n");
try {
  execFileSync(
    process.execPath,
    [wranglerBin, "types", fresh, "--env-file", ".dev.vars.example", "--strict-vars", "false"],
    {
      cwd: root,
      env: quietWranglerEnv(),
      stdio: "ignore",
    },
  );
  if (body(fresh) !== body(committed)) {
    console.error("worker-configuration.d.ts is out of date: run `npm run types` and commit it.");
    process.exit(1);
  }
  console.log("worker-configuration.d.ts is up to date.");
} finally {
  rmSync(fresh, { force: true });
}
