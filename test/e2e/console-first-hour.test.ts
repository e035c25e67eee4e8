// The console a new user meets, in headless Chromium: on a server with a credentials file it opens on
// a sign-in page (not an error), refuses a wrong secret at once, shows who is signed in and signs out;
// an unknown page says so. Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
