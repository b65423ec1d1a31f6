/**
 * The builder under Node-RED's adminAuth, in a browser: a read-only editor user gets the suggestions (they only
 * read) but not the preview or the connection test (they run queries on the server), and the dialog says why
 * instead of failing silently. Node-RED runs in a child process with its own settings (the shared browser-test
 * Node-RED has no adminAuth), the editor is opened with the user's token.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { adminAuthSettings, startChildNodeRed, type ChildNodeRed } from '../support/child-node-red';
import { useSimulator } from '../support/simulator';
import { launchChromium, requireChromium } from './chromium';
import { openDialog } from './editor-page';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

const WAIT = 15000;

describe('query builder under adminAuth (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let child: ChildNodeRed;
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;
  const pageErrors: string[] = [];

  /** Opens the editor signed in as `user` (its token in the editor's storage, as the login dialog leaves it). */
  async function signIn(user: string, password: string, scope: string): Promise<void> {
    const token = await child.token(user, password, scope);
    await page.goto(`${child.url}/favicon.ico`).catch(() => undefined);
    await page.evaluate(
      (t) =>
        localStorage.setItem(
          'auth-tokens',
          JSON.stringify({ access_token: t, expires_in: 604800, token_type: 'Bearer' }),
        ),
      token,
    );
    await page.goto(child.url);
    await page.waitForFunction(
      () => typeof RED !== 'undefined' && RED.nodes && RED.nodes.node('countA') && RED.nodes.dirty() === false,
      undefined,
      { timeout: 30000 },
    );
  }

  before(async function () {
    requireChromium();
    const simUrl = sim.url;
    child = await startChildNodeRed(adminAuthSettings());
    const admin = await child.token('admin', 'admin-pw', '*');
    const res = await fetch(`${child.url}/flows`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${admin}`,
        'Node-RED-Deployment-Type': 'full',
      },
      body: JSON.stringify([
        { id: 'tabA', type: 'tab', label: 'auth' },
        simConnection('connA', simUrl),
        {
          id: 'countA',
          type: 'tb-entity-count',
          name: 'count',
          connection: 'connA',
          queryType: 'json',
          query: JSON.stringify({ entityFilter: { type: 'deviceType', deviceTypes: ['meter'] } }),
          version: 1,
          z: 'tabA',
          x: 200,
          y: 100,
          wires: [],
        },
      ]),
    });
    assert.ok(res.status === 200 || res.status === 204, `deploy: HTTP ${res.status}`);
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-auth-'));
    ({ context, page } = await launchChromium(profileDir));
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
  });

  afterEach(function () {
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    await child?.stop().catch(() => undefined);
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  const openCount = () => openDialog(page, 'countA', { view: 'builder', ready: '[data-tb-action="preview"]' });

  async function previewText(): Promise<{ state: string; text: string }> {
    await page.locator('.red-ui-tray').last().locator('[data-tb-action="preview"]').click();
    await page.waitForFunction(
      () => !['running', 'idle'].includes($('[data-tb-preview]').attr('data-tb-preview')),
      undefined,
      { timeout: WAIT },
    );
    return page.evaluate(() => ({
      state: $('[data-tb-preview]').attr('data-tb-preview'),
      text: $('[data-tb-preview]').text(),
    }));
  }

  it('a read-only user gets suggestions, and is told that the preview needs the permission to change flows', async function () {
    await signIn('reader', 'reader-pw', 'read');
    await openCount();
    const input = page.locator('.red-ui-tray').last().locator('[data-tb-field="entityFilter.deviceTypes"]');
    await input.click();
    await input.pressSequentially('therm', { delay: 5 });
    await page
      .locator('.red-ui-autoComplete-container li a', { hasText: 'thermostat' })
      .first()
      .waitFor({ state: 'visible', timeout: WAIT });
    await input.press('Escape');
    const p = await previewText();
    assert.equal(p.state, 'error');
    assert.match(p.text, /may not do this/);
    assert.equal(
      sim.requests.entries(1000).filter((e) => e.path === '/api/entitiesQuery/count').length,
      0,
      'nothing ran on the server',
    );
  });

  it('a user with every permission previews the query', async function () {
    await signIn('admin', 'admin-pw', '*');
    await openCount();
    const p = await previewText();
    assert.equal(p.state, 'count');
    assert.match(p.text, /^6/);
  });
});
