import { defineConfig } from "drizzle-kit";

// Feature-owned tables live in src/features/<name>/tables.ts; shared ones in platform/db.
export default defineConfig({
  dialect: "sqlite",
  schema: ["./src/platform/db/schema.ts", "./src/features/*/tables.ts"],
  out: "./migrations",
});
