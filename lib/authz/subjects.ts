// How directory subjects are named and described to conditions: the identifier kind of an environment
// (./model.ts SubjectIdentifier), indexed so that a key two subjects share names neither, and the properties
// conditions see (stored attributes under the directory's fields).
import type { StoredModel, SubjectIdentifier } from './model.ts';

export interface Subject {
  kind: 'user' | 'group';
  id: string;
  /**
   * The id requests name the subject by, of the environment's identifier kind (as stored; under `any` the externalId,
   * else the userName or name); null when the subject has none (no externalId, no email): search leaves it out.
   */
  publicId: string | null;
  active: boolean;
  /** Stored facts conditions see as `subject.properties` (a request's properties fill only the other keys). */
  properties: Record<string, unknown>;
  groupIds: string[];
  /** Position in the model's stable order (creation), for search paging. */
  order: number;
  /** Holds elevate grants (./evaluate.ts checks their time window at each decision). */
  elevated?: boolean;
}

type StoredUser = StoredModel['users'][number];
type StoredGroup = StoredModel['groups'][number];

/** The keys a subject is named by: `exact` (ids, externalIds) as sent, `folded` (userNames, emails, group names) ignoring case. */
export interface SubjectKeys {
  exact: string[];
  folded: string[];
}

/** Subjects by the keys requests name them by; null marks a key two subjects share (data saved before uniqueness held): it names neither. */
export interface SubjectIndex {
  exact: Map<string, Subject | null>;
  folded: Map<string, Subject | null>;
}

const present = (...values: (string | null)[]) => values.filter((v): v is string => v !== null);

/** A user's keys under `kind`: under `any` its id and externalId exactly and its userName ignoring case (as before 0023). */
export function userKeys(kind: SubjectIdentifier, u: StoredUser): SubjectKeys {
  if (kind === 'id') return { exact: [u.id], folded: [] };
  if (kind === 'externalId') return { exact: present(u.externalId), folded: [] };
  if (kind === 'userName') return { exact: [], folded: [u.userName] };
  if (kind === 'email') return { exact: [], folded: u.emails };
  return { exact: present(u.id, u.externalId), folded: [u.userName] };
}

/** A group's keys under `kind`: its name stands for userName and email; under `any` id, externalId and name. */
export function groupKeys(kind: SubjectIdentifier, g: StoredGroup): SubjectKeys {
  if (kind === 'id') return { exact: [g.id], folded: [] };
  if (kind === 'externalId') return { exact: present(g.externalId), folded: [] };
  if (kind === 'any') return { exact: present(g.id, g.externalId), folded: [g.name] };
  return { exact: [], folded: [g.name] };
}

/** The id search answers with: of the kind (the first key), under `any` the externalId, else the userName (name). */
export const publicIdOf = (kind: SubjectIdentifier, keys: SubjectKeys): string | null =>
  kind === 'any' ? (keys.exact[1] ?? keys.folded[0] ?? null) : (keys.exact[0] ?? keys.folded[0] ?? null);

/**
 * Each key of one subject only. Under `any`, an exact key equal (ignoring case) to another subject's folded key (an
 * externalId equal to another user's userName, refused at write since 0026) names neither subject either.
 */
export function subjectIndex(subjects: Subject[], keysOf: (s: Subject) => SubjectKeys): SubjectIndex {
  const index: SubjectIndex = { exact: new Map(), folded: new Map() };
  const put = (map: Map<string, Subject | null>, key: string, subject: Subject) => {
    const held = map.get(key);
    map.set(key, held === undefined || held === subject ? subject : null);
  };
  for (const subject of subjects) {
    const keys = keysOf(subject);
    for (const key of keys.exact) put(index.exact, key, subject);
    for (const key of keys.folded) put(index.folded, key.toLowerCase(), subject);
  }
  if (index.exact.size > 0 && index.folded.size > 0) {
    for (const [key, subject] of index.exact) {
      const other = index.folded.get(key.toLowerCase());
      if (other === undefined || other === subject) continue;
      index.exact.set(key, null);
      index.folded.set(key.toLowerCase(), null);
    }
  }
  return index;
}

/** The one subject `id` names, if exactly one does. */
export function lookUp(index: SubjectIndex, id: string): Subject | undefined {
  const exact = index.exact.get(id);
  if (exact !== undefined) return exact ?? undefined;
  return index.folded.size === 0 ? undefined : (index.folded.get(id.toLowerCase()) ?? undefined);
}

/** Stored attributes with the directory's fields over them; a field the directory leaves null keeps an attribute of that name. */
export function withDirectoryFields(attributes: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  const properties = { ...attributes };
  for (const [key, value] of Object.entries(fields)) if (value !== null || !(key in properties)) properties[key] = value;
  return properties;
}
