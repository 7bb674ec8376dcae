#!/usr/bin/env bash
# Generates a migration for each dialect — SQLite from src/db/schema.ts (drizzle.config.ts),
# PostgreSQL from src/db/schema-pg.ts (drizzle.pg.config.ts) — under the same name, and re-embeds
# both sets. A dialect whose schema did not change gets no file. Change both schemas together.
# Serialized with a lock so that two people changing the schema at once do not write the same
# migration number.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
exec 9>/tmp/posthorn-db-generate.lock
flock 9
name="${1:-change}"
drizzle-kit generate --config drizzle.config.ts --name "$name"
drizzle-kit generate --config drizzle.pg.config.ts --name "$name"
bun scripts/embed-migrations.ts
