// The restrictions' rules on an email address (lib/protections/email-rules.ts) and the breached-password check
// (lib/protections/breached.ts), without a database.
import { describe, expect, it } from 'vitest';
import { domainsOf } from '../../lib/protections/settings.ts';
import { brokenEmailRule, domainAndParents, emailDomainOf, hasSubaddress, isDisposableDomain } from '../../lib/protections/email-rules.ts';
import { BREACHED_CHECK_MAX_LENGTH, breachedEstimator, breachedMatch } from '../../lib/protections/breached.ts';

const none = { blocked: null, allowed: null, subaddresses: false, disposable: false };

describe('email rules', () => {
  it('reads the domain of an address, lowercased, and its parents', () => {
    expect(emailDomainOf('Ada@Mail.Example.COM.')).toBe('mail.example.com');
    expect(emailDomainOf('"a@b"@example.org')).toBe('example.org');
    expect(emailDomainOf('ada')).toBeNull();
    expect(emailDomainOf('ada@')).toBeNull();
    expect(domainAndParents('a.b.example.com')).toEqual(['a.b.example.com', 'b.example.com', 'example.com']);
    expect(domainAndParents('localhost')).toEqual(['localhost']);
  });

  it('matches a listed domain and its subdomains, not a domain that merely ends with its name', () => {
    const blocked = domainsOf(' @Example.com, .corp.test;\nother.org ');
    expect(blocked).toEqual(['example.com', 'corp.test', 'other.org']);
    const rules = { ...none, blocked };
    expect(brokenEmailRule('ada@example.com', rules)).toBe('domain_blocked');
    expect(brokenEmailRule('ada@eu.mail.EXAMPLE.com', rules)).toBe('domain_blocked');
    expect(brokenEmailRule('ada@notexample.com', rules)).toBeNull();
    expect(brokenEmailRule('ada@example.com.evil.io', rules)).toBeNull();
  });

  it('refuses every domain outside an allow list (an address without a domain too)', () => {
    const rules = { ...none, allowed: ['example.com'] };
    expect(brokenEmailRule('ada@example.com', rules)).toBeNull();
    expect(brokenEmailRule('ada@hr.example.com', rules)).toBeNull();
    expect(brokenEmailRule('ada@example.org', rules)).toBe('domain_not_allowed');
    expect(brokenEmailRule('ada', rules)).toBe('domain_not_allowed');
    expect(brokenEmailRule('ada', { ...none, blocked: ['example.com'], subaddresses: true, disposable: true })).toBeNull();
  });

  it('tells sub-addresses apart only by a plus in the local part', () => {
    expect(hasSubaddress('ada+news@example.com')).toBe(true);
    expect(hasSubaddress('ada@plus+domain.example.com')).toBe(false);
    expect(hasSubaddress('ada.lovelace@example.com')).toBe(false);
    expect(brokenEmailRule('ada+news@example.com', { ...none, subaddresses: true })).toBe('subaddress');
    expect(brokenEmailRule('ada+news@example.com', none)).toBeNull();
  });

  it('knows disposable-mail domains and their subdomains from the shipped list', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('YOPMAIL.com')).toBe(true);
    expect(isDisposableDomain('inbox.mailinator.com')).toBe(true);
    expect(isDisposableDomain('gmail.com')).toBe(false);
    expect(isDisposableDomain('example.com')).toBe(false);
    expect(brokenEmailRule('x@mailinator.com', { ...none, disposable: true })).toBe('disposable_domain');
    expect(brokenEmailRule('x@mailinator.com', none)).toBeNull();
  });

  it('asks the rules in order: block list, allow list, sub-address, disposable domain', () => {
    const all = { blocked: ['mailinator.com'], allowed: ['mailinator.com', 'example.com'], subaddresses: true, disposable: true };
    expect(brokenEmailRule('a+b@mailinator.com', all)).toBe('domain_blocked');
    expect(brokenEmailRule('a+b@example.org', all)).toBe('domain_not_allowed');
    expect(brokenEmailRule('a+b@example.com', all)).toBe('subaddress');
    expect(brokenEmailRule('a@example.com', { ...all, allowed: null, blocked: null })).toBeNull();
  });
});

describe('breached passwords', () => {
  it('refuses a password on the common list, in l33t or reversed too, and one scored below 2', async () => {
    expect(await breachedMatch('password123')).toBe('listed');
    expect(await breachedMatch('P@ssw0rd')).toBe('listed');
    expect(await breachedMatch('iloveyou1')).toBe('listed');
    expect(await breachedMatch('dragon2024')).toBe('guessable');
    expect(await breachedMatch('correct horse battery')).toBeNull();
    expect(await breachedMatch('kd93-fjq!Lx')).toBeNull();
  });

  it('counts the user’s own name and email as words an attacker knows', async () => {
    expect(await breachedMatch('gracehopper1906')).toBeNull();
    expect(await breachedMatch('gracehopper1906', ['gracehopper1906@example.com', 'gracehopper1906'])).toBe('guessable');
  });

  it('scores only the first characters of a long password and stays well under a few ms a check', async () => {
    await breachedEstimator();
    expect(await breachedMatch('x'.repeat(BREACHED_CHECK_MAX_LENGTH) + 'kd93-fjq!Lx')).toBe('guessable');
    expect(await breachedMatch('kd93-fjq!Lx-' + 'password'.repeat(40))).toBeNull();
    const passwords = ['correct horse battery', 'Summer2024!', 'N3w-Y0rk-C1ty-2024!', 'k'.repeat(256), 'a8#kLm2$pQ'.repeat(25)];
    for (const p of passwords) await breachedMatch(p); // warm
    const cpu = process.cpuUsage();
    for (let i = 0; i < 10; i++) for (const p of passwords) await breachedMatch(p);
    const used = process.cpuUsage(cpu);
    // CPU time, not wall time (the machine is shared): about 1–3 ms each measured; the bound leaves room for slow CI.
    expect((used.user + used.system) / 1000 / (10 * passwords.length)).toBeLessThan(15);
  });
});
