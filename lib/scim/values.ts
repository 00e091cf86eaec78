// Lenient input, strict output: values as clients send them (PascalCase names, "True"/"False" strings, a bare id for
// a complex attribute, an object for a multi-valued one, `"$ref": null`, unknown names) made canonical by the
// schema: canonical names, real booleans, unknown and read-only attributes dropped.
import { invalidValue } from './errors.ts';
import { splitUrn, type SchemaSet } from './paths.ts';
import { findAttribute, type AttributeDef } from './schema.ts';

export type Resource = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function scalar(attribute: AttributeDef, value: unknown): unknown {
  if (attribute.type === 'boolean' && typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  if ((attribute.type === 'string' || attribute.type === 'reference') && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return value;
}

function complexValue(attribute: AttributeDef, value: unknown): unknown {
  // A complex attribute declaring no sub-attributes is open (HRIS customFields): kept as sent.
  if (attribute.subAttributes?.length === 0) return value;
  if (!isObject(value)) {
    // A bare value stands for `{ value }` (Entra's manager id, OneLogin's email); without a `value` it stays as sent.
    const sub = findAttribute(attribute.subAttributes, 'value');
    return value === null || value === '' || !sub ? value : { value: scalar(sub, value) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = findAttribute(attribute.subAttributes, key);
    if (sub && v !== null && v !== undefined) out[sub.name] = scalar(sub, v);
  }
  return out;
}

/** The canonical form of a value of `attribute` (a whole multi-valued list, or one item of it when `item`). */
export function canonicalValue(attribute: AttributeDef, value: unknown, item = false): unknown {
  if (attribute.type !== 'complex')
    return attribute.multiValued && !item && Array.isArray(value) ? value.map((v) => scalar(attribute, v)) : scalar(attribute, value);
  if (attribute.multiValued && !item) {
    if (value === null || value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).map((v) => complexValue(attribute, v)).filter((v) => v !== null && v !== '');
  }
  return complexValue(attribute, value);
}

const writable = (attribute: AttributeDef) => attribute.mutability !== 'readOnly' && attribute.mutability !== 'writeOnly';

/**
 * The writable attributes of a request body in canonical form: core attributes and externalId at the top, each
 * extension's under its URN (given nested or as `urn:…:attr` keys). Unknown schemas and attributes, read-only ones
 * (id, meta, groups) and write-only ones (password) are dropped.
 */
export function canonicalResource(schemas: SchemaSet, body: Record<string, unknown>): Resource {
  const out: Resource = {};
  const put = (target: Resource, attribute: AttributeDef | undefined, value: unknown) => {
    if (!attribute || !writable(attribute) || value === undefined) return;
    const canonical = canonicalValue(attribute, value);
    // "The primary attribute value 'true' MUST appear no more than once" (RFC 7643 §2.4).
    if (attribute.multiValued && Array.isArray(canonical) && canonical.filter((item) => isObject(item) && item.primary === true).length > 1)
      throw invalidValue(`${attribute.name}: at most one value may be primary.`);
    target[attribute.name] = canonical;
  };
  for (const [key, value] of Object.entries(body)) {
    const urn = splitUrn(schemas, key);
    if (!urn) {
      put(out, findAttribute(schemas.core.attributes, key) ?? findAttribute(schemas.common, key), value);
      continue;
    }
    if (!urn.schema || urn.schema === schemas.core) continue;
    const target = (out[urn.schema.id] ??= {}) as Resource;
    if (urn.rest === '' && isObject(value)) {
      for (const [name, v] of Object.entries(value)) put(target, findAttribute(urn.schema.attributes, name), v);
    } else if (urn.rest !== '') put(target, findAttribute(urn.schema.attributes, urn.rest), value);
  }
  return out;
}
