#!/usr/bin/env bash
# Generates a migration from src/db/schema.ts and re-embeds the migrations. Serialized with a
# lock so that two people changing the schema at once do not write the same migration number.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
exec 9>/tmp/posthorn-db-generate.lock
flock 9
drizzle-kit generate --name "${1:-change}"
bun scripts/embed-migrations.ts
