// Tuple keys as the API writes them (`document:1`, `user:anne`, `user:*`, `group:eng#member`), split into Tuples and
// checked against a compiled model.
import { contextProblem } from './conditions.ts';
import type { CompiledModel } from './model.ts';
import { FgaError, type Tuple, type TupleKey, type UserRef } from './types.ts';

export const MAX_ID_LENGTH = 256;
/** OpenFGA's limit on a tuple's condition context. */
export const MAX_CONTEXT_BYTES = 32 * 1024;
const NAME = /^[^:#@\s*]{1,254}$/;
const ID = /^[^\s]+$/;

/** `type:id` → its parts, or undefined. The id may hold any character but whitespace; the object's no `#` or `*`. */
export function parseObject(text: string): { type: string; id: string } | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const type = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (!NAME.test(type) || !validId(id) || id.includes('#') || id.includes('*')) return undefined;
  return { type, id };
}

const validId = (id: string) => id.length > 0 && id.length <= MAX_ID_LENGTH && ID.test(id);

/** A tuple's user part (`user:anne`, `user:*`, `group:eng#member`) → a UserRef, or undefined. */
export function parseUser(text: string): UserRef | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const type = text.slice(0, colon);
  if (!NAME.test(type)) return undefined;
  const rest = text.slice(colon + 1);
  const hash = rest.lastIndexOf('#');
  const id = hash >= 0 ? rest.slice(0, hash) : rest;
  const relation = hash >= 0 ? rest.slice(hash + 1) : '';
  if (hash >= 0 && !NAME.test(relation)) return undefined;
  if (!validId(id) || id.includes('#')) return undefined;
  if (id.includes('*') && (id !== '*' || relation !== '')) return undefined;
  return { type, id, relation };
}

export const formatUser = (user: UserRef) => (user.relation ? `${user.type}:${user.id}#${user.relation}` : `${user.type}:${user.id}`);
export const formatTupleUser = (t: Tuple) => (t.userRelation ? `${t.userType}:${t.userId}#${t.userRelation}` : `${t.userType}:${t.userId}`);

/** `document:1#viewer@user:anne`, as OpenFGA names a tuple in messages. */
export const describeKey = (key: TupleKey) => `${key.object}#${key.relation}@${key.user}`;
export const describeTuple = (t: Tuple) => `${t.objectType}:${t.objectId}#${t.relation}@${formatTupleUser(t)}`;

/** Splits a tuple key; throws FgaError('invalid_tuple') when a part is malformed. */
export function parseTupleKey(key: TupleKey): Tuple {
  const invalid = (reason: string) => new FgaError('invalid_tuple', `Invalid tuple '${describeKey(key)}': ${reason}.`);
  const object = parseObject(key.object);
  if (!object) throw invalid(`the object must be 'type:id' (an id of 1 to ${MAX_ID_LENGTH} characters, no whitespace, '#' or '*')`);
  if (!NAME.test(key.relation)) throw invalid('the relation is malformed');
  const user = parseUser(key.user);
  if (!user) throw invalid(`the user must be 'type:id', 'type:*' or 'type:id#relation'`);
  return {
    objectType: object.type,
    objectId: object.id,
    relation: key.relation,
    userType: user.type,
    userId: user.id,
    userRelation: user.relation,
    condition: key.condition ? { name: key.condition.name, context: key.condition.context ?? {} } : null,
  };
}

export function formatTuple(t: Tuple): TupleKey {
  const key: TupleKey = { user: formatTupleUser(t), relation: t.relation, object: `${t.objectType}:${t.objectId}` };
  if (t.condition) key.condition = { name: t.condition.name, context: t.condition.context };
  return key;
}

/** Why a tuple does not fit the model, or undefined. */
export function tupleProblem(model: CompiledModel, t: Tuple): string | undefined {
  const type = model.types.get(t.objectType);
  if (!type) return `type '${t.objectType}' is not defined in the model`;
  const relation = type.relations.get(t.relation);
  if (!relation) return `relation '${t.objectType}#${t.relation}' is not defined in the model`;
  if (!model.types.has(t.userType)) return `type '${t.userType}' is not defined in the model`;
  if (t.userRelation && !model.types.get(t.userType)!.relations.has(t.userRelation)) {
    return `relation '${t.userType}#${t.userRelation}' is not defined in the model`;
  }
  if (relation.tuplesetOf && (t.userRelation || t.userId === '*')) {
    return `'${t.relation}' is a tupleset relation (used in a tuple-to-userset): its users must be objects, not usersets or wildcards`;
  }
  const wildcard = t.userId === '*';
  const kind = wildcard ? 'wildcard' : t.userRelation ? 'userset' : 'object';
  const fits = relation.directTypes.filter((ref) =>
    ref.type !== t.userType
      ? false
      : kind === 'wildcard'
        ? !!ref.wildcard
        : kind === 'userset'
          ? ref.relation === t.userRelation
          : !ref.wildcard && !ref.relation,
  );
  const shown = wildcard ? `${t.userType}:*` : t.userRelation ? `${t.userType}#${t.userRelation}` : t.userType;
  if (fits.length === 0) return `type '${shown}' is not an allowed type restriction of '${t.objectType}#${t.relation}'`;
  const conditionName = t.condition?.name ?? '';
  if (conditionName && !model.conditions.has(conditionName)) return `condition '${conditionName}' is not defined in the model`;
  if (!fits.some((ref) => (ref.condition ?? '') === conditionName)) {
    return conditionName
      ? `'${shown} with ${conditionName}' is not an allowed type restriction of '${t.objectType}#${t.relation}'`
      : `'${t.objectType}#${t.relation}' requires a condition for '${shown}'`;
  }
  if (t.condition) {
    if (JSON.stringify(t.condition.context).length > MAX_CONTEXT_BYTES) return `the condition's context is over ${MAX_CONTEXT_BYTES / 1024} KiB`;
    const problem = contextProblem(model.conditions.get(conditionName)!, t.condition.context);
    if (problem) return problem;
  }
  return undefined;
}

/** Checks a tuple key against the model and splits it; throws FgaError('invalid_tuple') naming the tuple and why. */
export function checkTuple(model: CompiledModel, key: TupleKey): Tuple {
  const t = parseTupleKey(key);
  const problem = tupleProblem(model, t);
  if (problem) throw new FgaError('invalid_tuple', `Invalid tuple '${describeKey(key)}': ${problem}.`);
  return t;
}
