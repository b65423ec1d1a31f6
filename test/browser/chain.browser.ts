/**
 * The chain in a real editor (Debian chromium, the shared embedded Node-RED, the simulator's demo data): a query node
 * whose list goes to msg.payload (*Output to* left alone) wired into a node that reads msg.entity says so in the
 * dialog of either one, and its button sets the query's *Output to* to msg.entity in one click, from the query's
 * dialog (saved with Done) or from the other node's (an edit of its own, which undo takes back); after deploy the
 * chain works. And an error as the debug sidebar shows it: one line, the fix first, under the node's label.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import { deployButton, pressInject, saveDialog, topTray, waitForStatus, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

const TAB = 'chainTab';
const CONN = 'chainConn';
const THERMOSTATS = JSON.stringify({
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: 100 },
});

describe('the chain: a query into a node that reads msg.entity, and errors in the debug sidebar (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-chain-',
    ready: 'chA',
    flows: () => {
      const at = (x: number, y: number, wires: string[][] = []) => ({ z: TAB, x, y, wires });
      const inject = (id: string, name: string, y: number, next: string) => ({
        id,
        type: 'inject',
        name,
        props: [{ p: 'payload' }],
        repeat: '',
        crontab: '',
        once: false,
        onceDelay: 0.1,
        topic: '',
        payload: '',
        payloadType: 'date',
        ...at(120, y, [[next]]),
      });
      const query = (id: string, y: number, next: string) => ({
        id,
        type: 'tb-entity-query',
        connection: CONN,
        operation: 'find',
        queryType: 'json',
        query: THERMOSTATS,
        format: 'flat',
        output: 'payload',
        version: 2,
        ...at(320, y, [[next]]),
      });
      return [
        { id: TAB, type: 'tab', label: 'chain' },
        simConnection(CONN, sim.url, { name: 'ThingsBoard demo' }),
        // query → save attributes, Output to left at msg.payload.
        inject('chI', 'go', 80, 'chQ'),
        query('chQ', 80, 'chA'),
        {
          id: 'chA',
          type: 'tb-attributes',
          connection: CONN,
          operation: 'save',
          scope: 'SHARED_SCOPE',
          targetType: 'auto',
          valuesFrom: 'rows',
          values: [{ key: 'chainMode', type: 'str', value: 'eco' }],
          version: 2,
          ...at(560, 80),
        },
        // query → telemetry, fixed from the telemetry's dialog.
        query('chQ2', 200, 'chT'),
        {
          id: 'chT',
          type: 'tb-telemetry',
          connection: CONN,
          operation: 'latest',
          targetType: 'auto',
          version: 2,
          ...at(560, 200),
        },
        // An unnamed node refusing a message that names no entity: its error in the debug sidebar.
        inject('chE', 'no entity', 320, 'chX'),
        { id: 'chX', type: 'tb-attributes', connection: CONN, version: 2, ...at(320, 320) },
      ];
    },
  });
  before(async () => {
    ({ page } = editor);
    await page.evaluate((tab) => RED.workspaces.show(tab), TAB);
  });

  const tray = () => topTray(page);
  const hint = () => tray().locator('[data-tb-chain-hint]');
  const shot = (name: string) => tray().screenshot({ path: path.join(screenshotDir(), `chain-${name}.png`) });

  /** Opens a node's dialog as a person does: a double click on the canvas. */
  async function edit(id: string): Promise<void> {
    await page.locator(`[id="${id}"] .red-ui-flow-node`).first().dblclick();
    await tray().locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: WAIT });
  }
  async function cancel(): Promise<void> {
    await tray().locator('#node-dialog-cancel').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
  }
  const output = (id: string) => page.evaluate((n) => RED.nodes.node(n).output, id);
  /** A node's label as the canvas shows it. */
  const label = (id: string): Promise<string> =>
    page.evaluate((n) => RED.utils.getNodeLabel(RED.nodes.node(n), RED.nodes.node(n).type), id);

  it('the hint shows in both dialogs; its button in the query dialog sets Output to msg.entity; the chain then works', async () => {
    await edit('chA');
    await hint().waitFor({ state: 'visible', timeout: WAIT });
    assert.equal(
      (await hint().locator('span').textContent())?.trim(),
      `"${await label('chQ')}", before this node, sends its list to msg.payload, not msg.entity.`,
    );
    assert.equal((await hint().locator('[data-tb-chain-fix]').textContent())?.trim(), 'Send the list to msg.entity');
    await shot('attributes');
    await cancel();

    await edit('chQ');
    await hint().waitFor({ state: 'visible', timeout: WAIT });
    assert.equal(
      (await hint().locator('span').textContent())?.trim(),
      `"${await label('chA')}", after this node, reads the list from msg.entity.`,
    );
    assert.equal(await label('chA'), 'save attributes');
    await shot('query');
    await hint().locator('[data-tb-chain-fix]').click();
    await hint().waitFor({ state: 'hidden', timeout: WAIT });
    assert.equal(await page.evaluate(() => $('#node-input-output').typedInput('value')), 'entity');
    await saveDialog(page);
    assert.equal(await output('chQ'), 'entity');

    // The other dialog no longer says it.
    await edit('chA');
    assert.equal(await hint().isVisible(), false);
    await cancel();

    await deployButton(page);
    await pressInject(page, 'chI');
    const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
    const s = await waitForStatus(page, 'chA', new RegExp(`^${thermostats.length} done$`));
    assert.equal(s.fill, 'green');
    for (const d of thermostats) assert.equal(sim.data.getAttribute(d, 'SHARED_SCOPE', 'chainMode')?.value, 'eco');
  });

  it('from the dialog of the node after the query: one click sets the query node, an edit undo takes back', async () => {
    await edit('chT');
    await hint().waitFor({ state: 'visible', timeout: WAIT });
    assert.equal(await output('chQ2'), 'payload');
    await hint().locator('[data-tb-chain-fix]').click();
    await hint().waitFor({ state: 'hidden', timeout: WAIT });
    assert.equal(await output('chQ2'), 'entity', 'the query node is set at once');
    assert.equal(await page.evaluate(() => RED.nodes.dirty()), true, 'a change to deploy');
    await cancel();
    assert.equal(await output('chQ2'), 'entity', 'its own edit: cancelling this dialog keeps it');
    await page.evaluate(() => RED.actions.invoke('core:undo'));
    assert.equal(await output('chQ2'), 'payload', 'undo takes it back');
    await edit('chT');
    await hint().waitFor({ state: 'visible', timeout: WAIT });
    await cancel();
  });

  it("an error in the debug sidebar: one line, the fix first, under the node's label", async () => {
    // Deployed with the block's flows: an unnamed save of attributes after an inject, which names no entity.
    await page.evaluate(() => RED.sidebar.show('debug'));
    await page.locator('.red-ui-debug-content-list').waitFor({ state: 'visible', timeout: WAIT });
    await page.evaluate(() => $('.red-ui-debug-content .red-ui-debug-msg').remove());
    await pressInject(page, 'chE');
    const entry = page.locator('.red-ui-debug-msg.red-ui-debug-msg-level-20').last();
    await entry.waitFor({ state: 'visible', timeout: WAIT });
    const shown = await entry.evaluate((el) => ({
      name: $(el).find('.red-ui-debug-msg-name').text().trim(),
      text: $(el).find('.red-ui-debug-msg-payload').text().trim(),
    }));
    assert.equal(shown.name, 'node: save attributes');
    assert.equal(shown.text, '"Set the query node\'s Output to msg.entity, or send the entity in msg.entity"');
    await page
      .locator('#red-ui-sidebar')
      .screenshot({ path: path.join(screenshotDir(), 'chain-debug-error.png') })
      .catch(() => undefined);
  });
});
