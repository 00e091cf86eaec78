// GitHub's user (OAuth 2.0, no ID token): `GET /user` for the id and profile, `GET /user/emails` for the verified
// primary email (a private email is absent from /user).
import type { GuardedFetch } from '../outbound/guarded-fetch.ts';

const API = 'https://api.github.com';

async function get(fetch: GuardedFetch, accessToken: string, path: string): Promise<unknown> {
  const response = await fetch(`${API}${path}`, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'iam-service' },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`GitHub ${path} answered ${response.status}`);
  return response.json();
}

export async function fetchGithubUser(fetch: GuardedFetch, accessToken: string) {
  const user = (await get(fetch, accessToken, '/user')) as Record<string, unknown>;
  if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new Error('GitHub /user has no id');
  const emails = (await get(fetch, accessToken, '/user/emails')) as { email?: unknown; primary?: unknown; verified?: unknown }[];
  const primary = Array.isArray(emails) ? emails.find((e) => e.primary === true && e.verified === true && typeof e.email === 'string') : undefined;
  const claims: Record<string, unknown> = {
    sub: String(user.id),
    preferred_username: user.login,
    name: user.name,
    email: primary?.email ?? null,
    email_verified: primary !== undefined,
    profile: user.html_url,
  };
  return { subject: String(user.id), claims, emailVerified: primary !== undefined };
}
