import { defineFamily } from '../../family.ts';
import { formAttachmentRoutes } from './attachment-routes.ts';
import { formRoutes } from './routes.ts';
import { createFormAttachmentService } from './attachments.ts';
import { createFormService } from './service.ts';

export default defineFamily({
  name: 'projects/forms',
  register: (app, { pool }) => {
    formRoutes(app, createFormService(pool));
    formAttachmentRoutes(app, createFormAttachmentService(pool));
  },
});
