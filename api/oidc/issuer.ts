// Where an environment's OpenID provider lives, for the pages and APIs that name it without building it.

export class UnknownEnvironmentError extends Error {}

export const issuerOf = (publicBaseUrl: string, environmentId: string) => `${publicBaseUrl}/v1/oidc/${environmentId}`;

export const registrationEndpoint = (issuer: string) => `${issuer}/reg`;
