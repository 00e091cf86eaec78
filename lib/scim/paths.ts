// Attribute paths (RFC 7644 §3.10, §3.5.2): `[schema URN ":"] attr ["[" valFilter "]"] ["." sub]`, resolved
// case-insensitively to the canonical names of the resource's schemas.
import { invalidPath } from './errors.ts';
import { parseFilter, type Filter } from './filter.ts';
import { findAttribute, type AttributeDef, type SchemaDef } from './schema.ts';

export interface ResolvedPath {
  /** The extension schema the attribute belongs to; undefined for the core schema and common attributes. */
  extension: SchemaDef | undefined;
  attribute: AttributeDef;
  filter: Filter | undefined;
  sub: AttributeDef | undefined;
}

export interface SchemaSet {
  core: SchemaDef;
  extensions: SchemaDef[];
  /** id, externalId, meta. */
  common: AttributeDef[];
}

/** The extension a URN-prefixed name belongs to, and the rest of the name after it (`urn:…:User:manager` → manager). */
export function splitUrn(schemas: SchemaSet, name: string): { schema: SchemaDef | undefined; rest: string } | undefined {
  if (!/^urn:/i.test(name)) return undefined;
  const lower = name.toLowerCase();
  for (const schema of [schemas.core, ...schemas.extensions]) {
    const id = schema.id.toLowerCase();
    if (lower === id) return { schema, rest: '' };
    if (lower.startsWith(`${id}:`)) return { schema, rest: name.slice(id.length + 1) };
  }
  return { schema: undefined, rest: '' };
}

const ATTR = /^[A-Za-z$][\w$-]*/;

/** Resolves `path`; undefined for an attribute the schemas do not define (ignored by lenient writes). */
export function resolvePath(schemas: SchemaSet, path: string): ResolvedPath | undefined {
  let rest = path.trim();
  let schema = schemas.core;
  const urn = splitUrn(schemas, rest);
  if (urn) {
    if (!urn.schema || !urn.rest) return undefined;
    schema = urn.schema;
    rest = urn.rest;
  }
  const name = ATTR.exec(rest)?.[0];
  if (!name) throw invalidPath(`The path ${JSON.stringify(path)} is not a valid attribute path.`);
  rest = rest.slice(name.length);
  let filter: Filter | undefined;
  if (rest.startsWith('[')) {
    const end = closingBracket(rest);
    if (end < 0) throw invalidPath(`The path ${JSON.stringify(path)} has an unterminated value filter.`);
    filter = parseFilter(rest.slice(1, end));
    rest = rest.slice(end + 1);
  }
  let subName: string | undefined;
  if (rest.startsWith('.')) {
    subName = ATTR.exec(rest.slice(1))?.[0];
    if (!subName || rest.length !== subName.length + 1) throw invalidPath(`The path ${JSON.stringify(path)} is not a valid attribute path.`);
  } else if (rest !== '') throw invalidPath(`The path ${JSON.stringify(path)} is not a valid attribute path.`);
  const attribute = findAttribute(schema.attributes, name) ?? (schema === schemas.core ? findAttribute(schemas.common, name) : undefined);
  if (!attribute) return undefined;
  if (filter && !attribute.multiValued) throw invalidPath(`${attribute.name} is not multi-valued: it takes no value filter.`);
  const sub = subName === undefined ? undefined : findAttribute(attribute.subAttributes, subName);
  if (subName !== undefined && !sub) return undefined;
  return { extension: schema === schemas.core ? undefined : schema, attribute, filter, sub };
}

/** The index of the `]` closing the `[` at 0, skipping quoted strings; -1 if none. */
function closingBracket(text: string): number {
  let quoted = false;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ']') return i;
  }
  return -1;
}
