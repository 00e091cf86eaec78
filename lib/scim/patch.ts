// PATCH (RFC 7644 §3.5.2) as real clients send it: capitalised ops, pathless values whose keys are dotted or URN
// paths, value-filtered paths created when absent, Entra's legacy `remove members` with a value list (removes only
// those), removal by `members[value eq "…"]`, and "" or null to clear. Applied to a canonical resource (values.ts).
import { invalidPath, invalidSyntax, invalidValue, mutability, noTarget, ScimError } from './errors.ts';
import { matchesItem, requiredEqualities } from './filter.ts';
import { resolvePath, splitUrn, type ResolvedPath, type SchemaSet } from './paths.ts';
import type { SchemaDef } from './schema.ts';
import { canonicalValue, type Resource } from './values.ts';

export type PatchVerb = 'add' | 'replace' | 'remove';
export interface PatchOperation {
  op: PatchVerb;
  path: string | undefined;
  value: unknown;
}

export const MAX_OPERATIONS = 1000;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const key = (item: unknown) => {
  const value = isObject(item) ? item.value : item;
  return typeof value === 'string' ? value.toLowerCase() : JSON.stringify(value);
};
const empty = (value: unknown) => value === null || value === '' || (isObject(value) && Object.keys(value).length === 0);

/** The operations of a PatchOp body; 400 invalidSyntax when it is not one. */
export function patchOperations(body: unknown): PatchOperation[] {
  const operations = isObject(body) ? Object.entries(body).find(([k]) => k.toLowerCase() === 'operations')?.[1] : undefined;
  if (!Array.isArray(operations)) throw invalidSyntax('A PATCH body is a PatchOp: { "schemas": [...PatchOp], "Operations": [...] }.');
  if (operations.length > MAX_OPERATIONS) throw new ScimError(400, `A PATCH takes at most ${MAX_OPERATIONS} operations.`, 'tooMany');
  return operations.map((raw, i) => {
    const fields = isObject(raw) ? new Map(Object.entries(raw).map(([k, v]) => [k.toLowerCase(), v])) : undefined;
    const op = typeof fields?.get('op') === 'string' ? (fields.get('op') as string).toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw invalidSyntax(`Operations[${i}].op must be add, replace or remove.`);
    const path = fields?.get('path');
    if (path !== undefined && path !== null && typeof path !== 'string') throw invalidPath(`Operations[${i}].path must be a string.`);
    if (op === 'remove' && !path) throw new ScimError(400, `Operations[${i}]: remove needs a path.`, 'noTarget');
    return { op, path: path || undefined, value: fields?.get('value') };
  });
}

/** Applies the operations to a copy of `resource` (canonical) and returns it. */
export function applyPatch(schemas: SchemaSet, resource: Resource, operations: PatchOperation[]): Resource {
  const result = structuredClone(resource);
  for (const operation of operations) {
    const urn = operation.path ? splitUrn(schemas, operation.path) : undefined;
    if (urn?.schema && urn.rest === '' && urn.schema !== schemas.core) {
      applyToExtension(schemas, result, operation, urn.schema);
      continue;
    }
    if (operation.path && !(urn?.schema === schemas.core && urn.rest === '' && operation.op !== 'remove')) {
      const resolved = resolvePath(schemas, operation.path);
      if (!resolved) throw invalidPath(`The path ${operation.path} names no attribute of this resource.`);
      apply(result, operation.op, resolved, operation.value, true);
      continue;
    }
    if (!isObject(operation.value)) throw invalidSyntax(`A ${operation.op} without a path takes an object value.`);
    for (const [name, value] of Object.entries(operation.value)) {
      const inner = splitUrn(schemas, name);
      if (inner?.schema && inner.rest === '' && isObject(value)) {
        for (const [attribute, v] of Object.entries(value)) {
          const resolved = resolvePath(schemas, `${inner.schema.id}:${attribute}`);
          if (resolved) apply(result, operation.op, resolved, v, false);
        }
        continue;
      }
      const resolved = name.toLowerCase() === 'schemas' ? undefined : resolvePath(schemas, name);
      if (resolved) apply(result, operation.op, resolved, value, false);
    }
  }
  return result;
}

/**
 * An operation whose path is an extension's URN acts on the extension as a whole: `add` merges the value's
 * attributes into it, `replace` replaces it with them, `remove` removes it. Unknown attributes in the value are
 * ignored, as in a pathless operation.
 */
