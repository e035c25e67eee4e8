// The console a new user meets, in headless Chromium: on a server with a credentials file it opens on
// a sign-in page (not an error), refuses a wrong secret at once, shows who is signed in and signs out;
// an unknown page says so. Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { runDemo } from '../../src/cli/demo.js';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { ALICE, ALICE_ARN, writeCredentialsFile } from '../support/credentials.js';
import { REGION, startServer, type TestServer, tempDir } from '../support/server.js';

const skip = requireChromium();

describe('console sign-in on a server with a credentials file', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;

  before(async () => {
    server = await startServer(['--default-region', REGION, '--credentials-file', writeCredentialsFile(tempDir())]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('opens on a sign-in page instead of an error', async () => {
    await page.goto(url('/registry'));
    await page.getByRole('heading', { name: 'Sign in to Slipway' }).waitFor();
    assert.equal(await page.locator('.error').count(), 0, 'no red error box before signing in');
    await page.screenshot({ path: screenshotPath('sign-in'), fullPage: true });
  });

  test('a wrong secret is refused before it is kept', async () => {
    await page.fill('input[name=accessKeyId]', ALICE.accessKeyId);
    await page.fill('input[name=secretAccessKey]', 'not-the-secret');
    await page.click('button[type=submit]');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /does not accept these credentials/);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Slipway' }).waitFor();
  });

  test('the right keys sign in, the header names the principal, and sign-out returns to sign-in', async () => {
    await page.fill('input[name=accessKeyId]', ALICE.accessKeyId);
    await page.fill('input[name=secretAccessKey]', ALICE.secretAccessKey);
    await page.click('button[type=submit]');
    await page.getByText('No model package groups yet').waitFor();
    const who = page.locator('header .settings-link');
    assert.equal((await who.innerText()).trim(), 'alice');
    assert.equal(await who.getAttribute('title'), ALICE_ARN);
    await who.click();
    assert.equal((await page.getByTestId('principal-arn').innerText()).trim(), ALICE_ARN);
    await page.screenshot({ path: screenshotPath('settings-signed-in'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Slipway' }).waitFor();
  });

  test('an unknown page says so instead of showing another', async () => {
    await page.fill('input[name=accessKeyId]', ALICE.accessKeyId);
    await page.fill('input[name=secretAccessKey]', ALICE.secretAccessKey);
    await page.click('button[type=submit]');
    await page.locator('header .settings-link').getByText('alice').waitFor();
    await page.goto(url('/no-such-page/x'));
    await page.getByRole('heading', { name: 'No such page' }).waitFor();
    assert.match(await page.locator('main').innerText(), /no page at \/console\/no-such-page\/x/);
    assert.deepEqual(errors, []);
  });
});

describe('console after slipway demo', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;

  before(async () => {
    server = await startServer(['--default-region', REGION]);
    await runDemo({
      endpoint: server.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'demo', secretAccessKey: 'demo' },
      bucket: 'slipway-demo',
      print: () => {},
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('experiment runs compare: metrics first and labelled, columns to hide, a metric across runs, two runs side by side with curves', async () => {
    await page.goto(url('/experiments/slipway-demo'));
    await page.locator('tbody tr td.run').nth(2).waitFor();
    const headers = (await page.locator('.runs-table thead th').allInnerTexts()).map((h) => h.trim());
    const firstMetric = headers.findIndex((h) => /^validation:rmse/.test(h));
    const firstParam = headers.findIndex((h) => /^max_depth/.test(h));
    assert.ok(firstMetric > 0 && firstParam > firstMetric, `metrics before parameters: ${headers.join(' | ')}`);
    assert.match(headers[firstMetric]!, /validation:rmse\s+last/i);
    // The statistic shown is a choice, and the header says which.
    await page.selectOption('select[name=stat]', 'Min');
    await page.locator('.runs-table thead th', { hasText: /validation:rmse\s+min/i }).waitFor();
    // Hide a parameter column.
    await page.locator('.column-chooser summary').click();
    await page.locator('.chooser-panel label', { hasText: 'eta' }).locator('input').uncheck();
    await page.waitForFunction(() => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> } }).document;
      return !Array.from(doc.querySelectorAll('.runs-table thead th')).some((th) => (th.textContent ?? '').trim() === 'eta');
    });
    // One metric across the runs, best (lowest rmse) first.
    const values = (await page.locator('.bars[data-metric="validation:rmse"] .bar-value').allInnerTexts()).map(Number);
    assert.equal(values.length, 3);
    assert.deepEqual([...values].sort((a, b) => a - b), values);
    // Two runs side by side, their curves overlaid.
    const boxes = page.locator('.runs-table tbody input[type=checkbox]');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.locator('.compare-table').waitFor();
    assert.equal(await page.locator('.compare-table thead th').count(), 3);
    await page.locator('.compare .chart').first().waitFor();
    assert.ok((await page.locator('.compare .chart figcaption').allInnerTexts()).includes('validation:rmse'));
    await page.screenshot({ path: screenshotPath('experiment-compare'), fullPage: true });
    assert.deepEqual(errors, []);
  });
});
