import { defineFamily } from '../../family.ts';
import { messageRoutes } from './routes.ts';
import { createMessageService } from './service.ts';

export default defineFamily({
  name: 'projects/messages',
  register: (app, { pool, masterKey }) => messageRoutes(app, createMessageService({ pool, masterKey })),
});
