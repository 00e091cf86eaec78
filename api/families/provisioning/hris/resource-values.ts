// Reading a canonical HRIS resource (lib/scim/values.ts) into service input: its values are checked here, so a
// wrong type is a SCIM 400 invalidValue rather than a database error.
import { z } from 'zod';
import { invalidValue } from '../../../../lib/scim/errors.ts';
import type { Resource } from '../../../../lib/scim/values.ts';

export const text = z.string().max(2048).nullish();
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `{ value }` of a reference; empty means none. */
export const Reference = z.looseObject({ value: z.string().max(200).nullish() }).nullish();

/** The checked body, or 400 invalidValue naming the first wrong attribute. */
export function parseResource<T extends z.ZodType>(schema: T, resource: Resource): z.infer<T> {
  const parsed = schema.safeParse(resource);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalidValue(`${issue.path.join('.') || 'body'}: ${issue.message}`);
}

/** The id a reference names; a value that is no id cannot name a resource of the environment: 400. */
export function referenceId(reference: z.infer<typeof Reference>, path: string, what: string): string | null {
  const value = reference?.value?.trim();
  if (!value) return null;
  if (!UUID.test(value)) throw invalidValue(`${path} names no ${what} of this environment (${value}).`);
  return value.toLowerCase();
}

export const present = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export const meta = (resourceType: string, location: string, created: string, updated: string[], version: number) => ({
  resourceType,
  created,
  lastModified: updated.reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b)),
  location,
  version: `W/"${version}"`,
});
