// Every failure of the token endpoint is an RFC 6749 §5.2 answer, including the ones decided before its handler runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const token = (payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/oauth/token', headers: { 'content-type': 'application/json', ...headers }, payload });
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('POST /v1/oauth/token with a body its schema refuses', () => {
  it.each([
    [
      'a number for client_secret',
      '{"grant_type":"client_credentials","client_id":"x","client_secret":123}',
      'Invalid request: body.client_secret Invalid input: expected string, received number.',
    ],
    ['a JSON array', '[]', 'Invalid request: body Invalid input: expected object, received array.'],
    ['a JSON string', '"client_credentials"', 'Invalid request: body Invalid input: expected object, received string.'],
  ])('answers %s with 400 invalid_request naming the field', async (_name, payload, description) => {
    const res = await token(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: description });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await token('{"grant_type":');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'The request body is not valid JSON.' });
  });
});

describe('POST /v1/oauth/token with broken Basic credentials', () => {
  it.each([
    ['a broken percent escape', '%:x'],
    ['a broken escape in the secret', 'bootstrap-admin:%E0%A4%A'],
    ['a NUL in the client id', 'a%00b:x'],
    ['a raw NUL in the client id', 'a\u0000b:x'],
  ])('answers %s with 401 invalid_client and WWW-Authenticate: Basic', async (_name, credentials) => {
    const res = await token('{"grant_type":"client_credentials"}', { authorization: basic(credentials) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      error: 'invalid_client',
      error_description: 'The Authorization header must use the Basic scheme with the URL-encoded client_id:client_secret.',
    });
    expect(res.headers['www-authenticate']).toBe('Basic realm="iam"');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('still issues a token for percent-encoded Basic credentials', async () => {
    const { clientId, clientSecret } = t.credentials;
    const res = await token('{"grant_type":"client_credentials"}', {
      authorization: basic(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`),
    });
    expect(res.statusCode).toBe(200);
  });
});
