// The directory's unique violations (api/families/directory/conflicts.ts) as SCIM 409 uniqueness errors.
import { ApiError } from '../../../errors.ts';
import { ScimError } from '../../../../lib/scim/errors.ts';
import { unique } from '../../directory/conflicts.ts';

export async function scimUnique<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await unique(work);
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 409) throw new ScimError(409, error.message, 'uniqueness');
    throw error;
  }
}
