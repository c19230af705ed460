#!/bin/sh
# Creates or upgrades Temporal's schema in PostgreSQL, as the auto-setup image's script did (it is deprecated).
# Every step is idempotent in temporal-sql-tool itself: `create` accepts a database that exists, `setup-schema
# -v 0.0` leaves a newer schema version alone, `update-schema` applies only what is missing. So any failure is a
# real one and stops the job (and, through depends_on, whatever needs Temporal); compose reruns it on failure.
set -eu
# The database password from the generated secret (temporal-sql-tool reads SQL_PASSWORD).
SQL_PASSWORD="$(cat /run/secrets/temporal-db/password)"
export SQL_PASSWORD
tool() { temporal-sql-tool --plugin postgres12 --ep temporal-db -u temporal -p 5432 "$@"; }
for db in temporal temporal_visibility; do
  dir=temporal
  [ "$db" = temporal_visibility ] && dir=visibility
  tool --db "$db" create
  tool --db "$db" setup-schema -v 0.0
  tool --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"
done
