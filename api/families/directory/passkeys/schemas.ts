// Shapes of the passkey management API: a user's passkeys as the directory shows them (never the public key).
import { z } from 'zod';
import { Passkey } from '../../../../db/passkeys/rows.ts';
import { displayName, pageOf } from '../../../common/schemas.ts';

export { Passkey };

export const PasskeyUserParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid(), userId: z.uuid() });
export const PasskeyParams = PasskeyUserParams.extend({ passkeyId: z.uuid() });

export const RenamePasskeyBody = z.strictObject({
  name: displayName(100).describe('1 to 100 characters, trimmed, without control or bidirectional formatting characters'),
});
export type RenamePasskeyBody = z.infer<typeof RenamePasskeyBody>;

export const PasskeysResponse = pageOf('passkeys', Passkey).meta({ id: 'PasskeysResponse' });
export const PasskeyResponse = z.object({ passkey: Passkey }).meta({ id: 'PasskeyResponse' });
