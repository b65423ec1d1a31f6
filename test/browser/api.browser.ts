/**
 * In a real editor (Debian chromium, the shared embedded Node-RED, the simulator): tb-api's dialog. The common calls
 * of the connected server are listed and picking one fills in method, path and query; the try runs a GET on the
 * deployed connection and shows the answer (JSON, a file by its name, with a value typed for a placeholder); a path
 * that is an address or leaves /api/ is flagged at once and never tried; a method other than GET is not tried; the
 * line under the path says whether the token goes with the call; the settings are saved. Screenshot: api-dialog.png.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import { marked, openDialog, saveDialog, topTray, typeInto, verdict, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-api dialog: common calls, the try, a bad path flagged (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-api-',
    ready: 'apiFresh',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabA', x, y, wires: [] as string[][] });
      return [
        { id: 'tabA', type: 'tab', label: 'api' },
        simConnection('connA', sim.url),
        { id: 'apiFresh', type: 'tb-api', connection: 'connA', version: 1, ...at(300, 60) },
        { id: 'apiBad', type: 'tb-api', connection: 'connA', version: 1, ...at(300, 140) },
        { id: 'apiFile', type: 'tb-api', connection: 'connA', version: 1, ...at(300, 220) },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const val = (prop: string) => page.evaluate((p) => String($(`#node-input-${p}`).val()), prop);
  const summary = () => page.evaluate(() => String($('[data-tb-api-summary]').text()));
  const tryState = () => page.evaluate(() => String($('[data-tb-api-try-result]').attr('data-tb-state')));
  const tryText = () => page.evaluate(() => String($('[data-tb-api-try-result]').text()));

  /** Waits for the list of common calls to be filled from the server. */
  async function suggestionsReady(): Promise<void> {
    await page.waitForFunction(() => $('[data-tb-api-suggest]').attr('data-tb-state') === 'ready', undefined, {
      timeout: WAIT,
    });
  }

  /** Picks the common call with this path from the list, with the mouse (the select's own choice). */
  async function pick(callPath: string): Promise<void> {
    const value = await page.evaluate(
      (p) => String($(`[data-tb-api-suggest] option[data-tb-path="${p}"]`).val()),
      callPath,
    );
    assert.notEqual(value, 'undefined', `the list offers ${callPath}`);
    await tray().locator('[data-tb-api-suggest]').selectOption(value);
  }

  /** Clicks Try and waits for its answer. */
  async function tryIt(): Promise<string> {
    await tray().locator('[data-tb-api-try]').click();
    await page.waitForFunction(
      () => !['idle', 'running'].includes(String($('[data-tb-api-try-result]').attr('data-tb-state'))),
      undefined,
      { timeout: WAIT },
    );
    return tryState();
  }

  it("lists the server's common calls; picking one fills method, path and query; Try shows the JSON answer", async () => {
    await openDialog(page, 'apiFresh');
    await suggestionsReady();
    const head = await page.evaluate(() => String($('[data-tb-api-suggest] option').first().text()));
    assert.match(head, /of ThingsBoard 4\.3\.1\.3/, 'the list says which server it is for');
    const offered = await page.evaluate(() =>
      $('[data-tb-api-suggest] option[data-tb-path]')
        .map((_i: number, o: HTMLElement) => $(o).attr('data-tb-path'))
        .get(),
    );
    assert.ok(offered.includes('/api/rule-engine/'), 'the rule engine: this server has it (3.8+)');
    assert.ok(offered.includes('/api/audit/logs'), 'the audit log: a tenant administrator may read it');

    await pick('/api/audit/logs');
    assert.equal(await val('method'), 'GET');
    assert.equal(await val('path'), '/api/audit/logs');
    assert.equal(await val('query'), 'pageSize=100&page=0&sortProperty=createdTime&sortOrder=DESC');
    assert.equal(await summary(), "Sends GET /api/audit/logs with the connection's login.");
    assert.equal(await verdict(page, 'apiFresh', 'path'), true);

    sim.resetRequests();
    assert.equal(await tryIt(), 'json');
    assert.equal(await page.evaluate(() => $('[data-tb-api-try-result]').attr('data-tb-status')), '200');
    assert.match(
      await tryText(),
      /\/api\/audit\/logs\?pageSize=100&page=0&sortProperty=createdTime&sortOrder=DESC: HTTP 200 · application\/json/,
    );
    assert.match(await tryText(), /"actionType": "UPDATED"/);
    assert.equal(sim.countRequests('/api/audit/logs'), 1, 'the try went to the server once');
    // A picture of the dialog from its top to the answer tried.
    const top = await tray().boundingBox();
    const end = await tray().locator('[data-tb-api-try-result]').boundingBox();
    assert.ok(top && end, 'the dialog and the answer are shown');
    await page.screenshot({
      path: path.join(screenshotDir(), 'api-dialog.png'),
      clip: { x: top.x, y: top.y, width: top.width, height: end.y + end.height + 16 - top.y },
    });

    // A call that changes something is never tried; its body setting shows.
    await tray().locator('#node-input-method').selectOption('POST');
    assert.equal(await tray().locator('[data-tb-api-try]').isDisabled(), true);
    assert.equal(await tray().locator('#node-input-bodyFrom').isVisible(), true);
    await tray().locator('#node-input-method').selectOption('GET');
    assert.equal(await tray().locator('#node-input-bodyFrom').isVisible(), false, 'a GET sends no body');

    await saveDialog(page);
    const saved = await page.evaluate(() => {
      const n = RED.nodes.node('apiFresh');
      return { method: n.method, path: n.path, query: n.query, label: RED.utils.getNodeLabel(n) };
    });
    assert.deepEqual(saved, {
      method: 'GET',
      path: '/api/audit/logs',
      query: 'pageSize=100&page=0&sortProperty=createdTime&sortOrder=DESC',
      label: 'GET /api/audit/logs',
    });
  });

  it('a path that is an address, names a host or leaves /api/ is flagged at once and never tried', async () => {
    await openDialog(page, 'apiBad');
    sim.resetRequests();
    for (const bad of ['https://evil.example.com/api/x', 'evil.example.com/api/x', '/api/../login']) {
      await typeInto(page, 'path', bad);
      await marked(page, 'path', true);
      const says = String(await verdict(page, 'apiBad', 'path'));
      assert.match(says, /an address|server name|leaves \/api\//, bad);
      assert.equal(await tryIt(), 'error');
      assert.match(await tryText(), /an address|server name|leaves \/api\//);
    }
    await typeInto(page, 'path', '/api/noauth/userPasswordPolicy');
    await marked(page, 'path', false);
    assert.equal(
      await summary(),
      'Sends GET /api/noauth/userPasswordPolicy without the token: the server serves this path to anyone.',
    );
    assert.equal(sim.requests.total, 0, 'nothing was sent while the path was wrong');
    assert.equal(await tryIt(), 'json');
    assert.match(await tryText(), /"minimumLength": 6/);
    // The flagged node is not saved with the bad path: the last one typed is good.
    await saveDialog(page);
    assert.equal(await page.evaluate(() => RED.nodes.node('apiBad').valid), true);
  });

  it('a placeholder gets a box to try with; the file comes back by its name, type and size', async () => {
    await openDialog(page, 'apiFile');
    await suggestionsReady();
    // The editor sets the connection again as it fills its own list: the same server keeps the list shown.
    const kept = await page.evaluate(() => {
      $('#node-input-connection').trigger('change');
      return $('[data-tb-api-suggest]').attr('data-tb-state');
    });
    assert.equal(kept, 'ready');
    await pick('/api/otaPackage/{{msg.otaPackageId}}/download');
    await page.locator('[data-tb-api-try-value="msg.otaPackageId"]').waitFor({ state: 'visible', timeout: WAIT });
    assert.equal(await tryIt(), 'error', 'no value yet: not sent');
    assert.match(await tryText(), /Give \{\{msg\.otaPackageId\}\} a value to try with/);
    const fw = sim.generic.otaPackages()[0];
    await tray().locator('[data-tb-api-try-value="msg.otaPackageId"]').fill(fw.id);
    assert.equal(await tryIt(), 'file');
    assert.match(await tryText(), /a file: thermo-fw-1\.2\.bin \(application\/octet-stream, 4 KB\)/);
    await saveDialog(page);
  });
});
