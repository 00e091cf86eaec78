import { defineFamily } from '../../family.ts';
import { createEventRateLimiter } from './rate-limit.ts';
import { mcpEventRoutes } from './routes.ts';
import { createMcpEventService } from './service.ts';

export default defineFamily({
  name: 'threats/mcp-events',
  register: (app, { pool, models, config }) =>
    mcpEventRoutes(app, createMcpEventService({ pool, models, limiter: createEventRateLimiter(config.mcpEventsRateLimit) })),
});
