// Shapes of a directory user's sign-in sessions.
import { z } from 'zod';
import { DirectorySession } from '../../../../db/directory/sessions/rows.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { DirectorySession };

export const UserParams = EnvironmentScopeParams.extend({ userId: z.uuid() });
export const SessionParams = UserParams.extend({ sessionId: z.uuid() });

export const DirectorySessionsResponse = z.object({ sessions: z.array(DirectorySession) }).meta({ id: 'DirectorySessionsResponse' });
export const RevokeDirectorySessionsResponse = z
  .object({ success: z.literal(true), sessions: z.array(DirectorySession).describe('The sessions this request revoked') })
  .meta({ id: 'RevokeDirectorySessionsResponse' });
