// Captures Temporal UI with headless Chromium (playwright-core), for docs/processes.md: the workflows of a tenant, or one
// workflow's page. `node scripts/screenshot-temporal-ui.ts <url> <file.png> [text]` with the UI running (npm run
// dev:temporal); the shot is taken once `text` (default: the first workflow id) shows.
// CHROMIUM sets the browser (default /usr/bin/chromium).
import { chromium } from 'playwright-core';

const [url, file, text] = process.argv.slice(2);
if (!url || !file) {
  console.error('usage: node scripts/screenshot-temporal-ui.ts <temporal-ui-url> <file.png> [text to wait for]');
  process.exit(1);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  // A running workflow's page polls the server: the network never goes idle, so wait for what should show.
  await page.goto(url, { waitUntil: 'load' });
  await (text ? page.getByText(text).first() : page.getByRole('link', { name: /:/ }).first()).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: file });
  console.log(`wrote ${file}`);
} finally {
  await browser.close();
}
