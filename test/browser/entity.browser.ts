/**
 * In a real editor (Debian chromium, the shared embedded Node-RED, the simulator): tb-entity's dialog. A new node
 * creates or updates devices, with the Profile row shown and the Customer row hidden; switched to "assign" the rows
 * swap; an entity view hides the Profile row and shows its own row tip; saved and reloaded with its label; then
 * deployed, an inject's list of rows creates the devices and the results, one per row in order, reach the debug
 * sidebar. The Profile box suggests the server's device or asset profiles (switched with the kind), the Customer
 * box its customers; a profile the server does not have is warned about under the box, never made invalid; a line
 * under the settings reads the node back in words.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  closeTrays,
  deployButton,
  marked,
  openDialog,
  pickSuggestion,
  pressInject,
  recordDebug,
  saveDialog,
  topTray,
  WAIT,
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

  /**
   * Types into a text box of the dialog as a person would, key by key (the suggestions follow), then closes the
   * suggestion menu with Escape and leaves the box: the text stays as typed.
   */
  async function typeText(prop: string, text: string): Promise<void> {
    const input = tray().locator(`#node-input-${prop}`);
    await input.click();
    await input.fill('');
    if (text) await input.pressSequentially(text, { delay: 5 });
    await input.press('Escape');
    await page.waitForFunction(() => $('.red-ui-autoComplete-container:visible').length === 0, undefined, {
      timeout: WAIT,
    });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    assert.equal(await input.inputValue(), text);
  }
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
    await typeText('profile', 'thermostat');
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

  /** The suggestions a text box of the dialog shows with `typed` in it, sorted (then the menu is closed). */
  async function suggestions(prop: string, typed = ''): Promise<string[]> {
    const input = tray().locator(`#node-input-${prop}`);
    await input.click();
    await input.fill('');
    // An empty box lists every suggestion on a neutral key (the arrow down), as when it gets the focus.
    if (typed) await input.pressSequentially(typed, { delay: 5 });
    else await input.press('ArrowDown');
    await page.locator('.red-ui-autoComplete-container li').first().waitFor({ state: 'visible', timeout: WAIT });
    const items = await page.locator('.red-ui-autoComplete-container li').allTextContents();
    await input.fill('');
    await input.press('Escape');
    await page.waitForFunction(() => $('.red-ui-autoComplete-container:visible').length === 0, undefined, {
      timeout: WAIT,
    });
    return items.map((x) => x.trim()).sort();
  }

  /** Waits until the warning under the Profile box says `re` (or is hidden, for null); fails showing it. */
  async function profileWarning(re: RegExp | null): Promise<void> {
    const shown = () =>
      page.evaluate(() => {
        const w = $('[data-tb-profile-warning]');
        return w.is(':visible') ? String(w.text()) : null;
      });
    try {
      await page.waitForFunction(
        (src) => {
          const w = $('[data-tb-profile-warning]');
          return src === null ? !w.is(':visible') : w.is(':visible') && new RegExp(src).test(String(w.text()));
        },
        re ? re.source : null,
        { timeout: WAIT },
      );
    } catch {
      throw new Error(`the profile warning: wanted ${re}, shows ${JSON.stringify(await shown())}`);
    }
  }

  const summary = () => page.evaluate(() => String($('[data-tb-entity-summary]').text()));

  /** Sets the operation and the kind, then returns the summary line. */
  async function summaryOf(operation: string, entityType: string): Promise<string> {
    await tray().locator('#node-input-operation').selectOption(operation);
    await tray().locator('#node-input-entityType').selectOption(entityType);
    return summary();
  }

  it('profiles and customers suggested from the server, an unknown profile warned about, the summary', async () => {
    await openDialog(page, 'ent');
    // as saved: create or update devices with the profile thermostat, which the server has
    assert.equal(
      await summary(),
      'Creates or updates each device of msg.payload by its name, with profile thermostat.',
    );
    await profileWarning(null);
    // the device profiles, then (switched to Asset) the asset profiles
    assert.deepEqual(await suggestions('profile'), ['default', 'meter', 'thermostat']);
    assert.deepEqual(await suggestions('profile', 'the'), ['thermostat']);
    await tray().locator('#node-input-entityType').selectOption('ASSET');
    assert.deepEqual(await suggestions('profile'), ['building', 'default', 'floor', 'site']);
    await pickSuggestion(page, tray().locator('#node-input-profile'), 'flo', 'floor');
    assert.equal(await tray().locator('#node-input-profile').inputValue(), 'floor');
    await profileWarning(null);
    assert.equal(await summary(), 'Creates or updates each asset of msg.payload by its name, with profile floor.');
    // a device profile is no asset profile: warned about, not invalid; switched back to Device it is fine
    await typeText('profile', 'thermostat');
    await profileWarning(/^No asset profile named "thermostat" on the server: the node will refuse it/);
    await marked(page, 'profile', false);
    await tray().locator('#node-input-entityType').selectOption('DEVICE');
    await profileWarning(null);
    await typeText('profile', 'Boiler');
    await profileWarning(/^No device profile named "Boiler" on the server/);
    // an empty box reads the row's profile or msg.profile: nothing to warn about
    await typeText('profile', '');
    await profileWarning(null);
    assert.equal(
      await summary(),
      "Creates or updates each device of msg.payload by its name, with its row's profile, else msg.profile.",
    );

    // assign: the customers suggested by title, one picked
    await tray().locator('#node-input-operation').selectOption('assign');
    assert.equal(await summary(), 'Assigns each device of msg.payload to the customer its row or msg.customer names.');
    assert.deepEqual(await suggestions('customer', 'Customer'), ['Customer A', 'Customer B', 'Customer C']);
    await pickSuggestion(page, tray().locator('#node-input-customer'), 'er b', 'Customer B');
    assert.equal(await tray().locator('#node-input-customer').inputValue(), 'Customer B');
    assert.equal(await summary(), 'Assigns each device of msg.payload to customer Customer B.');

    // the summary of other operations and kinds
    assert.equal(await summaryOf('get', 'ASSET'), 'Reads each asset of msg.payload by its name.');
    assert.equal(await summaryOf('delete', 'CUSTOMER'), 'Deletes each customer of msg.payload by its title.');
    assert.equal(await summaryOf('unassign', 'ASSET'), 'Unassigns each asset of msg.payload from its customer.');
    assert.equal(
      await summaryOf('create', 'CUSTOMER'),
      'Creates each customer of msg.payload (a name already taken is an error).',
    );
    assert.equal(
      await summaryOf('getCredentials', 'DEVICE'),
      "Reads each device's access token: the answer carries the token, keep it out of logs.",
    );
    assert.match(
      await summaryOf('setCredentials', 'DEVICE'),
      /^Sets each device's access token to its row's accessToken/,
    );
    assert.equal(await summaryOf('getCredentials', 'ASSET'), 'Only devices have an access token: pick Device.');
    assert.equal(
      await summaryOf('assign', 'CUSTOMER'),
      'A customer is not assigned to a customer: pick Device or Asset.',
    );
    assert.equal(
      await summaryOf('msg', 'DEVICE'),
      "Does what msg.operation says to each device of msg.payload, found by its name, with its row's profile, else msg.profile.",
    );
    await closeTrays(page);
  });
});
