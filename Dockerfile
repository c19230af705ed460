# The API and the worker share one image; docker-compose.yml picks the command. Node 24 LTS, the engines floor:
# an exact version pinned by its multi-platform digest, so a rebuild gets the same base (the tag beside it says which).
FROM node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553 AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages ./packages
# The development dependency that pins the Node npm scripts run on (installed here too, pruned with the rest).
COPY tools/node-runtime/package.json ./tools/node-runtime/package.json
# The console is a workspace of its own (its Vite, React, ... are installed with the rest).
COPY console/package.json ./console/package.json
RUN npm ci
COPY . .
# Compiled code, the workflows bundled once here rather than by every worker at start, and the console built
# (console/dist: hashed assets and index.html), so the image serves it prebuilt under /console.
RUN npm run build && node dist/src/worker/bundle-cli.js dist/workflow-bundle.js && npm run console:build \
  && npm prune --omit=dev

FROM node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DEVSTACK=off WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
COPY --from=build /app/package.json /app/openapi.yaml ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Beside openapi.yaml, where src/console/serve-console.ts finds it (CONSOLE_DIST).
COPY --from=build /app/console/dist ./console/dist
USER node
EXPOSE 8080
CMD ["node", "dist/src/main.js"]
