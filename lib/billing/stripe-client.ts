// The Stripe SDK client of an environment's `stripe` payments add-on: its secret key, and the API origin of its
// `baseUrl` (host, port and protocol: the local fake in tests, a proxy in some deployments). The origin is checked
// against the SSRF guard before each use, as every outbound URL of the service is. The SDK (about 4 MB of heap) is
// loaded on first use and kept afterwards: an instance that never talks to Stripe never loads it.
import type Stripe from 'stripe';
import { checkOutboundUrl } from '../outbound/ssrf-guard.ts';

export const STRIPE_API = 'https://api.stripe.com';

export interface StripeAddOn {
  secretKey: string;
  baseUrl?: string | undefined;
}

export interface StripePolicy {
  allowPrivate: boolean;
  timeoutMs: number;
}

let loaded: Promise<typeof Stripe> | undefined;
let sdk: typeof Stripe | undefined;
const loadStripe = async () => (sdk = await (loaded ??= import('stripe').then((m) => m.default)));

type StripeErrorClass = 'StripeError' | 'StripeConnectionError' | 'StripeAuthenticationError' | 'StripePermissionError';
/** Whether `error` is one of the SDK's errors (none can be before the SDK is loaded). */
export const isStripeError = (error: unknown, kind: StripeErrorClass = 'StripeError'): error is Stripe.errors.StripeError =>
  sdk !== undefined && error instanceof sdk.errors[kind];

/** A client for the add-on; throws OutboundUrlError when its origin is refused. */
export async function stripeClient(addOn: StripeAddOn, policy: StripePolicy): Promise<Stripe> {
  const { url } = await checkOutboundUrl(addOn.baseUrl ?? STRIPE_API, { allowPrivate: policy.allowPrivate });
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  const StripeSdk = await loadStripe();
  return new StripeSdk(addOn.secretKey, {
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: policy.timeoutMs,
    maxNetworkRetries: 1,
    telemetry: false,
  });
}

/** The SDK's webhook verifier (`constructEvent`): it needs no key, only the endpoint's signing secret. */
let verifier: Stripe | undefined;
export const stripeWebhooks = async () => (verifier ??= new (await loadStripe())('sk_unused')).webhooks;

/** The Stripe error's code or type, for a test's answer (`api_key_invalid`, `authentication_error`…). */
export const stripeErrorCode = (error: unknown) => (isStripeError(error) ? (error.code ?? error.type) : error instanceof Error ? error.name : 'error');
