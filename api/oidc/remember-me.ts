// Session config `rememberMe: false`: the environment does not offer "remember me", so every sign-in is transient
// (the session cookie ends with the browser), whatever the sign-in page sent. With it on, the page's `remember`
// decides (oidc-provider: `login.remember === false` makes the session transient).
import type Provider from 'oidc-provider';

export function forgetSessions(provider: Provider) {
  // provider.Session is this provider's own model class: the override stays within the environment.
  const session = provider.Session.prototype as unknown as { loginAccount(details: Record<string, unknown>): void };
  const loginAccount = session.loginAccount;
  session.loginAccount = function (details) {
    loginAccount.call(this, { ...details, transient: true });
  };
}
