// The device-risk tests' browsers: a cookie jar that also sends a user agent, an Accept-Language and, behind a
// trusted proxy (TRUST_PROXY=127.0.0.1), the client address it claims in X-Forwarded-For.
import { CookieJar } from './oidc.ts';

export const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** Public addresses geoip-lite's bundled database places far apart (London area, Tokyo; radius 500 km each). */
export const IP_GB = '81.2.69.142';
export const IP_JP = '133.242.0.3';

export class Browser extends CookieJar {
  ip: string | null;
  userAgent: string;
  language: string;
  constructor(ip: string | null = null, userAgent = CHROME_LINUX, language = 'en-GB,en;q=0.8') {
    super();
    this.ip = ip;
    this.userAgent = userAgent;
    this.language = language;
  }
  /** Signs out, as far as the provider knows: its cookies go, the pages' own (`iam_device`, `iam_mfa_device_…`) stay. */
  forgetSessions() {
    for (const name of [...this.cookies.keys()]) if (!name.startsWith('iam_')) this.cookies.delete(name);
    return this;
  }
  override fetch(url: string | URL, init: RequestInit = {}) {
    const headers = { 'user-agent': this.userAgent, 'accept-language': this.language, ...(this.ip ? { 'x-forwarded-for': this.ip } : {}) };
    return super.fetch(url, { ...init, headers: { ...headers, ...(init.headers as object) } });
  }
}
