// undici (about 2.5 MB of heap) is loaded by the first outbound request of the process (a webhook delivery, a
// notification, a metadata fetch) and kept, so an instance that never calls out never loads it.
import type * as Undici from 'undici';

let loaded: Promise<typeof Undici> | undefined;
export const undici = () => (loaded ??= import('undici'));
