// A SCIM resource type served by the generic routes (routes.ts): its schemas, how a filter reads its storage, and
// how it is loaded and written. Users and Groups are two descriptors; HRIS Employees and Departments are two more
// at another mount path.
import type { RequestOrigin } from '../../../../db/shared/changes.ts';
import type { ColumnLookup } from '../../../../db/provisioning/scim/filter-sql.ts';
import type { ScimListQuery } from '../../../../db/provisioning/scim/users.ts';
import { ScimError } from '../../../../lib/scim/errors.ts';
import type { SchemaSet } from '../../../../lib/scim/paths.ts';
import type { Projection } from '../../../../lib/scim/projection.ts';
import type { SchemaDef } from '../../../../lib/scim/schema.ts';
import type { Resource } from '../../../../lib/scim/values.ts';
import type { ProvisioningKind } from '../../../../db/provisioning/provisioning-tokens/rows.ts';
import type { TagName } from '../../../common/tags.ts';

/** Who provisions, where: the provisioning token's environment, and the base URL of `meta.location`. */
export interface ScimContext {
  environmentId: string;
  tenantId: string;
  tokenId: string;
  origin: RequestOrigin;
  /** The absolute URL of the mount (`https://host/v1/scim/v2`), from the request's host and protocol. */
  baseUrl: string;
}

export interface ResourceDescriptor {
  /** The resource type's name (`User`), its endpoint (`/Users`) and description, as /ResourceTypes shows them. */
  name: string;
  endpoint: string;
  description: string;
  schemas: SchemaSet & { extensions: SchemaDef[] };
  /** The SQL column of a lower-cased attribute path, for filters and sortBy. */
  column(ctx: ScimContext): ColumnLookup;
  list(ctx: ScimContext, query: ScimListQuery, projection: Projection): Promise<{ total: number; resources: Resource[] }>;
  /** The resource, or 404. */
  get(ctx: ScimContext, id: string, projection?: Projection): Promise<Resource>;
  /** Creates from a canonical body (lib/scim/values.ts). */
  create(ctx: ScimContext, input: Resource): Promise<Resource>;
  /** Replaces the resource with what `change` makes of its current canonical form, in one transaction. */
  update(ctx: ScimContext, id: string, change: (current: Resource) => Resource, ifMatch: string | undefined): Promise<Resource>;
  remove(ctx: ScimContext, id: string, ifMatch: string | undefined): Promise<void>;
}

const etagOf = (version: string) => `W/"${version}"`;

/** 412 when `If-Match` names another version than the current one (`*` matches any). */
export function checkVersion(ifMatch: string | undefined, version: string) {
  if (!ifMatch || ifMatch.trim() === '*') return;
  const wanted = ifMatch.split(',').map((v) => v.trim().replace(/^W\//, ''));
  if (!wanted.includes(`"${version}"`)) throw new ScimError(412, `The resource changed: its version is ${etagOf(version)}, not ${ifMatch}.`);
}

export const notFound = (name: string, id: string) => new ScimError(404, `No ${name} with id ${id}.`);
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/** A SCIM service at a mount path (./mount.ts): its own module, so the route builders need not import the mount. */
export interface ScimMount {
  prefix: string;
  kind: ProvisioningKind;
  tag: TagName;
  /** Prepended to operation ids (`scim` → `scimListUsers`). */
  operationPrefix: string;
  descriptors: ResourceDescriptor[];
  /** Whether lists take `sortBy` (default true); without it a `sortBy` is a 400 and discovery says so. */
  sort?: boolean;
}
