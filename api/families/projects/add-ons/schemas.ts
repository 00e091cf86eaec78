// Shapes of an environment's add-ons (SPEC "Add-ons"; the record's fields are ours: the SPEC does not show them).
import { z } from 'zod';
import { cursorPageOf, cursorParam, encodeCursor, ManagementMeta } from '../../../common/schemas.ts';
import { AddOnDelivery } from '../../../../db/add-ons/deliveries.ts';
import { DeliveryAttempt } from '../../../../db/events/webhooks/rows.ts';
import { ADD_ON_KIND_LIST, EnvironmentAddOn } from '../../../../db/add-ons/rows.ts';

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const AddOnParams = EnvironmentScopeParams.extend({ kind: z.enum(ADD_ON_KIND_LIST) });

// Checked against the kind's own schema by the service, so errors name e.g. body.config.siteKey.
const config = z
  .record(z.string(), z.unknown())
  .describe(
    'Per kind: turnstile, hcaptcha, recaptcha `{ siteKey, baseUrl? }`; `baseUrl` is the siteverify origin (default the vendor’s: ' +
      '`https://challenges.cloudflare.com`, `https://api.hcaptcha.com`, `https://www.google.com`). ' +
      'segment, analytics `{ baseUrl?, eventTypes? }`: the vendor’s API origin (default `https://api.segment.io`, `https://us.i.posthog.com`) and the ' +
      'event types forwarded (exact, `*` or `directory.user.*`; default the identity events, see docs/add-ons.md). ' +
      'Required on the first save; replaces the whole config when given.',
  );
const secrets = z
  .record(z.string(), z.unknown())
  .describe(
    'Write-only: turnstile, hcaptcha, recaptcha `{ secretKey }`; segment `{ writeKey }`; analytics `{ apiKey }`. Required on the first save; on an update the given ones replace the stored ones.',
  );

export const SaveAddOnBody = z
  .strictObject({
    active: z.boolean().optional().describe('true makes it the only active add-on of its category (one bot challenge per environment); false deactivates it'),
    config: config.optional(),
    secrets: secrets.optional(),
  })
  .meta({ id: 'SaveEnvironmentAddOnRequest' });

const meta = ManagementMeta.optional();
export const AddOnsList = z.object({ addOns: z.array(EnvironmentAddOn), meta }).meta({ id: 'ListEnvironmentAddOnsResponse' });
export const AddOnResponse = z.object({ addOn: EnvironmentAddOn, meta }).meta({ id: 'SaveEnvironmentAddOnResponse' });
export const TestAddOnResponse = z
  .object({
    success: z.boolean().describe('The vendor’s `success` for the dummy token (false from a real vendor)'),
    errorCodes: z.array(z.string()).describe('The vendor’s `error-codes` (`invalid-input-response` for the dummy token when the secret is right)'),
    secretAccepted: z
      .boolean()
      .describe('Whether the vendor took the secret key (no `invalid-input-secret` or `missing-input-secret`; for segment and analytics: no 401 or 403)'),
    statusCode: z.number().int().nullable().optional().describe('segment, analytics: the HTTP status the vendor answered the test event with'),
    meta,
  })
  .meta({ id: 'TestEnvironmentAddOnResponse' });
export const AddOnSuccessResponse = z.object({ success: z.literal(true), meta }).meta({ id: 'AddOnSuccessResponse' });

// Deliveries of a forwarding add-on (segment, analytics). Cursors are `d:<id>`: the last (oldest) delivery returned.
export const AddOnDeliveriesParams = EnvironmentScopeParams.extend({ kind: z.enum(['segment', 'analytics']) });
export const AddOnDeliveryParams = AddOnDeliveriesParams.extend({ deliveryId: z.uuid() });
export const encodeDeliveryCursor = (last: { id: string }) => encodeCursor(`d:${last.id}`);
export const DeliveriesQuery = z.strictObject({
  cursor: cursorParam(/^d:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/, (m) => ({ id: m[1]! })).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});
export type DeliveriesQuery = z.infer<typeof DeliveriesQuery>;
export const AddOnDeliveriesList = cursorPageOf('deliveries', AddOnDelivery).meta({ id: 'AddOnDeliveriesList' });
export const AddOnDeliveryDetail = z.object({ delivery: AddOnDelivery, attempts: z.array(DeliveryAttempt), meta }).meta({ id: 'AddOnDeliveryDetail' });
