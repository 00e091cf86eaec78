# syntax=docker/dockerfile:1
# One recipe, two targets sharing every layer but the command:
#   api    - the HTTP API (runs migrations at start)
#   worker - the Temporal worker (runs the durable processes: workflows from a prebuilt bundle, activities)

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; npm runs install scripts only for packages package.json `allowScripts` approves.
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY lib ./lib
COPY api ./api
COPY db ./db
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
RUN mkdir -p /data && chown node:node /data
USER node

FROM runtime AS api
EXPOSE 8080
# A young generation of 8 MB per semi-space (V8 sizes it from the host memory, up to 64 MB). Unlike `npm start`, no
# MALLOC_ARENA_MAX=1: an instance behind a load balancer is there for throughput, which one arena costs (docs/operations.md).
CMD ["node", "--max-semi-space-size=8", "api/server.ts"]

FROM runtime AS worker
# The worker loads the workflows prebuilt into dist/ instead of bundling them at every start.
USER root
COPY scripts/build-workflows.ts ./scripts/
RUN npm run build:workflows
USER node
CMD ["node", "worker/index.ts"]
