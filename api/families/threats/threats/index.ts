import { defineFamily } from '../../family.ts';
import { threatRoutes } from './routes.ts';
import { createThreatService } from './service.ts';

export default defineFamily({ name: 'threats/threats', register: (app, { pool }) => threatRoutes(app, createThreatService({ pool })) });
