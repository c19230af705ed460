#!/bin/sh
# Creates or upgrades Temporal's schema in PostgreSQL (idempotent), as Temporal's own compose samples do now
# that the auto-setup image is deprecated.
set -eu
tool() { temporal-sql-tool --plugin postgres12 --ep temporal-db -u temporal -p 5432 "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" create || true
  dir=temporal
  [ "$db" = temporal_visibility ] && dir=visibility
  tool --db "$db" setup-schema -v 0.0 || true
  tool --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"
done
