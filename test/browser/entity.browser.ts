/**
 * In a real editor (Debian chromium, the shared embedded Node-RED, the simulator): tb-entity's dialog. A new node
 * creates or updates devices, with the Profile row shown and the Customer row hidden; switched to "assign" the rows
 * swap; an entity view hides the Profile row and shows its own row tip; saved and reloaded with its label; then
 * deployed, an inject's list of rows creates the devices and the results, one per row in order, reach the debug
 * sidebar.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  deployButton,
  openDialog,
  pressInject,
  recordDebug,
  saveDialog,
  topTray,
  typeInto,
  waitForDebug,
  waitForStatus,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-entity dialog (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-entity-',
    ready: 'ent',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabE', x, y });
      return [
        { id: 'tabE', type: 'tab', label: 'entity' },
        simConnection('connE', sim.url),
        {
          id: 'inj',
          type: 'inject',
          name: 'rows',
          props: [{ p: 'payload' }],
          payload: '[{"name":"Web-1","label":"One"},{"name":"Web-2","gateway":true}]',
          payloadType: 'json',
          repeat: '',
          once: false,
          ...at(140, 80),
          wires: [['ent']],
        },
        { id: 'ent', type: 'tb-entity', connection: 'connE', version: 1, ...at(380, 80), wires: [['dbg']] },
        {
          id: 'dbg',
          type: 'debug',
          name: 'results',
          active: true,
          tosidebar: true,
          complete: 'payload',
          targetType: 'msg',
          ...at(600, 80),
          wires: [],
        },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);

  it('create or update by default; assign swaps the rows; saved, deployed, one result per row', async function () {
    await openDialog(page, 'ent');
    assert.equal(await tray().locator('#node-input-operation').inputValue(), 'upsert');
    assert.equal(await tray().locator('#node-input-entityType').inputValue(), 'DEVICE');
    assert.equal(await visible('[data-tb-row="profile"]'), true);
    assert.equal(await visible('[data-tb-row="customer"]'), false);
    await tray().locator('#node-input-operation').selectOption('assign');
    assert.equal(await visible('[data-tb-row="profile"]'), false);
    assert.equal(await visible('[data-tb-row="customer"]'), true);
    await tray().locator('#node-input-entityType').selectOption('CUSTOMER');
    assert.equal(await visible('[data-tb-row="customer"]'), false, 'a customer is not assigned to a customer');
    // an entity view: assigned like a device; saved without a profile (its type is free text), its own row tip
    await tray().locator('#node-input-entityType').selectOption('ENTITY_VIEW');
    assert.equal(
      await tray().locator('#node-input-entityType option[value="ENTITY_VIEW"]').textContent(),
      'entity view',
    );
    assert.equal(await visible('[data-tb-row="customer"]'), true);
    await tray().locator('#node-input-operation').selectOption('upsert');
    assert.equal(await visible('[data-tb-row="profile"]'), false, 'an entity view has no profile');
    assert.equal(await visible('[data-tb-row="customer"]'), false);
    assert.equal(await visible('[data-tb-tip="viewRows"]'), true);
    assert.equal(await visible('[data-tb-tip="rows"]'), false);
    await tray().locator('#node-input-entityType').selectOption('DEVICE');
    assert.equal(await visible('[data-tb-row="profile"]'), true);
    assert.equal(await visible('[data-tb-tip="viewRows"]'), false);
    await typeInto(page, 'profile', 'thermostat');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await tray().screenshot({ path: path.join(screenshotDir(), 'entity-dialog.png') });
    await saveDialog(page);
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('ent');
        return { operation: n.operation, profile: n.profile, valid: n.valid, label: RED.utils.getNodeLabel(n) };
      }),
      { operation: 'upsert', profile: 'thermostat', valid: true, label: 'create or update device' },
    );

    await recordDebug(page);
    await deployButton(page);
    await pressInject(page, 'inj');
    const [results] = await waitForDebug(page, 'dbg');
    assert.deepEqual(
      (results as Array<Record<string, unknown>>).map((r) => [r.name, r.ok, r.action]),
      [
        ['Web-1', true, 'created'],
        ['Web-2', true, 'created'],
      ],
    );
    await waitForStatus(page, 'ent', /^2 done$/);
    assert.equal(sim.data.mustFindByName('DEVICE' as never, 'Web-2').type, 'thermostat');
  });
});
