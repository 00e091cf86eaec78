/** What an environment API secret (adenv_…) may be used for: AuthZEN at /access/v1, the trust-store runtime, the FGA API at /v1/fga. */
export const SECRET_PURPOSES = ['authzen', 'mcp', 'fga'] as const;
export type SecretPurpose = (typeof SECRET_PURPOSES)[number];
