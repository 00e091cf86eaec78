// Shapes of an environment's email providers (SPEC "Delivery providers", tag Email providers).
import { z } from 'zod';
import { ManagementMeta } from '../../../common/schemas.ts';
import { EMAIL_PROVIDER_KINDS } from '../../../../lib/email/kinds.ts';
import { EnvironmentEmailProvider } from '../../../../db/email-providers/rows.ts';

export { EnvironmentEmailProvider };

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });

const kind = z.enum(EMAIL_PROVIDER_KINDS);
export const EmailProviderParams = EnvironmentScopeParams.extend({ provider: kind });

// Checked against the kind's own schema by the service, so errors name e.g. body.config.region.
const config = z
  .record(z.string(), z.unknown())
  .describe(
    'Per kind: resend, sendgrid `{ from, replyTo?, baseUrl? }`; postmark the same and `messageStream?` (default `outbound`); ses the same and ' +
      '`region`; smtp `{ host, port, secure? (implicit TLS, default false), requireTls? (STARTTLS required when not secure, default true), from, replyTo?, dkim? { domainName, keySelector } }`. ' +
      '`baseUrl` defaults to the vendor’s API.',
  );
const secrets = z
  .record(z.string(), z.unknown())
  .describe(
    'Write-only, per kind: resend, sendgrid `{ apiKey }`; postmark `{ serverToken }`; ses `{ accessKeyId, secretAccessKey }`; smtp `{ username, password, dkimPrivateKey? }` (a PEM key, required with config.dkim). ' +
      'Required on the first save; on an update the given ones replace the stored ones, `null` removes an optional one, and the others are kept.',
  );

export const SaveEmailProviderBody = z
  .strictObject({
    provider: kind.describe('The provider kind; must be the one of the path'),
    active: z.boolean().optional().describe('true makes it the environment’s only active email provider; false deactivates it'),
    config: config.optional().describe('Required on the first save; replaces the whole config when given'),
    secrets: secrets.optional(),
  })
  .meta({ id: 'SaveEnvironmentEmailProviderRequest' });

export const TestEmailProviderBody = z
  .strictObject({
    provider: kind,
    recipient: z.email({ error: 'must be an email address' }).max(320).describe('Where the test message goes'),
  })
  .meta({ id: 'TestEmailProviderRequest' });

const meta = ManagementMeta.optional();
export const EmailProvidersList = z.object({ providers: z.array(EnvironmentEmailProvider), meta }).meta({ id: 'ListEnvironmentEmailProvidersResponse' });
export const EmailProviderResponse = z.object({ provider: EnvironmentEmailProvider, meta }).meta({ id: 'SaveEnvironmentEmailProviderResponse' });
export const TestEmailProviderResponse = z
  .object({ success: z.boolean(), messageId: z.string().describe('The id the vendor gave the message (SMTP: its Message-ID)'), meta })
  .meta({ id: 'TestEmailProviderResponse' });
export const EmailProviderSuccessResponse = z.object({ success: z.literal(true), meta }).meta({ id: 'EmailProviderSuccessResponse' });
