// Run by the mongo image once, when its data directory is new (/docker-entrypoint-initdb.d), as the root user that
// MONGO_INITDB_ROOT_USERNAME and _PASSWORD_FILE created: the service's own user, with rights on its own database
// only (reads and writes, and the indexes and collections it creates at start), with the password the `secrets`
// service generated. The API and the workers connect as this user (app/mongodb_uri), never as root.
/* global db -- mongosh's handle on the server */
// mongosh runs this as a CommonJS script, with Node's modules.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('fs');
const database = process.env.MONGODB_DB || 'lead_service';
const password = fs.readFileSync('/run/secrets/mongo/app_password', 'utf8').trim();
db.getSiblingDB(database).createUser({
  user: 'lead-service',
  pwd: password,
  roles: [
    { role: 'readWrite', db: database },
    { role: 'dbAdmin', db: database },
  ],
});
