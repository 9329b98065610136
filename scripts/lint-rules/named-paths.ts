import { importsOf } from "./feature-order";

const FILE = /\.(ts|js|mjs|md|sql|json|jsonc|toml|html|css|txt|graphql)$/;

/**
 * The repository paths a text names: in markdown the backticked words, in wrangler.toml every
 * word, that are a file (a known extension), a folder (a trailing `/`), relative (`./snippet`) or start
 * at a top-level entry of the repository (`src/features/upkeep`). Left out: URL paths (`/api/...`), packages
 * (`@scope/x`), placeholders (`<room>`, `*.test.ts`, `{id}`, `...`) and prose such as `book/cancel`.
 */
export const namedPaths = (text: string, kind: "markdown" | "toml", topLevel: ReadonlySet<string>): string[] => {
  const words =
    kind === "markdown"
      ? [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!)
      : [...text.matchAll(/(?<![\w:/.-])(?:\.\/)?[\w.-]+(?:\/[\w.-]*)*/g)].map((m) => m[0]);
  const paths = words
    .filter((word) => !/[<>*{}[\]]|\.\.\.|^\/|^@|^[a-z]+:/.test(word))
    .filter((word) => {
      const path = word.replace(/^\.\//, "");
      return (
        word.startsWith("./") ||
        (path.includes("/") && (path.endsWith("/") || topLevel.has(path.split("/")[0]!))) ||
        (FILE.test(path) && /^[\w.-]+(\/[\w.-]+)*$/.test(path) && !/^\.[a-z]+$/.test(path))
      );
    })
    .map((word) => word.replace(/^\.\//, ""));
  return [...new Set(paths)];
};

/**
 * Which named paths are in no file or folder of the repository. A path names a file or folder when
 * one of the repository's paths is it or ends with it (`booking/book.ts` is `src/features/booking/book.ts`,
 * as the prose around it says). `files` are the repository's files (git ls-files); `present` says
 * whether a path is there all the same (a generated file, a package under node_modules).
 */
export const missingPaths = (
  named: string[],
  files: readonly string[],
  present: (path: string) => boolean = () => false,
): string[] => {
  const folders = new Set(
    files.flatMap((f) =>
      f
        .split("/")
        .slice(0, -1)
        .map((_, i, parts) => `${parts.slice(0, i + 1).join("/")}/`),
    ),
  );
  const entries = [...files, ...folders];
  const known = (path: string) => {
    const asFolder = path.endsWith("/") ? path : `${path}/`;
    return entries.some(
      (entry) => entry === path || entry === asFolder || entry.endsWith(`/${path}`) || entry.endsWith(`/${asFolder}`),
    );
  };
  return named.filter((path) => !known(path) && !present(path));
};

/** Source and test files under src/ and test/ that import from scripts/ (scripts are entry points, never a library). */
export const scriptImports = (
  sources: ReadonlyArray<{ file: string; text: string }>,
  exists: (path: string) => boolean,
): string[] =>
  sources.flatMap(({ file, text }) =>
    importsOf(file, text, (path) => path.startsWith("scripts/") || exists(path))
      .filter((target) => target.startsWith("scripts/"))
      .map(
        (target) =>
          `${file}: imports ${target}: scripts/ holds entry points only; share it from test/support/ or local/`,
      ),
  );
