import { defineFamily } from '../../family.ts';
import { directoryUserRoutes } from './routes.ts';
import { createDirectoryUserService } from './service.ts';

export default defineFamily({
  name: 'directory/users',
  register: (app, { pool }) => directoryUserRoutes(app, createDirectoryUserService(pool)),
});
