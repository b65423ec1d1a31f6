/**
 * *Output to* in the query dialogs (tb-entity-query, tb-entity-count, tb-alarm-query) in a real editor (Debian
 * chromium, the shared embedded Node-RED): a TypedInput that offers msg. only, msg.payload for a flow saved before
 * the setting, what a person types is what the node stores (and the port label says it), and a property Node-RED
 * cannot write is flagged with the catalog's words. A node saved by version 1 with only its query shows its other
 * settings as the runtime reads them, and saving writes version 2.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../scripts/embedded';
import { useSimulator } from '../support/simulator';
import { closeTrays, openDialog, topTray, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

const catalog = (type: string): any =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'nodes/locales/en-US', `${type}.json`), 'utf8'))[type];
const THERMOSTATS = JSON.stringify({
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
});

describe('Output to in the query dialogs (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-output-',
    ready: 'aqO',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabO', x, y, wires: [] as string[][] });
      // Saved before the setting existed: no `output` property.
      return [
        { id: 'tabO', type: 'tab', label: 'output to' },
        simConnection('connO', sim.url),
        {
          id: 'eqO',
          type: 'tb-entity-query',
          connection: 'connO',
          operation: 'find',
          queryType: 'json',
          query: THERMOSTATS,
          format: 'flat',
          version: 1,
          ...at(300, 60),
        },
        {
          id: 'ecO',
          type: 'tb-entity-count',
          connection: 'connO',
          queryType: 'json',
          query: THERMOSTATS,
          version: 1,
          ...at(300, 140),
        },
        {
          id: 'aqO',
          type: 'tb-alarm-query',
          connection: 'connO',
          operation: 'count',
          queryType: 'json',
          query: '{}',
          version: 1,
          ...at(300, 220),
        },
        // Saved by version 1 with its query only (a flow written by hand): every other setting is missing.
        { id: 'eqV', type: 'tb-entity-query', connection: 'connO', query: THERMOSTATS, version: 1, ...at(300, 300) },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  /** The box a person types the property into. */
  const box = () => tray().locator('[data-tb-output] input.red-ui-typedInput-input');

  /** What the dialog's Output to shows: its type, its value, the type button's label and whether it opens a menu. */
  const shown = () =>
    page.evaluate(() => {
      const row = $('[data-tb-output]');
      const trigger = row.find('.red-ui-typedInput-type-select');
      return {
        visible: row.is(':visible') as boolean,
        type: $('#node-input-output').typedInput('type') as string,
        value: $('#node-input-output').typedInput('value') as string,
        label: row.find('label').text().trim() as string,
        typeLabel: trigger.text().trim() as string,
        menu: !trigger.hasClass('disabled') || trigger.find('.fa-caret-down').is(':visible'),
      };
    });

  async function save(): Promise<void> {
    await tray().locator('#node-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
  }

  it('a node saved by version 1 with its query only: its settings shown migrated, and saving writes version 2', async () => {
    await openDialog(page, 'eqV', { ready: '[data-tb-output]' });
    const settings = await page.evaluate(() => ({
      operation: $('#node-input-operation').val(),
      format: $('#node-input-format').val(),
      allPages: $('#node-input-allPages').prop('checked'),
      maxItems: $('#node-input-maxItems').val(),
      split: $('#node-input-split').prop('checked'),
      keysTimeseries: $('#node-input-keysTimeseries').prop('checked'),
      keysAttributes: $('#node-input-keysAttributes').prop('checked'),
      keysScopes: $('#node-input-keysScopes').typedInput('value'),
      output: $('#node-input-output').typedInput('value'),
    }));
    // What the runtime reads when they are missing: the declared defaults (version 1 read the same).
    assert.deepEqual(settings, {
      operation: 'find',
      format: 'flat',
      allPages: false,
      maxItems: '10000',
      split: false,
      keysTimeseries: true,
      keysAttributes: true,
      keysScopes: '',
      output: 'payload',
    });
    await save();
    const saved = await page.evaluate(() => {
      const n = RED.nodes.node('eqV');
      const { version, operation, format, maxItems, keysTimeseries, keysAttributes, output, valid } = n;
      return { version, operation, format, maxItems, keysTimeseries, keysAttributes, output, valid };
    });
    assert.deepEqual(saved, {
      version: 2,
      operation: 'find',
      format: 'flat',
      maxItems: '10000',
      keysTimeseries: true,
      keysAttributes: true,
      output: 'payload',
      valid: true,
    });
  });

  it('offers msg. only, shows msg.payload for a flow saved before the setting, and stores what is typed', async () => {
    for (const [id, type] of [
      ['eqO', 'tb-entity-query'],
      ['ecO', 'tb-entity-count'],
      ['aqO', 'tb-alarm-query'],
    ]) {
      await openDialog(page, id, { ready: '[data-tb-output]' });
      assert.deepEqual(
        await shown(),
        {
          visible: true,
          type: 'msg',
          value: 'payload',
          label: catalog(type).label.output,
          typeLabel: 'msg.',
          menu: false,
        },
        id,
      );
      await box().fill('entity');
      await box().press('Tab');
      await save();
      assert.equal(await page.evaluate((n) => RED.nodes.node(n).output, id), 'entity', id);

      // Reopened: the stored property is what the dialog shows; the port label says where the result goes.
      await openDialog(page, id, { ready: '[data-tb-output]' });
      assert.equal((await shown()).value, 'entity', id);
      await closeTrays(page);
      const portLabel = await page.evaluate((n) => {
        const node = RED.nodes.node(n);
        return node._def.outputLabels.call(node, 0) as string;
      }, id);
      assert.match(portLabel, / \u2192 msg\.entity$/, id);
    }
    // A deeper path is kept as typed, and back to payload drops the port label's addition.
    await openDialog(page, 'eqO', { ready: '[data-tb-output]' });
    await box().fill('data.list');
    await box().press('Tab');
    await save();
    assert.equal(await page.evaluate(() => RED.nodes.node('eqO').output), 'data.list');
    await openDialog(page, 'eqO', { ready: '[data-tb-output]' });
    await box().fill('payload');
    await box().press('Tab');
    await save();
    const label = await page.evaluate(() => {
      const node = RED.nodes.node('eqO');
      return { output: node.output, port: node._def.outputLabels.call(node, 0) as string };
    });
    assert.deepEqual(label, { output: 'payload', port: catalog('tb-entity-query').outputLabel.find });
  });

  it('flags a property Node-RED cannot write, in the catalog words', async () => {
    await openDialog(page, 'ecO', { ready: '[data-tb-output]' });
    for (const bad of ['a..b', '']) {
      await box().fill(bad);
      await box().press('Tab');
      await page.waitForFunction(
        () => $('[data-tb-output] .red-ui-typedInput-container').hasClass('input-error'),
        undefined,
        { timeout: WAIT },
      );
      const verdict = await page.evaluate(() => {
        const n = RED.nodes.node('ecO');
        return n._def.defaults.output.validate.call(n, $('#node-input-output').typedInput('value'), {});
      });
      assert.equal(verdict, catalog('tb-entity-count').errors.output, JSON.stringify(bad));
    }
    await box().fill('count');
    await box().press('Tab');
    await page.waitForFunction(
      () => !$('[data-tb-output] .red-ui-typedInput-container').hasClass('input-error'),
      undefined,
      { timeout: WAIT },
    );
  });
});
