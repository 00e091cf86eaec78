// How directory subjects are named and described to conditions: the one identifier kind of an environment
// (./model.ts SubjectIdentifier), indexed so that a key two subjects share names neither, and the properties
// conditions see (stored attributes under the directory's fields).
import type { Subject } from './compile.ts';
import type { SubjectIdentifier } from './model.ts';

/** How an identifier of `kind` is looked up: userName, email and group names ignoring case, ids and externalIds exactly. */
export const identifierKey = (kind: SubjectIdentifier, value: string) => (kind === 'userName' || kind === 'email' ? value.toLowerCase() : value);

/** Each key of one subject only: a key two subjects share (data saved before uniqueness held) names neither. */
export function uniqueIndex(subjects: Subject[], keysOf: (s: Subject) => string[]): Map<string, Subject> {
  const index = new Map<string, Subject>();
  const shared = new Set<string>();
  for (const subject of subjects) {
    for (const key of keysOf(subject)) {
      const held = index.get(key);
      if (held && held !== subject) shared.add(key);
      else index.set(key, subject);
    }
  }
  for (const key of shared) index.delete(key);
  return index;
}

/** Stored attributes with the directory's fields over them; a field the directory leaves null keeps an attribute of that name. */
export function withDirectoryFields(attributes: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  const properties = { ...attributes };
  for (const [key, value] of Object.entries(fields)) if (value !== null || !(key in properties)) properties[key] = value;
  return properties;
}
