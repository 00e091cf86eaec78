// The keys that sign an environment's provider cookies: derived from the master key (HKDF-SHA256) per
// environment, so no two environments (and no two deployments) share them and none is a constant.
import { hkdfSync } from 'node:crypto';

export const cookieKeys = (masterKey: Buffer, environmentId: string): string[] => [
  Buffer.from(hkdfSync('sha256', masterKey, environmentId, 'oidc-provider cookie keys v1', 32)).toString('base64url'),
];
