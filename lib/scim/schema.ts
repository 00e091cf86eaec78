// SCIM 2.0 schema definitions (RFC 7643 §2, §7): what discovery advertises, and what reading, writing, filtering and
// patching resolve attribute names against (case-insensitively, RFC 7643 §2.1).
export const URN = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  bulkRequest: 'urn:ietf:params:scim:api:messages:2.0:BulkRequest',
  bulkResponse: 'urn:ietf:params:scim:api:messages:2.0:BulkResponse',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export type AttributeType = 'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'complex' | 'binary';

export interface AttributeDef {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: AttributeDef[];
}

export interface SchemaDef {
  id: string;
  name: string;
  description: string;
  attributes: AttributeDef[];
}

type Options = Partial<Omit<AttributeDef, 'name' | 'type' | 'description'>>;

/** An attribute definition with the RFC 7643 §2.2 defaults. */
export const attribute = (name: string, type: AttributeType, description: string, options: Options = {}): AttributeDef => ({
  name,
  type,
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...options,
});

export const str = (name: string, description: string, options: Options = {}) => attribute(name, 'string', description, options);
export const complex = (name: string, description: string, subAttributes: AttributeDef[], options: Options = {}) =>
  attribute(name, 'complex', description, { ...options, subAttributes });

/** A multi-valued attribute of `{ value, display?, type, primary }` items (emails, phoneNumbers…). */
export const multi = (name: string, description: string, types: string[], extra: AttributeDef[] = []) =>
  complex(
    name,
    description,
    [
      str('value', `The ${name} value.`),
      ...extra,
      str('type', 'A label of its function.', { canonicalValues: types }),
      attribute('primary', 'boolean', 'The primary one.'),
    ],
    { multiValued: true },
  );

/** The definition of `name` (any case) among `attributes`. */
export const findAttribute = (attributes: readonly AttributeDef[] | undefined, name: string) => {
  const lower = name.toLowerCase();
  return attributes?.find((a) => a.name.toLowerCase() === lower);
};
