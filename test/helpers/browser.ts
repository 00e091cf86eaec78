// Browser tests: Debian's Chromium through playwright-core (one browser per test file), an axe-core check of every
// page, and a real local relying party (an HTTP server on 127.0.0.1 that receives the redirects back to the client).
import http from 'node:http';
import type net from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describe, expect, inject } from 'vitest';

/** `describe` for a browser suite: skipped only when the setup found no Chromium and SKIP_BROWSER_TESTS=1 allowed it. */
export const describeBrowser = describe.skipIf(inject('chromium') === null);

export async function launchBrowser(): Promise<Browser> {
  const executablePath = inject('chromium');
  if (!executablePath) throw new Error('no Chromium (test/setup/chromium.ts)');
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
}

/** The text of the page's first-level heading (each hosted page has one). */
export const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

/** Fails on any serious or critical axe-core violation of the page as it is now, listing each with its nodes. */
export async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const listed = blocking.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(listed, `accessibility of ${page.url()}`).toEqual([]);
}

export interface RelyingParty {
  /** http://127.0.0.1:<port> */
  url: string;
  callback: string;
  signedOut: string;
  close(): Promise<void>;
}

/** A tiny relying party: its callback and signed-out pages answer a plain page; the test reads the URL the browser lands on. */
export async function startRelyingParty(): Promise<RelyingParty> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const title = path === '/callback' ? 'Relying party: signed in' : path === '/signed-out' ? 'Relying party: signed out' : 'Relying party';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1></main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url,
    callback: `${url}/callback`,
    signedOut: `${url}/signed-out`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
