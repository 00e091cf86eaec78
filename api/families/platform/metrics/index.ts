import { defineFamily } from '../../family.ts';
import { metricsRoutes } from './routes.ts';

export default defineFamily({ name: 'platform/metrics', register: (app, { metrics }) => metricsRoutes(app, metrics) });
