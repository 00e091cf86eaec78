// Shapes of the widget API (/v1/widgets/…): the requests a widget may make; the answers are the API's own shapes.
import { z } from 'zod';
import { PageQuery } from '../../../common/schemas.ts';
import { UpdateUserBody } from '../../directory/users/schemas.ts';
import { CreateInvitationBody } from '../../organizations/invitations/schemas.ts';
import { CreatePersonalAccessTokenBody } from '../../identity/personal-access-tokens/schemas.ts';

export { PageQuery };

/** What a user may change of their own profile: never userName, emails, active or attributes (the operator's). */
export const ProfileBody = UpdateUserBody.pick({
  displayName: true,
  nickName: true,
  title: true,
  preferredLanguage: true,
  locale: true,
  timezone: true,
  names: true,
})
  .strict()
  .meta({ id: 'WidgetProfileRequest' });

export const WidgetInvitationBody = CreateInvitationBody.pick({ email: true, role: true, message: true }).strict().meta({ id: 'WidgetInvitationRequest' });

export const WidgetApiKeyBody = CreatePersonalAccessTokenBody.pick({ name: true, expiresAt: true }).strict().meta({ id: 'WidgetApiKeyRequest' });

export const SessionParams = z.strictObject({ sessionId: z.uuid() });
export const PasskeyParams = z.strictObject({ passkeyId: z.uuid() });
export const FactorParams = z.strictObject({ factorId: z.uuid() });
export const InvitationParams = z.strictObject({ invitationId: z.uuid() });
export const KeyParams = z.strictObject({ keyId: z.uuid() });
