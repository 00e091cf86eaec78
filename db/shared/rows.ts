import { z } from 'zod';

export const isoTimestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = isoTimestamp.nullable();
export const uuid = z.uuid();
