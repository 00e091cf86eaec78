// GitHub (OAuth 2.0, no ID token): the user is read from /user and the email from /user/emails (verified primary
// only), over the guarded fetch. The upstream is a stand-in fetch: github.com is not reachable from tests.
import { describe, expect, it } from 'vitest';
import { fetchGithubUser } from '../../lib/sso/github.ts';
import { mapProfile } from '../../lib/sso/mapping.ts';
import type { GuardedFetch } from '../../lib/outbound/guarded-fetch.ts';

function github(emails: object[]) {
  const calls: { url: string; authorization: string | null }[] = [];
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    calls.push({ url: String(url), authorization: new Headers(init?.headers).get('authorization') });
    const body = String(url).endsWith('/user/emails') ? emails : { id: 583231, login: 'octocat', name: 'The Octocat', html_url: 'https://github.com/octocat' };
    return Response.json(body);
  }) as GuardedFetch;
  return { fetch, calls };
}

describe('GitHub users', () => {
  it('takes the verified primary email and the profile', async () => {
    const { fetch, calls } = github([
      { email: 'old@example.com', primary: false, verified: true },
      { email: 'octo@example.com', primary: true, verified: true },
    ]);
    const user = await fetchGithubUser(fetch, 'gho_token');
    expect(calls).toEqual([
      { url: 'https://api.github.com/user', authorization: 'Bearer gho_token' },
      { url: 'https://api.github.com/user/emails', authorization: 'Bearer gho_token' },
    ]);
    expect(user).toMatchObject({ subject: '583231', emailVerified: true });
    expect(mapProfile(user.claims, 'oidc')).toEqual({ email: 'octo@example.com', userName: 'octocat', displayName: 'The Octocat' });
  });

  it('has no email when the primary one is not verified', async () => {
    const user = await fetchGithubUser(github([{ email: 'octo@example.com', primary: true, verified: false }]).fetch, 'gho_token');
    expect(user.emailVerified).toBe(false);
    expect(mapProfile(user.claims, 'oidc').email).toBeUndefined();
  });
});
