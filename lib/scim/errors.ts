// SCIM errors (RFC 7644 §3.12): `status` is a string, `scimType` names a 400/409 reason, `detail` says what to fix.
import { URN } from './schema.ts';

export type ScimType =
  'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | undefined;
  /** Headers the response carries (`Allow` of a 405). */
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, detail: string, scimType?: ScimType, headers?: Record<string, string>) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
    this.headers = headers;
  }
}

export interface ScimErrorBody {
  schemas: [typeof URN.error];
  status: string;
  scimType?: ScimType;
  detail: string;
}

export const errorBody = (status: number, detail: string, scimType?: ScimType): ScimErrorBody => ({
  schemas: [URN.error],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
export const invalidSyntax = (detail: string) => new ScimError(400, detail, 'invalidSyntax');
export const invalidPath = (detail: string) => new ScimError(400, detail, 'invalidPath');
export const mutability = (detail: string) => new ScimError(400, detail, 'mutability');
export const noTarget = (detail: string) => new ScimError(400, detail, 'noTarget');
export const notFound = (detail: string) => new ScimError(404, detail);
