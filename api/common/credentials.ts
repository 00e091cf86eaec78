// Request shapes shared by every family that hands out or narrows credentials (service accounts, personal access
// tokens, organization keys, invitations, tenant seats).
import { z } from 'zod';
import { isKnownScope } from '../scopes.ts';

export const ScopeList = z.array(z.string().refine(isKnownScope, { error: (i) => `${String(i.input)} is not a known scope` })).max(100);

export const OrganizationParams = z.strictObject({ organizationId: z.uuid() });
