import { z } from 'zod';

export const AccountParams = z.object({ envId: z.string() });

export const ChangePasswordBody = z
  .strictObject({
    currentPassword: z.string().describe('The password the user signs in with now.'),
    newPassword: z.string().describe('The new password, as the environment’s password policy allows. Never returned, never logged.'),
    signOutOtherSessions: z.boolean().optional().describe('End the user’s other sessions (not the one this token came from); default false.'),
  })
  .meta({ id: 'ChangePasswordBody' });
