import { defineFamily } from '../../family.ts';
import { signingKeyRoutes } from './routes.ts';

export default defineFamily({ name: 'identity/signing-keys', register: (app, { keys }) => signingKeyRoutes(app, keys) });
