// What a family is: a Fastify plugin over the shared dependencies, registered from the ordered registry in ./index.ts.
import type { DatabasePool } from 'slonik';
import type { Config } from '../../lib/config.ts';
import type { SigningKeys } from '../access/signing-keys.ts';
import type { App } from '../types.ts';
import type { AccessModel } from '../../lib/authz/compile.ts';
import type { ModelCache } from '../access/models.ts';
import type { TrustStoreSnapshot } from '../access/trust-stores.ts';
import type { OidcProviders } from '../oidc/types.ts';
import type { MessageSender } from '../../lib/messages/sender.ts';
import type { PasswordPolicy } from '../passwords/policy.ts';
import type { EvaluationTimings } from '../protections/pipeline.ts';
import type { FgaService } from '../fga/service.ts';
import type { EntitlementsCache } from '../billing/entitlements-cache.ts';
import type { Readiness } from '../health/readiness.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { VanityStore } from '../vanity/store.ts';
import type { SharedWindows } from '../rate-limits/shared-windows.ts';

export interface FamilyDeps {
  config: Config;
  pool: DatabasePool;
  keys: SigningKeys;
  /** Encrypts secrets at rest (webhook signing secrets, provider credentials). */
  masterKey: Buffer;
  /** The token endpoint's issuer and the audience of management tokens. */
  issuer: string;
  audience: string;
  /** Each environment's compiled access model (directory and RBAC), kept current through NOTIFY. */
  models: ModelCache<AccessModel>;
  /** Each environment's trust store as the runtime resolves it, kept current through the same NOTIFY. */
  trustStores: ModelCache<TrustStoreSnapshot>;
  /** The FGA engine over each environment's store, its caches dropped after an `iam_fga` NOTIFY names it (api/fga). */
  fga: FgaService;
  /** Each environment's billing entitlements by organization, dropped with its access model (api/billing). */
  entitlements: EntitlementsCache;
  /** Each environment's OpenID provider, rebuilt after an `iam_oidc` NOTIFY names it. */
  oidc: OidcProviders;
  /** The active vanity domains by host (api/vanity/store.ts): their certificates, and the issuer on their host. */
  vanity: VanityStore;
  /** Sends people messages (lib/messages): the log sender and its inbox unless buildApp was given another. */
  sender: MessageSender;
  /** The password policy every place that sets a password asks (api/passwords/policy.ts). */
  passwordPolicy: PasswordPolicy;
  /** What `GET /v1/health/ready` reports (api/health/readiness.ts). */
  readiness: Readiness;
  /** The Prometheus metrics (api/metrics): what `GET /metrics` renders, and the figures families record. */
  metrics: Metrics;
  /** Rate-limit counts shared by every instance of the database (api/rate-limits/shared-windows.ts). */
  rateWindows: SharedWindows;
  /** Benchmarks only: the sign-in protections' evaluation timings (api/protections/pipeline.ts). */
  protectionTimings?: EvaluationTimings | undefined;
}

export interface Family {
  /** The family's folder, for logs and errors. */
  name: string;
  register(app: App, deps: FamilyDeps): void | Promise<void>;
}

export const defineFamily = (family: Family): Family => family;
