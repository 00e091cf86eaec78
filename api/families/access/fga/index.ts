import { defineFamily } from '../../family.ts';
import { fgaRoutes } from './routes.ts';
import { createFgaStoreService } from './service.ts';
import { FgaApiError } from '../../../fga/errors.ts';
import { createDslParser } from '../../../../lib/fga/dsl-parser.ts';

export default defineFamily({
  name: 'access/fga',
  register: (app, { pool, fga }) => {
    // The engine's errors (lib/fga FgaError) become 400s with their OpenFGA code; the app's handler renders them.
    app.setErrorHandler((error) => {
      throw FgaApiError.from(error) ?? error;
    });
    const dsl = createDslParser();
    app.addHook('onClose', () => dsl.close());
    fgaRoutes(app, createFgaStoreService(pool, fga), fga, dsl);
  },
});
