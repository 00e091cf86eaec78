// Widgets: scoped, short-lived tokens for embeddable widgets (issued by the management API), the widget API that
// accepts only them, and the web components that call it (GET /v1/widgets/widgets.js).
import { defineFamily } from '../../family.ts';
import { widgetTokenRoutes } from './routes.ts';
import { createWidgetTokenService } from './service.ts';
import { createWidgetGuard } from './widget-auth.ts';
import { createWidgetServices } from './widget-services.ts';
import { widgetUserRoutes } from './user-routes.ts';
import { widgetOrganizationRoutes } from './organization-routes.ts';
import { widgetScriptRoutes } from './script-routes.ts';

export default defineFamily({
  name: 'widgets/widgets',
  register: (app, { pool, masterKey, config, sender }) => {
    const { publicBaseUrl } = config;
    widgetTokenRoutes(app, createWidgetTokenService({ pool, masterKey, publicBaseUrl }));
    const guard = createWidgetGuard({ pool, publicBaseUrl });
    const logout = { publicBaseUrl, scheduleMs: config.backChannelLogout.scheduleMs };
    const services = createWidgetServices({ pool, logout, sender, log: app.log });
    widgetUserRoutes(app, guard, services);
    widgetOrganizationRoutes(app, guard, services);
    widgetScriptRoutes(app);
  },
});
