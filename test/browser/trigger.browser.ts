/**
 * tb-trigger's dialog in a real editor (Debian chromium, the shared embedded Node-RED, the simulator with the demo's
 * data: a week of history up to now, the three warm rooms above 25 °C), with the mouse: a value trigger on a query of
 * thermostats (its conditions built with tb-wait-until's parts: key chips from the server, the comparisons, a value),
 * an alarm trigger and a silence trigger on a device picked by name, each read back as a sentence; a hold that is not
 * a duration and a condition with no key flagged; saved and opened again; then deployed, it fires on the warm rooms
 * (its status and a debug message), and the other way when a room cools.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startDemoActivity, WARM_ROOMS } from '../../scripts/demo-activity';
import { demoFlows } from '../../scripts/start';
import { dbl } from '../../sim';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  addNodes,
  chipsShown,
  deployButton,
  keySuggestions,
  marked,
  pickEntity,
  pickSuggestion,
  recordDebug,
  saveDialog,
  topTray,
  typeInto,
  verdict,
  waitForDebug,
  waitForStatus,
  WAIT,
} from './editor-page';
import { useEditor } from './editor-session';

declare const RED: any;
declare const $: any;

const TAB = 'tabT';
const CONN = 'connT';

describe('tb-trigger (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  let stopActivity = () => undefined as void;
  before(function () {
    // The demo's data, without its clock: history up to now (the warm rooms above 25 °C), nothing moves by itself.
    stopActivity = startDemoActivity(sim, { clock: false });
  });
  after(() => stopActivity());

  const editor = useEditor({
    dir: 'tb-browser-trigger-',
    ready: CONN,
    viewport: { width: 1500, height: 1400 },
    flows: () => [
      { id: TAB, type: 'tab', label: 'trigger' },
      {
        id: CONN,
        type: 'tb-connection',
        name: 'sim',
        url: sim.url,
        authMode: 'password',
        timeout: 10,
        version: 1,
        credentials: { username: 'tenant@thingsboard.org', password: 'tenant' },
      },
    ],
  });
  before(async function () {
    ({ page } = editor);
    await page.evaluate((tab) => RED.workspaces.show(tab), TAB);
    await recordDebug(page);
    // Dropped from the palette: every setting its default; a debug node on each output of the value trigger.
    await addNodes(page, [
      { id: 'trigV', type: 'tb-trigger', z: TAB, x: 200, y: 80, wires: [['dbgTrue'], ['dbgFalse']] },
      { id: 'dbgTrue', type: 'debug', z: TAB, x: 480, y: 60 },
      { id: 'dbgFalse', type: 'debug', z: TAB, x: 480, y: 120 },
      { id: 'trigA', type: 'tb-trigger', z: TAB, x: 200, y: 220 },
      { id: 'trigS', type: 'tb-trigger', z: TAB, x: 200, y: 320 },
    ]);
    // The debug nodes show the whole message (the topic says what happened, the payload the details).
    await page.evaluate(() => {
      for (const id of ['dbgTrue', 'dbgFalse']) Object.assign(RED.nodes.node(id), { complete: 'true' });
    });
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);
  const field = (f: string) => tray().locator(`[data-tb-field="${f}"]`);
  /** The condition rows of the open dialog. */
  const row = (i: number) => tray().locator('[data-tb-condition-row]').nth(i);

  /** Opens a node's dialog as a person does: a double click on the canvas. */
  async function edit(id: string): Promise<void> {
    await page.locator(`[id="${id}"] .red-ui-flow-node`).first().dblclick();
    await tray().locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: WAIT });
  }

  /** Waits until the sentence reads `text`. */
  async function says(text: string): Promise<void> {
    try {
      await page.waitForFunction((s) => $('[data-tb-sentence]').text() === s, text, { timeout: WAIT });
    } catch {
      assert.equal(await page.evaluate(() => String($('[data-tb-sentence]').text())), text, 'the sentence');
    }
  }

  /** Types into a condition row's value box, after choosing its type from the TypedInput's menu. */
  async function rowValue(i: number, type: string, text: string): Promise<void> {
    const r = row(i);
    await r.locator('button.red-ui-typedInput-type-select').click();
    const item = page.locator(`.red-ui-typedInput-options:visible a[value="${type}"]`);
    await item.waitFor({ state: 'visible', timeout: WAIT });
    await item.click();
    await page.locator('.red-ui-typedInput-options:visible').waitFor({ state: 'hidden', timeout: WAIT });
    const box = r.locator('input.red-ui-typedInput-input');
    await box.fill(text);
    await box.press('Tab');
  }

  /** A condition row's key chip: typed and picked from the server's suggestions. */
  const rowKey = (i: number, typed: string, key: string) =>
    pickSuggestion(page, row(i).locator('[data-tb-chips] input.tb-b-text'), typed, key);

  /** The key suggestions of a row's chip box (its data-tb-chips field). */
  const rowKeys = async (i: number) =>
    keySuggestions(page, String(await row(i).locator('[data-tb-chips]').getAttribute('data-tb-chips')));

  const saved = (id: string, props: string[]) =>
    page.evaluate(
      ([nodeId, ps]) => {
        const n = RED.nodes.node(nodeId);
        return Object.fromEntries([...ps, 'valid'].map((p) => [p, n[p]]));
      },
      [id, props] as const,
    );
  /** A picture of the open dialog, from its top to the sentence. */
  async function shotToSentence(name: string): Promise<void> {
    const top = await tray().boundingBox();
    const end = await tray().locator('[data-tb-row="sentence"]').boundingBox();
    assert.ok(top && end, 'the dialog and its sentence are shown');
    await page.screenshot({
      path: path.join(screenshotDir(), name),
      clip: { x: top.x, y: top.y, width: top.width, height: end.y + end.height + 16 - top.y },
    });
  }
  const canvasLabel = (id: string) =>
    page.evaluate(
      (nodeId) => document.getElementById(nodeId)?.querySelector('.red-ui-flow-node-label')?.textContent,
      id,
    );

  it('a value trigger on a query of thermostats: key chips from the server, a comparison, a value, held for 10 min, read as a sentence', async function () {
    await edit('trigV');
    // A new trigger watches a query's entities, on a value, and starts with one condition to fill in.
    assert.equal(await tray().locator('#node-input-watch').inputValue(), 'query');
    assert.equal(await tray().locator('#node-input-condition').inputValue(), 'value');
    assert.equal(await visible('[data-tb-builder]'), true, 'the query builder');
    assert.equal(await visible('[data-tb-row="target"]'), false, 'no entity box for a query');
    assert.equal(await tray().locator('[data-tb-condition-row]').count(), 1);
    await says('as soon as (key) > (value) on any of 28 devices');

    // Which entities: devices of the profile thermostat, picked from the server's list.
    await field('entityFilter.type').first().selectOption('deviceType');
    await pickSuggestion(page, field('entityFilter.deviceTypes').last(), 'therm', 'thermostat');
    // Counted on the server: the sentence says how many.
    await says('as soon as (key) > (value) on any of 20 thermostats');
    // The query's page is what is watched: a page smaller than the list says so.
    await field('pageLink.pageSize').first().fill('10');
    await field('pageLink.pageSize').first().press('Tab');
    await says(
      "as soon as (key) > (value) on any of the first 10 of 20 thermostats (raise the query's Page size to watch them all)",
    );
    await field('pageLink.pageSize').first().fill('100');
    await field('pageLink.pageSize').first().press('Tab');
    await says('as soon as (key) > (value) on any of 20 thermostats');

    // The condition: the key suggested from the thermostats' own keys, of the key type chosen.
    assert.deepEqual(await rowKeys(0), ['humidity', 'temperature']);
    await row(0).locator('[data-tb-condition-key-type]').selectOption('SHARED_ATTRIBUTE');
    assert.deepEqual(await rowKeys(0), ['config', 'reportingInterval', 'targetTemperature']);
    await row(0).locator('[data-tb-condition-key-type]').selectOption('TIME_SERIES');
    await rowKey(0, 'temp', 'temperature');
    await says('as soon as temperature > (value) on any of 20 thermostats');
    await rowValue(0, 'num', '25');
    await says('as soon as temperature > 25 on any of 20 thermostats');
    await typeInto(page, 'holdFor', '10m');
    await says('when temperature > 25 has held for 10 min on any of 20 thermostats');
    await marked(page, 'holdFor', false);
    assert.equal(await verdict(page, 'trigV', 'conditions'), true);

    // A second condition: the join shows, and "any" reads as "or"; removed again.
    assert.equal(await visible('[data-tb-row="join"]'), false, 'one condition: nothing to join');
    await tray().locator('[data-tb-conditions] .red-ui-editableList-addButton').click();
    await rowKey(1, 'hum', 'humidity');
    await row(1).locator('[data-tb-condition-operator]').selectOption('gte');
    await rowValue(1, 'num', '60');
    assert.equal(await visible('[data-tb-row="join"]'), true);
    await says('when temperature > 25 and humidity ≥ 60 has held for 10 min on any of 20 thermostats');
    await tray().locator('#node-input-join').selectOption('any');
    await says('when temperature > 25 or humidity ≥ 60 has held for 10 min on any of 20 thermostats');
    await tray().locator('#node-input-join').selectOption('all');
    await tray().locator('[data-tb-condition-list] li').nth(1).locator('.red-ui-editableList-item-remove').click();
    await page.waitForFunction(() => $('[data-tb-condition-row]').length === 1, undefined, { timeout: WAIT });
    assert.equal(await visible('[data-tb-row="join"]'), false);
    await says('when temperature > 25 has held for 10 min on any of 20 thermostats');

    // False again after 2 minutes, a reminder every 30 minutes, 3 at most.
    assert.equal(await visible('[data-tb-row="repeatMax"]'), false, 'no reminder: no count');
    await typeInto(page, 'holdOffFor', '2m');
    await typeInto(page, 'repeatEvery', '30m');
    await typeInto(page, 'repeatMax', '3');
    await says(
      'when temperature > 25 has held for 10 min on any of 20 thermostats; false again once it has not held for 2 min; ' +
        'again every 30 min while it holds, at most 3 times',
    );
    await typeInto(page, 'holdOffFor', '0');
    await typeInto(page, 'repeatEvery', '');
    await says('when temperature > 25 has held for 10 min on any of 20 thermostats');
    // The picture of the trigger's page and the README: the dialog from its top to the sentence (the query builder
    // follows under it).
    await shotToSentence('trigger-value.png');
    await saveDialog(page);

    const props = ['watch', 'queryType', 'condition', 'conditions', 'join', 'holdFor', 'holdOffFor', 'repeatEvery'];
    const expected = {
      watch: 'query',
      queryType: 'json',
      condition: 'value',
      conditions: [{ keyType: 'TIME_SERIES', key: 'temperature', operator: 'gt', value: '25', valueType: 'num' }],
      join: 'all',
      holdFor: '10m',
      holdOffFor: '0',
      repeatEvery: '',
      valid: true,
    };
    assert.deepEqual(await saved('trigV', props), expected);
    const query = JSON.parse(await page.evaluate(() => RED.nodes.node('trigV').query));
    assert.deepEqual(query.entityFilter, { type: 'deviceType', deviceTypes: ['thermostat'] });
    assert.equal(await canvasLabel('trigV'), 'temperature > 25 for 10 min');

    // Opened again: the dialog shows what was saved, and saving it again changes nothing.
    await edit('trigV');
    await says('when temperature > 25 has held for 10 min on any of 20 thermostats');
    assert.equal(await tray().locator('[data-tb-condition-row]').count(), 1);
    assert.deepEqual(
      await chipsShown(page, String(await row(0).locator('[data-tb-chips]').getAttribute('data-tb-chips'))),
      ['temperature'],
    );
    assert.equal(await row(0).locator('[data-tb-condition-operator]').inputValue(), 'gt');
    assert.deepEqual(
      await page.evaluate(() => {
        const v = $('[data-tb-condition-row] input[data-tb-condition-value]').first();
        return [v.typedInput('type'), v.typedInput('value')];
      }),
      ['num', '25'],
    );
    assert.equal(await tray().locator('#node-input-holdFor').inputValue(), '10m');
    await saveDialog(page);
    assert.deepEqual(await saved('trigV', props), expected);
  });

  it('bad input is flagged: a hold that is not a duration, a condition with no key, a value that does not fit its comparison', async function () {
    await edit('trigV');
    await typeInto(page, 'holdFor', 'ten minutes');
    await marked(page, 'holdFor', true);
    assert.match(String(await verdict(page, 'trigV', 'holdFor')), /^Held for must be a duration such as 30s, 10m/);
    // Said as typed in the sentence, flagged apart.
    await says('when temperature > 25 has held for ten minutes on any of 20 thermostats');

    // The key's chip removed: the row's key box is marked, and the node says which condition lacks what.
    await row(0).locator('[data-tb-action="remove-chip"]').click();
    await page.waitForFunction(
      () => $('[data-tb-condition-row] .tb-b-chips input.tb-b-text').hasClass('tb-b-invalid'),
      undefined,
      { timeout: WAIT },
    );
    assert.equal(
      await verdict(page, 'trigV', 'conditions'),
      'Condition 1: name the one key it reads, such as temperature.',
    );
    await says('when (key) > 25 has held for ten minutes on any of 20 thermostats');
    await shotToSentence('trigger-bad-input.png');
    await rowKey(0, 'temp', 'temperature');
    assert.equal(await verdict(page, 'trigV', 'conditions'), true);

    // ">" compares numbers: a text that is not one is flagged on the value's box.
    await rowValue(0, 'str', 'warm');
    await page.waitForFunction(
      () => $('[data-tb-condition-row] .red-ui-typedInput-container').first().hasClass('input-error'),
      undefined,
      { timeout: WAIT },
    );
    assert.match(String(await verdict(page, 'trigV', 'conditions')), /^Condition 1: <, ≤, > and ≥ compare numbers/);
    // A text that reads as a number is one.
    await rowValue(0, 'str', '25');
    assert.equal(await verdict(page, 'trigV', 'conditions'), true);
    await says('when temperature > 25 has held for ten minutes on any of 20 thermostats');

    // Without a condition at all.
    await tray().locator('[data-tb-condition-list] li').first().locator('.red-ui-editableList-item-remove').click();
    await page.waitForFunction(() => $('[data-tb-conditions-empty]').is(':visible'), undefined, { timeout: WAIT });
    assert.equal(await verdict(page, 'trigV', 'conditions'), 'Conditions: add one (a key, a comparison and a value).');
    // Cancelled: the node keeps what was saved.
    await tray().locator('#node-dialog-cancel').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
    assert.equal(await page.evaluate(() => RED.nodes.node('trigV').holdFor), '10m');
  });

  it('an alarm trigger: type suggested, severity ticked, not acknowledged for 15 min', async function () {
    await edit('trigA');
    await tray().locator('#node-input-condition').selectOption('alarm');
    assert.equal(await visible('[data-tb-row="conditions"]'), false, 'no value conditions for an alarm');
    assert.equal(await visible('[data-tb-row="alarmType"]'), true);
    assert.equal(await visible('[data-tb-row="silentFor"]'), false);
    await says('as soon as an alarm is active on any of 28 devices');
    await pickSuggestion(page, tray().locator('#node-input-alarmType'), 'High', 'High Temperature');
    await tray().locator('[data-tb-severity="CRITICAL"]').check();
    await tray().locator('#node-input-alarmState').selectOption('unacknowledged');
    await typeInto(page, 'holdFor', '15m');
    await says(
      'when a critical High Temperature alarm has been active and unacknowledged for 15 min on any of 28 devices',
    );
    // A value trigger's conditions are not checked while it watches an alarm.
    assert.equal(await verdict(page, 'trigA', 'conditions'), true);
    await tray().screenshot({ path: path.join(screenshotDir(), 'trigger-alarm.png') });
    await saveDialog(page);
    assert.deepEqual(await saved('trigA', ['condition', 'alarmType', 'severities', 'alarmState', 'holdFor']), {
      condition: 'alarm',
      alarmType: 'High Temperature',
      severities: 'CRITICAL',
      alarmState: 'unacknowledged',
      holdFor: '15m',
      valid: true,
    });
    assert.equal(await canvasLabel('trigA'), 'critical High Temperature unacknowledged for 15 min');

    await edit('trigA');
    assert.equal(await tray().locator('[data-tb-severity="CRITICAL"]').isChecked(), true);
    assert.equal(await tray().locator('[data-tb-severity="MAJOR"]').isChecked(), false);
    await says(
      'when a critical High Temperature alarm has been active and unacknowledged for 15 min on any of 28 devices',
    );
  });

  it('a silence trigger on a device picked by name: its own keys suggested, silent for an hour', async function () {
    await edit('trigS');
    await tray().locator('#node-input-watch').selectOption('entity');
    // Watching one entity: the entity box is there, set to "picked by name".
    assert.equal(await visible('[data-tb-row="target"]'), true);
    assert.equal(await visible('[data-tb-builder]'), false);
    assert.equal(await page.evaluate(() => $('#node-input-target').typedInput('type')), 'entity');
    assert.match(String(await verdict(page, 'trigS', 'target')), /^Entity: pick an entity/);
    await pickEntity(page, 'DEVICE', 'Gate', 'Gateway 1');
    assert.equal(await verdict(page, 'trigS', 'target'), true);
    await tray().locator('#node-input-condition').selectOption('silence');
    assert.equal(await visible('[data-tb-row="silentFor"]'), true);
    await says('when no update of (key) has come for 1 h on Gateway 1');
    // A silence counts the updates of the keys it names: none named is flagged.
    assert.match(
      String(await verdict(page, 'trigS', 'silenceKeys')),
      /^Keys: name the time series whose updates count/,
    );
    // The gateway's own time series, suggested.
    assert.deepEqual(await keySuggestions(page, 'silenceKeys'), ['cpu', 'status', 'uptime']);
    await pickSuggestion(page, tray().locator('[data-tb-chips="silenceKeys"] input.tb-b-text'), 'up', 'uptime');
    await typeInto(page, 'silentFor', '30m');
    await says('when no update of uptime has come for 30 min on Gateway 1');
    await tray().screenshot({ path: path.join(screenshotDir(), 'trigger-silence.png') });
    await saveDialog(page);
    const gateway = sim.data.mustFindByName('DEVICE' as never, 'Gateway 1').id;
    assert.deepEqual(await saved('trigS', ['watch', 'target', 'targetType', 'condition', 'silenceKeys', 'silentFor']), {
      watch: 'entity',
      target: JSON.stringify({ entityType: 'DEVICE', id: gateway }),
      targetType: 'json',
      condition: 'silence',
      silenceKeys: 'uptime',
      silentFor: '30m',
      valid: true,
    });
    assert.equal(await canvasLabel('trigS'), 'no uptime for 30 min');

    // Back to the entities messages name: the entity box reads the message again.
    await edit('trigS');
    await says('when no update of uptime has come for 30 min on Gateway 1');
    await tray().locator('#node-input-watch').selectOption('message');
    assert.equal(await page.evaluate(() => $('#node-input-target').typedInput('type')), 'auto');
    await says('when no update of uptime has come for 30 min on each entity a message names');
    assert.equal(await verdict(page, 'trigS', 'target'), true);
    assert.equal(await visible('[data-tb-tip="message"]'), true);
  });

  it('deployed, the value trigger fires on the warm rooms (status, a debug message), and the other way when one cools', async function () {
    // Held for 1 s, so that it fires while the test looks (the rooms are above 25 °C since the demo's history).
    await edit('trigV');
    await typeInto(page, 'holdFor', '1s');
    await says('when temperature > 25 has held for 1 s on any of 20 thermostats');
    await saveDialog(page);
    // The other two triggers out of the way: the alarm's watches every device, the silence's waits for a message.
    await page.evaluate(() => {
      for (const id of ['trigA', 'trigS']) RED.nodes.node(id).d = true;
    });
    await deployButton(page);
    const warm = [...WARM_ROOMS].sort();
    await waitForStatus(page, 'trigV', new RegExp(`^${warm.length} true of 20$`));
    const fired = (await waitForDebug(page, 'dbgTrue', warm.length)) as Array<{
      topic: string;
      entity: { entityType: string; id: string };
      payload: { state: boolean; name: string; value: number; heldFor: number };
    }>;
    assert.deepEqual(fired.map((m) => m.payload.name).sort(), warm);
    for (const m of fired) {
      assert.equal(m.payload.state, true);
      assert.ok(m.payload.value > 25, `${m.payload.name}: ${m.payload.value}`);
      assert.ok(m.payload.heldFor >= 1000, `${m.payload.name} held ${m.payload.heldFor} ms`);
      assert.match(m.topic, new RegExp(`^true: temperature [\\d.]+ held .*\\(${m.payload.name}\\)$`));
      assert.equal(m.entity.id, sim.data.mustFindByName('DEVICE' as never, m.payload.name).id);
    }
    // What a person sees: the notification closed, the status under the node and the messages in the sidebar.
    const close = page.locator('.red-ui-notification button').filter({ hasText: 'Close' });
    if (await close.count()) await close.first().click();
    await page.waitForFunction(() => $('.red-ui-notification:visible').length === 0, undefined, { timeout: WAIT });
    await page.evaluate(() => RED.sidebar.show('debug'));
    await page.locator('.red-ui-debug-msg').first().waitFor({ state: 'visible', timeout: WAIT });
    await page.screenshot({
      path: path.join(screenshotDir(), 'trigger-fired.png'),
      clip: { x: 0, y: 0, width: 1500, height: 600 },
    });

    // One warm room cools below 25 °C: the second output, and one fewer true.
    const room = sim.data.mustFindByName('DEVICE' as never, warm[0]);
    sim.data.setTelemetry(room.id, { temperature: dbl(22) });
    const [cooled] = (await waitForDebug(page, 'dbgFalse', 1)) as Array<{
      topic: string;
      payload: { state: boolean; name: string; value: number };
    }>;
    assert.deepEqual([cooled.payload.state, cooled.payload.name, cooled.payload.value], [false, warm[0], 22]);
    await waitForStatus(page, 'trigV', new RegExp(`^${warm.length - 1} true of 20$`));
  });

  it("the demo's example Device silent for an hour fires at once, for the one device that has sent nothing for an hour", async function () {
    // The example's tab as `npm start` deploys it (on the demo's connection, its debug nodes showing under them),
    // imported into the editor and deployed with the button.
    const conn = await page.evaluate((id) => ({ ...RED.nodes.node(id), credentials: {} }), CONN);
    const tabs = demoFlows({ ...conn, id: CONN, type: 'tb-connection' });
    const tab = tabs.find((n) => n.type === 'tab' && n.label === 'Device silent for an hour')!;
    const nodes = tabs.filter((n) => n.id === tab.id || n.z === tab.id);
    await page.evaluate((list) => {
      RED.view.importNodes(list, { generateIds: false, touchImport: true, notify: false });
      RED.view.select({ nodes: [] });
      RED.view.redraw(true);
    }, nodes);
    const trigger = nodes.find((n) => n.type === 'tb-trigger')!;
    const notify = nodes.find((n) => n.type === 'debug' && n.name === 'notify')!;
    await page.evaluate((id) => RED.workspaces.show(id), tab.id);
    await deployButton(page);
    // Every device but Gateway 1 reports (the demo's history reaches the last hour); the simulator's spare sensor,
    // which never reported, is silent from the deploy on, and waits its hour.
    await waitForStatus(page, trigger.id, /^1 true of 28$/);
    await waitForStatus(page, notify.id, /^Gateway 1 has sent nothing/);
    const close = page.locator('.red-ui-notification button').filter({ hasText: 'Close' });
    if (await close.count()) await close.first().click();
    await page.waitForFunction(() => $('.red-ui-notification:visible').length === 0, undefined, { timeout: WAIT });
    await page.screenshot({
      path: path.join(screenshotDir(), 'trigger-demo-silent.png'),
      clip: { x: 0, y: 0, width: 1100, height: 400 },
    });
  });
});
