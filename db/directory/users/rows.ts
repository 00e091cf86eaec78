// A user of an environment's directory: the SPEC User shape with the custom attributes that ABAC conditions read
// as `subject.properties`.
import { z } from 'zod';
import type { UserAddress, UserEmail, UserName, UserPhoneNumber, UserPhoto } from '../../identity/users/rows.ts';
import { User } from '../../identity/users/rows.ts';

export const Attributes = z.record(z.string(), z.unknown()).describe('Custom attributes, read by conditions as `subject.properties`');

export const DirectoryUser = User.extend({ attributes: Attributes }).meta({ id: 'DirectoryUser' });
export type DirectoryUser = z.infer<typeof DirectoryUser>;

/** The fields a directory client writes (sub-items already carry their ids). */
export interface UserFields {
  userName?: string;
  externalId?: string | null;
  displayName?: string | null;
  nickName?: string | null;
  profileUrl?: string | null;
  title?: string | null;
  userType?: string | null;
  preferredLanguage?: string | null;
  locale?: string | null;
  timezone?: string | null;
  active?: boolean;
  names?: z.infer<typeof UserName> | null;
  emails?: z.infer<typeof UserEmail>[];
  phoneNumbers?: z.infer<typeof UserPhoneNumber>[];
  addresses?: z.infer<typeof UserAddress>[];
  photos?: z.infer<typeof UserPhoto>[];
  attributes?: Record<string, unknown>;
  /** SCIM attributes without a column of their own (written by SCIM provisioning only). */
  scim?: Record<string, unknown>;
}
