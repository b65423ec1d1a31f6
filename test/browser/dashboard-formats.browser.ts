/**
 * The formats for Dashboard 2 in the dialogs, in a real editor (Debian chromium, the shared embedded Node-RED): the
 * telemetry node's *for a chart*, the subscribe node's *for a chart* (entities only) and *for a table* (alarms only:
 * each offered for its kind, and one of another kind falls back to simple objects when the kind changes), the alarm
 * query's *for a table* and the Topic of a count (alarm query, entity count). What a person picks is what the node
 * stores, and a deployed chart subscription runs.
 */
import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import {
  closeTrays,
  deployButton,
  openDialog,
  saveDialog,
  topTray,
  typeInto,
  verdict,
  waitForStatus,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

const THERMOSTATS = JSON.stringify({
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
});

describe('formats for Dashboard 2 in the dialogs (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-dashboard-',
    ready: 'ecD',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabD', x, y, wires: [] as string[][] });
      return [
        { id: 'tabD', type: 'tab', label: 'dashboard formats' },
        simConnection('connD', sim.url),
        {
          id: 'telD',
          type: 'tb-telemetry',
          connection: 'connD',
          operation: 'history',
          keys: 'temperature',
          last: '24h',
          format: 'flat',
          ...at(300, 60),
        },
        {
          id: 'subD',
          type: 'tb-subscribe',
          connection: 'connD',
          kind: 'entityData',
          queryType: 'json',
          query: THERMOSTATS,
          format: 'flat',
          ...at(300, 140),
        },
        { id: 'aqD', type: 'tb-alarm-query', connection: 'connD', operation: 'find', ...at(300, 220) },
        {
          id: 'ecD',
          type: 'tb-entity-count',
          connection: 'connD',
          queryType: 'json',
          query: THERMOSTATS,
          ...at(300, 300),
        },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const pick = (prop: string, value: string) => tray().locator(`#node-input-${prop}`).selectOption(value);
  /** The options of the format select a person can see, in order. */
  const formatsShown = () =>
    page.evaluate(() =>
      $('#node-input-format option')
        .toArray()
        .filter((o: HTMLOptionElement) => $(o).css('display') !== 'none')
        .map((o: HTMLOptionElement) => `${o.value}: ${o.text}`),
    );
  const saved = (id: string, props: string[]) =>
    page.evaluate(
      ([nodeId, names]) => {
        const n = RED.nodes.node(nodeId);
        return Object.fromEntries([...names, 'valid'].map((p: string) => [p, n[p]]));
      },
      [id, props] as const,
    );

  it('telemetry: the output names what each shape is for; "for a chart" is stored as chart', async () => {
    await openDialog(page, 'telD');
    assert.deepEqual(await formatsShown(), [
      'flat: one row per time (latest: key: value)',
      'chart: for a chart (points: key, ts, value, oldest first)',
      'raw: as ThingsBoard sends it',
    ]);
    await pick('format', 'chart');
    await saveDialog(page);
    assert.deepEqual(await saved('telD', ['format']), { format: 'chart', valid: true });
  });

  it('subscribe: a chart for entities, a table for alarms; a format of another kind becomes simple objects', async () => {
    await openDialog(page, 'subD');
    assert.deepEqual(await formatsShown(), [
      'flat: simple objects',
      'chart: for a chart (a point per changed value)',
      'raw: as ThingsBoard sends them',
    ]);
    await pick('format', 'chart');
    await saveDialog(page);
    assert.deepEqual(await saved('subD', ['kind', 'format']), { kind: 'entityData', format: 'chart', valid: true });

    // Watching alarms instead: the chart is not offered, and the node's chart becomes simple objects.
    await openDialog(page, 'subD');
    await pick('kind', 'alarmData');
    assert.equal(await tray().locator('#node-input-format').inputValue(), 'flat', 'the chart is for entities only');
    assert.deepEqual(await formatsShown(), [
      'flat: simple objects',
      'table: for a table (the alarms as rows)',
      'raw: as ThingsBoard sends them',
    ]);
    await pick('format', 'table');
    assert.equal(await verdict(page, 'subD', 'format'), true);
    await closeTrays(page);
    assert.deepEqual(await saved('subD', ['kind', 'format']), { kind: 'entityData', format: 'chart', valid: true });
  });

  it('alarm query: "for a table" when finding, a Topic when counting; entity count: a Topic', async () => {
    await openDialog(page, 'aqD');
    assert.equal(await tray().locator('#node-input-topic').isVisible(), false, 'no topic for a find');
    assert.deepEqual(await formatsShown(), [
      'flat: simple objects (one per alarm)',
      'table: for a table (one row per alarm)',
      'raw: as ThingsBoard sends them',
    ]);
    await pick('format', 'table');
    await pick('operation', 'count');
    await tray().locator('#node-input-topic').waitFor({ state: 'visible' });
    await typeInto(page, 'topic', 'critical alarms');
    await saveDialog(page);
    assert.deepEqual(await saved('aqD', ['operation', 'format', 'topic']), {
      operation: 'count',
      format: 'table',
      topic: 'critical alarms',
      valid: true,
    });

    await openDialog(page, 'ecD');
    assert.equal(
      await tray().locator('#node-input-topic').getAttribute('placeholder'),
      'e.g. thermostats (empty: msg.topic as it came)',
    );
    await typeInto(page, 'topic', 'thermostats');
    await saveDialog(page);
    assert.deepEqual(await saved('ecD', ['topic']), { topic: 'thermostats', valid: true });

    await deployButton(page);
    await waitForStatus(page, 'subD', /watching|entities/);
  });
});
