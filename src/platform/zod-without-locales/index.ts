/** What "zod" resolves to in the bundle (wrangler.toml [alias]) and in the workerd tests (vitest.config.ts). */
import * as z from "./api";

export * from "./api";
export { z, z as default };
