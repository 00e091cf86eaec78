// The acr values this service's providers know (used by the sign-in pages without loading oidc-provider).

/** The acr of a sign-in with a second factor, and what a client asks for in `acr_values` to require one. */
export const ACR_MFA = 'urn:iam:acr:mfa';
export const ACR_VALUES = [ACR_MFA];
