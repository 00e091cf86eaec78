// PLACEHOLDER for the engine session: compiles a StoredModel into the in-memory AccessModel (indexes by id,
// externalId and lower-cased userName, role inheritance closed, conditions compiled).
import type { StoredModel } from './model.ts';

export interface AccessModel {
  readonly environmentId: string;
}

export function compileModel(environmentId: string, stored: StoredModel): AccessModel {
  void stored;
  return { environmentId };
}
