// The widget API of the user_profile and user_security widgets: the token's user reads and changes their own profile,
// lists and revokes their sessions, and lists and removes their passkeys and MFA factors, through the directory's
// services (same rules, audit with the user as actor, events).
import { z } from 'zod';
import { errorResponses } from '../../../common/schemas.ts';
import { UserResponse } from '../../directory/users/schemas.ts';
import { DirectorySessionsResponse, RevokeDirectorySessionsResponse } from '../../directory/sessions/schemas.ts';
import { PasskeysResponse } from '../../directory/passkeys/schemas.ts';
import { MfaFactorsResponse } from '../../directory/mfa-factors/schemas.ts';
import { SuccessIdResponse } from '../../../common/schemas.ts';
import { FactorParams, PageQuery, PasskeyParams, ProfileBody, SessionParams } from './api-schemas.ts';
import { widgetCallerOf, type WidgetGuard } from './widget-auth.ts';
import type { WidgetServices } from './widget-services.ts';
import type { App } from '../../../types.ts';

const tags = ['Widgets'];
export const WIDGET_CONFIG = { public: true, noStore: true } as const;
export const AS_USER = 'Authenticated with a widget token (`Authorization: Bearer <widget token>`) of the kind and scope named here, from one of its origins.';

export function widgetUserRoutes(app: App, guard: WidgetGuard, s: WidgetServices) {
  const userOf = (r: Parameters<typeof widgetCallerOf>[0]) => {
    const caller = widgetCallerOf(r);
    return { caller, userId: caller.widget.userId };
  };
  app.get('/v1/widgets/profile', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_profile', 'profile:read'),
    schema: {
      tags,
      operationId: 'widgetGetProfile',
      summary: "Widget: the user's profile",
      description: `user_profile, profile:read. ${AS_USER}`,
      response: { 200: UserResponse, ...errorResponses() },
    },
    handler: async (r) => {
      const { caller, userId } = userOf(r);
      return { user: await s.users.find(caller, userId) };
    },
  });
  app.patch('/v1/widgets/profile', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_profile', 'profile:write'),
    schema: {
      tags,
      operationId: 'widgetUpdateProfile',
      summary: "Widget: change the user's profile",
      description: `user_profile, profile:write. Display name, nickname, title, names, language, locale, time zone; emits directory.user.updated. ${AS_USER}`,
      body: ProfileBody,
      response: { 200: UserResponse, ...errorResponses() },
    },
    handler: async (r) => {
      const { caller, userId } = userOf(r);
      return { user: await s.users.update(caller, userId, r.body) };
    },
  });
  app.get('/v1/widgets/sessions', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_security', 'sessions:read'),
    schema: {
      tags,
      operationId: 'widgetListSessions',
      summary: "Widget: the user's sessions",
      description: `user_security, sessions:read. ${AS_USER}`,
      response: { 200: DirectorySessionsResponse, ...errorResponses() },
    },
    handler: (r) => {
      const { caller, userId } = userOf(r);
      return s.sessions.list(caller, userId);
    },
  });
  app.delete('/v1/widgets/sessions/:sessionId', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_security', 'sessions:write'),
    schema: {
      tags,
      operationId: 'widgetRevokeSession',
      summary: 'Widget: revoke one of the user’s sessions',
      description: `user_security, sessions:write. As DELETE …/directory/users/{userId}/sessions/{sessionId}; emits session.revoked. ${AS_USER}`,
      params: SessionParams,
      response: { 200: RevokeDirectorySessionsResponse, ...errorResponses(404) },
    },
    handler: (r) => {
      const { caller, userId } = userOf(r);
      return s.sessions.revokeOne(caller, userId, r.params.sessionId);
    },
  });
  app.get('/v1/widgets/passkeys', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_security', 'passkeys:read'),
    schema: {
      tags,
      operationId: 'widgetListPasskeys',
      summary: "Widget: the user's passkeys",
      description: `user_security, passkeys:read. ${AS_USER}`,
      querystring: PageQuery,
      response: { 200: PasskeysResponse, ...errorResponses() },
    },
    handler: (r) => {
      const { caller, userId } = userOf(r);
      return s.passkeys.list(caller, userId, r.query);
    },
  });
  app.delete('/v1/widgets/passkeys/:passkeyId', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_security', 'passkeys:write'),
    schema: {
      tags,
      operationId: 'widgetRemovePasskey',
      summary: 'Widget: remove one of the user’s passkeys',
      description: `user_security, passkeys:write. Emits user.passkey_removed. ${AS_USER}`,
      params: PasskeyParams,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => {
      const { caller, userId } = userOf(r);
      return s.passkeys.remove(caller, userId, r.params.passkeyId);
    },
  });
  app.get('/v1/widgets/mfa-factors', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_security', 'mfa:read'),
    schema: {
      tags,
      operationId: 'widgetListMfaFactors',
      summary: "Widget: the user's MFA factors",
      description: `user_security, mfa:read. ${AS_USER}`,
      response: { 200: MfaFactorsResponse, ...errorResponses() },
    },
    handler: (r) => {
      const { caller, userId } = userOf(r);
      return s.mfaFactors.list(caller, userId);
    },
  });
  app.delete('/v1/widgets/mfa-factors/:factorId', {
    config: WIDGET_CONFIG,
    preValidation: guard('user_security', 'mfa:write'),
    schema: {
      tags,
      operationId: 'widgetRemoveMfaFactor',
      summary: 'Widget: remove one of the user’s MFA factors',
      description: `user_security, mfa:write. Emits user.mfa_removed. ${AS_USER}`,
      params: FactorParams,
      response: { 204: z.null().describe('The factor is removed.'), ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { caller, userId } = userOf(r);
      await s.mfaFactors.remove(caller, userId, r.params.factorId);
      return reply.status(204).send(null);
    },
  });
}
