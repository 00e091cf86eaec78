import { defineFamily } from '../../family.ts';
import { eventRoutes } from './routes.ts';

export default defineFamily({ name: 'events/events', register: (app, { pool }) => eventRoutes(app, { pool }) });
