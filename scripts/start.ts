import { accommodationCountFromArgs, bootstrap } from "./bootstrap";
import { defaultStateDir, startWrangler } from "./local-platform";

// npm start: migrate and seed, then serve. Ctrl-C (or SIGTERM) stops wrangler and its workerd.
const port = process.env.PORT ?? "8787";
await bootstrap(accommodationCountFromArgs(process.argv.slice(2)));

const dev = startWrangler(["dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", defaultStateDir, "--show-interactive-dev-session=false"]);
console.log(`Edgestay API starting on http://127.0.0.1:${port} (docs at /docs). Ctrl-C stops it.`);

const stop = (signal: NodeJS.Signals) => {
  if (dev.exitCode === null) dev.kill(signal);
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
dev.on("exit", (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
