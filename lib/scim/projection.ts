// `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5): which attributes a response carries. `schemas` and
// `id` are always returned; names are resolved like paths (case-insensitive, URN-qualified or dotted).
import { invalidValue } from './errors.ts';
import { resolvePath, type ResolvedPath, type SchemaSet } from './paths.ts';
import type { Resource } from './values.ts';

export interface Projection {
  attributes: ResolvedPath[] | undefined;
  excluded: ResolvedPath[];
}

const names = (schemas: SchemaSet, list: string | undefined) =>
  (list ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .flatMap((n) => {
      const resolved = resolvePath(schemas, n);
      if (resolved?.filter) throw invalidValue(`${n}: attributes take no value filter.`);
      return resolved ? [resolved] : [];
    });

export function parseProjection(schemas: SchemaSet, attributes: string | undefined, excluded: string | undefined): Projection {
  return { attributes: attributes ? names(schemas, attributes) : undefined, excluded: names(schemas, excluded) };
}

/** Whether a projection leaves the top-level attribute `name` (of the core schema) out entirely. */
export const leavesOut = (projection: Projection, name: string) =>
  projection.attributes
    ? !projection.attributes.some((p) => !p.extension && p.attribute.name === name)
    : projection.excluded.some((p) => !p.extension && !p.sub && p.attribute.name === name);

const holder = (resource: Resource, path: ResolvedPath) => (path.extension ? (resource[path.extension.id] as Resource | undefined) : resource);

export function project(resource: Resource, projection: Projection): Resource {
  if (projection.attributes) {
    const out: Resource = { schemas: resource.schemas, id: resource.id };
    for (const path of projection.attributes) {
      const from = holder(resource, path);
      const value = from?.[path.attribute.name];
      if (value === undefined) continue;
      const to = path.extension ? ((out[path.extension.id] ??= {}) as Resource) : out;
      if (!path.sub) to[path.attribute.name] = value;
      else if (Array.isArray(value)) {
        const sub = path.sub.name;
        const kept = ((to[path.attribute.name] as Resource[] | undefined) ?? value.map(() => ({}))).map((item, i) => ({
          ...item,
          [sub]: (value[i] as Resource)[sub],
        }));
        to[path.attribute.name] = kept;
      } else if (value && typeof value === 'object')
        to[path.attribute.name] = { ...(to[path.attribute.name] as Resource), [path.sub.name]: (value as Resource)[path.sub.name] };
    }
    return out;
  }
  if (projection.excluded.length === 0) return resource;
  const out = structuredClone(resource);
  for (const path of projection.excluded) {
    if (path.attribute.name === 'id') continue;
    const from = holder(out, path);
    if (!from) continue;
    if (!path.sub) delete from[path.attribute.name];
    else {
      const value = from[path.attribute.name];
      for (const item of Array.isArray(value) ? value : [value]) if (item && typeof item === 'object') delete (item as Resource)[path.sub.name];
    }
  }
  return out;
}
