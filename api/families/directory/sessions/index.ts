import { defineFamily } from '../../family.ts';
import { directorySessionRoutes } from './routes.ts';
import { createDirectorySessionService } from './service.ts';

export default defineFamily({
  name: 'directory/sessions',
  register: (app, { pool, config }) =>
    directorySessionRoutes(app, createDirectorySessionService(pool, { publicBaseUrl: config.publicBaseUrl, scheduleMs: config.backChannelLogout.scheduleMs })),
});
