import { defineFamily } from '../../family.ts';
import { processOutboxRoutes } from './routes.ts';
import { createProcessOutboxService } from './service.ts';

export default defineFamily({ name: 'platform/process-outbox', register: (app, { pool }) => processOutboxRoutes(app, createProcessOutboxService(pool)) });
