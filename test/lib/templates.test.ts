// The message templates: every template in en, de and fr with its values, the sign-in wording kept, the locale chosen
// (the page's, else the environment's default, else en), the branding in the HTML part, and every value escaped.
import { describe, expect, it } from 'vitest';
import { TEMPLATE_NAMES, type TemplateRequest } from '../../lib/messages/templates/params.ts';
import { renderMessage, TEMPLATE_LOCALES, templateLocale } from '../../lib/messages/templates/render.ts';

const REQUESTS: Record<(typeof TEMPLATE_NAMES)[number], TemplateRequest> = {
  verification: { template: 'verification', params: { code: '123456' } },
  account_exists: { template: 'account_exists', params: {} },
  magic_link: { template: 'magic_link', params: { code: '654321', link: 'https://id.example.com/interaction/abc/email-code/tok' } },
  one_time_code: { template: 'one_time_code', params: { code: '111222' } },
  password_reset: { template: 'password_reset', params: { link: 'https://id.example.com/password/tok' } },
  invitation: { template: 'invitation', params: { organization: 'Acme', code: 'JOIN-42', expiresAt: '2026-12-01T10:00:00.000Z' } },
  elevate_notice: {
    template: 'elevate_notice',
    params: { requester: 'ada@example.com', access: 'admin', reason: 'incident', expiresAt: '2026-12-01T10:00:00.000Z' },
  },
  sms_code: { template: 'sms_code', params: { code: '987654' } },
};

describe('message templates', () => {
  it.each(TEMPLATE_LOCALES.flatMap((l) => TEMPLATE_NAMES.map((n) => [l, n] as const)))('%s %s: every value filled, no placeholder left', (locale, name) => {
    const m = renderMessage(REQUESTS[name], locale);
    expect(m.locale).toBe(locale);
    expect(m.text).not.toMatch(/\{\w+\}/);
    expect(m.subject).not.toMatch(/\{\w+\}/);
    expect(m.html).toContain(`<html lang="${locale}">`);
    for (const [key, value] of Object.entries(REQUESTS[name].params)) if (!key.endsWith('At')) expect(m.text).toContain(value);
    if (name !== 'sms_code') expect(m.subject).not.toBe('');
  });

  it('keeps the sign-in pages’ wording, per locale', () => {
    expect(renderMessage(REQUESTS.verification, 'en')).toMatchObject({
      subject: 'Your verification code',
      text: 'Your verification code is 123456. It expires in 10 minutes. If you did not ask for it, ignore this message.',
    });
    expect(renderMessage(REQUESTS.magic_link, 'de')).toMatchObject({
      subject: 'Ihr Anmeldecode',
      text: expect.stringContaining(
        'Ihr Anmeldecode lautet 654321. Oder öffnen Sie diesen Link in dem Browser, in dem Sie sich anmelden: https://id.example.com/',
      ),
    });
    expect(renderMessage(REQUESTS.password_reset, 'fr').subject).toBe('Réinitialiser votre mot de passe');
    expect(renderMessage(REQUESTS.one_time_code, 'en').text).toContain('If you are not signing in right now, someone may know your password');
    expect(renderMessage(REQUESTS.invitation, 'de').text).toContain('1. Dezember 2026');
  });

  it('chooses the requested locale, else the environment default, else en', () => {
    expect(templateLocale('de-CH', 'fr')).toBe('de');
    expect(templateLocale('it', 'fr')).toBe('fr');
    expect(templateLocale(null, null)).toBe('en');
    expect(templateLocale(undefined, 'pt')).toBe('en');
  });

  it('brands the HTML part: display name, https logo, primary colour; an invalid colour or a non-https logo is dropped', () => {
    const m = renderMessage(REQUESTS.magic_link, 'en', { displayName: 'Acme ID', logoUrl: 'https://cdn.example.com/logo.png', primaryColor: '#aa3300' });
    expect(m.html).toContain('<img src="https://cdn.example.com/logo.png" alt="Acme ID"');
    expect(m.html).toContain('>Acme ID</div>');
    expect(m.html).toContain('border-top:4px solid #aa3300');
    expect(m.html).toContain('<a href="https://id.example.com/interaction/abc/email-code/tok" style="color:#aa3300');
    expect(m.html).toContain('<strong style="font-size:20px;letter-spacing:2px">654321</strong>');
    const plain = renderMessage(REQUESTS.magic_link, 'en', { logoUrl: 'http://cdn.example.com/logo.png', primaryColor: 'red;background:url(x)' });
    expect(plain.html).not.toContain('<img');
    expect(plain.html).not.toContain('red;background');
    expect(plain.html).toContain('#2251c5');
  });

  it('escapes every value and the branding in the HTML part, not in the text part', () => {
    const evil = '<script>alert("x")</script>&';
    const m = renderMessage({ template: 'elevate_notice', params: { requester: evil, access: '<b>root</b>', reason: `"'`, expiresAt: 'soon' } }, 'en', {
      displayName: '<img src=x onerror=alert(1)>',
    });
    expect(m.html).not.toContain('<script>');
    expect(m.html).not.toContain('<b>root</b>');
    expect(m.html).not.toContain('<img src=x');
    expect(m.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
    expect(m.html).toContain('&quot;&#39;');
    expect(m.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(m.text).toContain(evil);
    const link = renderMessage({ template: 'password_reset', params: { link: 'https://x.example/"><script>' } }, 'en');
    expect(link.html).toContain('href="https://x.example/&quot;&gt;&lt;script&gt;"');
  });
});