function applyToExtension(schemas: SchemaSet, resource: Resource, operation: PatchOperation, extension: SchemaDef) {
  if (operation.op === 'remove') {
    delete resource[extension.id];
    return;
  }
  if (!isObject(operation.value)) throw invalidValue(`The value of a ${operation.op} at ${extension.id} is an object of its attributes.`);
  if (operation.op === 'replace') delete resource[extension.id];
  for (const [name, value] of Object.entries(operation.value)) {
    const resolved = resolvePath(schemas, `${extension.id}:${name}`);
    if (resolved) apply(resource, operation.op, resolved, value, false);
  }
  if (isObject(resource[extension.id]) && Object.keys(resource[extension.id] as object).length === 0) delete resource[extension.id];
}

function apply(resource: Resource, op: PatchVerb, path: ResolvedPath, value: unknown, explicit: boolean) {
  const { attribute, sub } = path;
  if (attribute.mutability === 'readOnly' || (sub && sub.mutability === 'readOnly')) {
    // Clients echo id and meta in pathless values (Okta's group rename): ignored; naming them is an error.
    if (explicit) throw mutability(`${attribute.name} is read-only.`);
    return;
  }
  const container = (path.extension ? (resource[path.extension.id] ??= {}) : resource) as Resource;
  const name = attribute.name;

  if (!attribute.multiValued) {
    if (!sub) {
      if (op === 'remove' || empty(value)) delete container[name];
      else {
        const canonical = canonicalValue(attribute, value);
        const merge = op !== 'replace' || attribute.name !== 'manager';
        container[name] = isObject(canonical) && isObject(container[name]) && merge ? { ...container[name], ...canonical } : canonical;
      }
      return;
    }
    const target = isObject(container[name]) ? container[name] : {};
    if (op === 'remove' || empty(value)) delete target[sub.name];
    else target[sub.name] = canonicalValue(sub, value);
    if (Object.keys(target).length > 0) container[name] = target;
    else delete container[name];
    return;
  }

  const before = Array.isArray(container[name]) ? (container[name] as Record<string, unknown>[]) : [];
  const primaries = new Set(before.filter((item) => item.primary === true));
  applyMulti(container, op, path, value);
  // At most one primary value (RFC 7643 §2.4): one this operation set wins, and the others are no longer primary.
  const after = Array.isArray(container[name]) ? (container[name] as Record<string, unknown>[]) : [];
  const flagged = after.filter((item) => item.primary === true);
  const winner = flagged.filter((item) => !primaries.has(item)).at(-1);
  if (flagged.length > 1 && winner) for (const item of flagged) if (item !== winner) item.primary = false;
}

function applyMulti(container: Resource, op: PatchVerb, path: ResolvedPath, value: unknown) {
  const { attribute, sub, filter } = path;
  const name = attribute.name;
  const items = Array.isArray(container[name]) ? (container[name] as Record<string, unknown>[]) : [];
  const caseExact = new Set((attribute.subAttributes ?? []).filter((s) => s.caseExact).map((s) => s.name.toLowerCase()));
  const selected = filter ? items.filter((item) => matchesItem(filter, item, caseExact)) : sub ? items : undefined;

  if (op === 'remove') {
    if (!selected) {
      // Entra's legacy member removal names the members to remove in `value`: only those go.
      const listed = value === undefined || value === null ? undefined : new Set((canonicalValue(attribute, value) as unknown[]).map(key));
      container[name] = listed ? items.filter((item) => !listed.has(key(item))) : [];
    } else if (filter && selected.length === 0) throw noTarget(`No ${name} value matches the filter of the path: nothing to remove.`);
    else if (sub) for (const item of selected) delete item[sub.name];
    else container[name] = items.filter((item) => !selected.includes(item));
    return;
  }

  if (!selected) {
    const given = canonicalValue(attribute, value) as Record<string, unknown>[];
    if (op === 'replace') container[name] = given;
    else {
      const seen = new Set(items.map(key));
      container[name] = [...items, ...given.filter((item) => !seen.has(key(item)))];
    }
    return;
  }
  const update = sub ? { [sub.name]: canonicalValue(sub, value) } : (canonicalValue(attribute, value, true) as Record<string, unknown>);
  if (!isObject(update)) throw invalidValue(`The value for ${name} must be an object.`);
  if (selected.length > 0) {
    for (const item of selected)
      for (const [k, v] of Object.entries(update))
        if (empty(v)) delete item[k];
        else item[k] = v;
    return;
  }
  // Create on absence (Entra: `emails[type eq "work"].value`): the filter's equalities make the new item.
  const equalities = filter && requiredEqualities(filter);
  if (!equalities) throw noTarget(`No ${name} value matches the filter of the path, and the filter does not say how to create one.`);
  const created = canonicalValue(attribute, { ...equalities, ...update }, true) as Record<string, unknown>;
  if (!empty(update[sub?.name ?? 'value'] ?? update)) container[name] = [...items, created];
}
