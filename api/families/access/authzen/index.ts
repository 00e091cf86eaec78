import { defineFamily } from '../../family.ts';
import { fgaDecisions } from './engines.ts';
import { authzenRoutes } from './routes.ts';

export default defineFamily({ name: 'access/authzen', register: (app, deps) => authzenRoutes(app, deps, fgaDecisions(deps.fga)) });
