/** What an environment API secret (adenv_…) may be used for: AuthZEN at /access/v1, the trust-store runtime. */
export const SECRET_PURPOSES = ['authzen', 'mcp'] as const;
export type SecretPurpose = (typeof SECRET_PURPOSES)[number];
