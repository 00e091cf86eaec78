// The directory user (SPEC "User info"): multi-valued attributes are stored as jsonb arrays of these shapes.
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

const s = z.string().nullable();

export const UserName = z
  .object({ id: z.string(), formatted: s, familyName: s, givenName: s, middleName: s, honorificPrefix: s, honorificSuffix: s })
  .meta({ id: 'UserName' });
export const UserPhoto = z.object({ id: z.string(), value: z.string(), type: s }).meta({ id: 'UserPhoto' });
export const UserPhoneNumber = z.object({ id: z.string(), value: z.string(), type: s }).meta({ id: 'UserPhoneNumber' });
export const UserAddress = z
  .object({ id: z.string(), formatted: s, streetAddress: s, locality: s, region: s, postalCode: s, country: s, type: s })
  .meta({ id: 'UserAddress' });
export const UserEmail = z.object({ id: z.string(), value: z.string(), type: s }).meta({ id: 'UserEmail' });
export const UserVerification = z
  .object({ id: z.string(), email: z.string(), verified: z.boolean(), createdAt: isoTimestamp, updatedAt: isoTimestamp })
  .meta({ id: 'UserVerification' });

export const User = z
  .object({
    id: uuid,
    externalId: z.string(),
    userName: z.string(),
    displayName: s,
    nickName: s,
    profileUrl: s,
    title: s,
    userType: s,
    preferredLanguage: s,
    locale: s,
    timezone: s,
    active: z.boolean(),
    names: UserName.nullable(),
    photos: z.array(UserPhoto),
    phoneNumbers: z.array(UserPhoneNumber),
    addresses: z.array(UserAddress),
    emails: z.array(UserEmail),
    verifications: z.array(UserVerification),
    provider: z.string(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    environmentId: uuid,
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof User>;
