/**
 * The HTML pages of snippet/ the asset router would serve without the Worker: each page's URLs
 * (`docs.html` is `/docs` and `/docs.html`, `index.html` is `/` and `/index.html`, a folder's
 * `console/index.html` is `/console`, `/console/` and `/console/index.html`) must be in
 * wrangler.toml's `[assets] run_worker_first`, so every page carries what the Worker adds
 * (x-edgestay-version, the request id). Patterns are exact paths or end in `/*`.
 */
export const pagesWithoutWorker = (pages: string[], runWorkerFirst: string[]): string[] => {
  const covered = (url: string) =>
    runWorkerFirst.some((pattern) => (pattern.endsWith("/*") ? url.startsWith(pattern.slice(0, -1)) : pattern === url));
  return pages
    .filter((page) => page.endsWith(".html"))
    .flatMap((page) => {
      const name = page.slice(0, -".html".length);
      const folder = name.endsWith("/index") ? name.slice(0, -"/index".length) : null;
      const urls =
        name === "index"
          ? ["/", "/index.html"]
          : folder !== null
            ? [`/${folder}`, `/${folder}/`, `/${page}`]
            : [`/${name}`, `/${page}`];
      return urls.filter((url) => !covered(url)).map((url) => `snippet/${page}: ${url} is not in run_worker_first`);
    });
};

/** wrangler.toml's `run_worker_first` list (`true` covers everything; absent, nothing). */
export const runWorkerFirstIn = (toml: string): string[] => {
  const line = /^run_worker_first\s*=\s*(.+)$/m.exec(toml)?.[1]?.trim();
  if (!line) return [];
  if (line === "true") return ["/*"];
  return [...line.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
};
