import { defineFamily } from '../../family.ts';
import { directoryGroupRoutes } from './routes.ts';
import { createGroupService } from './service.ts';

export default defineFamily({
  name: 'directory/groups',
  register: (app, { pool }) => directoryGroupRoutes(app, createGroupService(pool)),
});
