import { defineFamily } from '../../family.ts';
import { fgaRoutes } from './routes.ts';
import { createFgaStoreService } from './service.ts';
import { FgaApiError } from '../../../fga/errors.ts';

export default defineFamily({
  name: 'access/fga',
  register: (app, { pool, fga }) => {
    // The engine's errors (lib/fga FgaError) become 400s with their OpenFGA code; the app's handler renders them.
    app.setErrorHandler((error) => {
      throw FgaApiError.from(error) ?? error;
    });
    fgaRoutes(app, createFgaStoreService(pool, fga), fga);
  },
});
