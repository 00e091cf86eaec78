// Checks shared by the RBAC services: CEL conditions and duplicates within a request (unique violations of
// concurrent creates are translated by db/shared/database-errors.ts).
import { compileCondition } from '../../../../lib/authz/conditions.ts';
import { ApiError, invalidField } from '../../../errors.ts';

/** 400 `rbac.invalid_condition` naming `path`, with the line and column of the problem, unless `source` compiles. */
export function checkCondition(source: string | null | undefined, path: string) {
  if (source === null || source === undefined) return;
  const compiled = compileCondition(source);
  if (compiled.ok) return;
  const { line, column, message } = compiled.error;
  throw invalidField(path, `${line}:${column}: ${message}`, 'rbac.invalid_condition');
}

/** 400 naming the first item whose `keyOf` repeats an earlier one. */
export function checkUnique<T>(items: T[], keyOf: (item: T) => string, pathOf: (i: number) => string) {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    if (seen.has(key)) throw invalidField(pathOf(i), `repeats ${key}`);
    seen.add(key);
  });
}

/** 404 `<thing>.not_found` for a key or id the environment does not hold. */
export const missing = (thing: string, key: string) =>
  new ApiError(404, `${thing}.not_found`, `No ${thing.replace(/_/g, ' ')} ${JSON.stringify(key)} in this environment.`);

/** The row, or 404 `<thing>.not_found`. */
export async function found<T>(row: Promise<T | null>, thing: string, key: string): Promise<T> {
  const value = await row;
  if (value === null) throw missing(thing, key);
  return value;
}
