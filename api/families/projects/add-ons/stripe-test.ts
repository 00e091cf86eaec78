// The `stripe` add-on's test: the SDK retrieves the account's balance (GET /v1/balance) with the saved secret key.
import { isStripeError, stripeClient, stripeErrorCode, type StripePolicy } from '../../../../lib/billing/stripe-client.ts';

export interface VendorTestOutcome {
  reached: boolean;
  success: boolean;
  errorCodes: string[];
  secretAccepted: boolean;
  error: string | null;
}

export async function testStripe(config: Record<string, unknown>, secretKey: string, policy: StripePolicy): Promise<VendorTestOutcome> {
  try {
    const client = await stripeClient({ secretKey, baseUrl: typeof config.baseUrl === 'string' ? config.baseUrl : undefined }, policy);
    await client.balance.retrieve();
    return { reached: true, success: true, errorCodes: [], secretAccepted: true, error: null };
  } catch (error) {
    if (isStripeError(error, 'StripeConnectionError') || !isStripeError(error)) {
      return { reached: false, success: false, errorCodes: [], secretAccepted: false, error: error instanceof Error ? error.message : String(error) };
    }
    const refused = isStripeError(error, 'StripeAuthenticationError') || isStripeError(error, 'StripePermissionError');
    return { reached: true, success: false, errorCodes: [stripeErrorCode(error)], secretAccepted: !refused, error: null };
  }
}
