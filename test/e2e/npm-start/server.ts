import type { NpmStart } from "../../support/npm-start";

let current: NpmStart | undefined;

/** test/e2e/npm-start.test.ts's beforeAll sets it before any walk's test runs. */
export const useNpmStart = (server: NpmStart) => {
  current = server;
};

/** The one `npm start` the walks of test/e2e/npm-start.test.ts share. */
export const npmStart = (): NpmStart => {
  if (!current) throw new Error("npm start is not running: these walks run from test/e2e/npm-start.test.ts");
  return current;
};
