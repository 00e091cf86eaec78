import { defineFamily } from '../../family.ts';
import { auditLogRoutes } from './routes.ts';

export default defineFamily({ name: 'events/audit-logs', register: (app, { pool }) => auditLogRoutes(app, { pool }) });
