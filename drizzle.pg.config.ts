import { defineConfig } from "drizzle-kit";

// The PostgreSQL migration set; drizzle.config.ts is SQLite's. scripts/db-generate.sh runs both.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg.ts",
  out: "./src/db/migrations-pg",
});
