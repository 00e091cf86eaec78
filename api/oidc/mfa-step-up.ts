// Step-up to a second factor: a client that sends `acr_values` containing urn:iam:acr:mfa gets the login prompt
// (the sign-in pages, which then ask for the second factor: api/families/oidc/sign-in/second-factor.ts) unless the
// session's authentication already reached that acr. The acr is in discovery's `acr_values_supported` and, once
// reached, in the ID token's `acr` claim.
import { interactionPolicy } from 'oidc-provider';
import { ACR_MFA } from './acr.ts';

/** oidc-provider's default prompts, with the login prompt also requested by a step-up the session has not reached. */
export function stepUpPolicy() {
  const policy = interactionPolicy.base();
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('mfa_step_up', 'A second factor is requested', 'login_required', (ctx) => {
      const requested = typeof ctx.oidc.params?.acr_values === 'string' ? ctx.oidc.params.acr_values.split(' ') : [];
      return requested.includes(ACR_MFA) && ctx.oidc.session?.acr !== ACR_MFA;
    }),
  );
  return policy;
}
