/**
 * The editor's acceptance walk (CONTRIBUTING.md, "The editor's acceptance walk"): the sixteen everyday tasks done
 * through the real editor (Debian chromium, playwright-core) against the shared embedded Node-RED and one simulator
 * with the demo's data (scripts/demo-activity.ts: a week of hourly history up to now, one critical alarm) and the
 * simulator's own (its audit log, the demo root rule chain's answer, the notification center's targets and inboxes).
 *
 * Each task puts bare nodes on a new tab as the palette gives them (default settings), makes every setting in the
 * dialogs with clicks, choices and typed names and values (never node JSON), presses Deploy and the inject button,
 * and checks what the walk promises: the node's status, what the debug node shows, and the server's state read
 * through the simulator's /__sim control API. The tasks run in order: task 7 acknowledges an alarm task 3 saw, and
 * task 16 puts under its floor a meter task 15 created.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOM_STEP, START_TARGET, startDemoActivity, WARM_ROOMS } from '../../scripts/demo-activity';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  addNodes,
  builderQuery,
  chipsShown,
  chooseTypedType,
  debugValues,
  deployButton,
  pickSuggestion,
  pressInject,
  recordDebug,
  runPreview,
  targetLineIs,
  saveDialog,
  topTray,
  typeTyped,
  waitForDebug,
  waitForStatus,
  WAIT,
  type BareNode,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

const TAB = 'walkTab';
const CONN = 'walkConn';

describe("the editor's acceptance walk: sixteen tasks with the mouse (browser)", function () {
  this.timeout(120000);

  const sim = useSimulator();
  let page: Page;
  /** The ids of the critical alarms task 3 saw created, for task 7. */
  const seen: string[] = [];

  /** The simulator's control API (what the server holds), as a person would check it on the server. */
  async function control<T>(method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(`${sim.url}/__sim${p}`, {
      method,
      headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} /__sim${p}: HTTP ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as T;
  }
  const deviceId = async (name: string) =>
    (await control<Array<{ id: { id: string } }>>('GET', `/entities?type=DEVICE&name=${encodeURIComponent(name)}`))[0]
      .id.id;

  let stopActivity = () => undefined as void;
  before(function () {
    // The demo's life, without its clock: its history up to now, its first critical alarm and its heated rooms, then
    // nothing changes by itself (the counts below stay put; task 4 steps the rooms as the demo's clock would).
    stopActivity = startDemoActivity(sim, { clock: false });
  });
  after(() => stopActivity());

  const editor = useEditor({
    dir: 'tb-browser-walk8-',
    // The tab has no node yet: the connection, loaded with it, tells the editor is ready.
    ready: CONN,
    viewport: { width: 1500, height: 1300 },
    // The demo: a connection to the simulator; the walk starts on a new, empty tab.
    flows: () => [
      { id: TAB, type: 'tab', label: 'acceptance walk' },
      simConnection(CONN, sim.url, { name: 'ThingsBoard demo' }),
    ],
  });
  before(async function () {
    ({ page } = editor);
    await page.evaluate((tab) => RED.workspaces.show(tab), TAB);
    await recordDebug(page);
  });

  // ---- helpers ---------------------------------------------------------------------------------------------

  const tray = () => topTray(page);
  const field = (f: string) => tray().locator(`[data-tb-field="${f}"]`);
  const pick = (f: string, typed: string, option: string) => pickSuggestion(page, field(f).last(), typed, option);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);

  /** A chain of bare nodes on row `row` of the tab, wired left to right: inject → … → debug. */
  async function chain(row: number, prefix: string, types: string[]): Promise<string[]> {
    const ids = types.map((t, i) => `${prefix}${i}`);
    const nodes: BareNode[] = types.map((type, i) => ({
      id: ids[i],
      type,
      z: TAB,
      x: 200 + 220 * i,
      y: 80 + 110 * row,
      wires: i < types.length - 1 ? [[ids[i + 1]]] : [],
    }));
    await addNodes(page, nodes);
    return ids;
  }

  /** Opens a node's dialog as a person does (double click on the canvas) and checks it has the demo connection. */
  async function edit(id: string): Promise<void> {
    await page.locator(`[id="${id}"] .red-ui-flow-node`).first().dblclick();
    await tray().locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: WAIT });
    if (
      (await tray().locator('#node-input-connection').count()) === 1 &&
      (await tray().locator('#node-input-connection').inputValue()) !== CONN
    ) {
      await tray().locator('#node-input-connection').selectOption(CONN);
    }
  }

  /**
   * The inject's msg.payload set in its dialog: the type chosen from the menu, the value typed; and its msg.topic (a
   * string, the default type of its row), when given.
   */
  async function injectPayload(id: string, type: string, value: string, topic?: string): Promise<void> {
    await edit(id);
    const rows = tray().locator('#node-input-property-container li');
    const row = (i: number) =>
      page.evaluate((n) => {
        const li = $('#node-input-property-container li').eq(n);
        return [
          li.find('.node-input-prop-property-name').typedInput('value'),
          li.find('.node-input-prop-property-value').typedInput('type'),
        ];
      }, i);
    assert.equal((await row(0))[0], 'payload');
    await chooseTypedType(page, rows.first(), '.node-input-prop-property-value', type);
    await typeTyped(rows.first(), '.node-input-prop-property-value', value);
    if (topic !== undefined) {
      assert.deepEqual(await row(1), ['topic', 'str'], 'the second row: msg.topic, a string');
      await typeTyped(rows.nth(1), '.node-input-prop-property-value', topic);
    }
    await saveDialog(page);
  }

  /** A debug node set to show msg.<prop> (its Output typed in its dialog). */
  async function debugShows(id: string, prop: string): Promise<void> {
    await edit(id);
    await typeTyped(tray(), '#node-input-typed-complete', prop);
    await saveDialog(page);
  }

  /** The node's properties as saved by its dialog (for a check and a readable failure). */
  const saved = (id: string, props: string[]) =>
    page.evaluate(
      ([nodeId, ps]) => {
        const n = RED.nodes.node(nodeId);
        return Object.fromEntries([...ps, 'valid'].map((p) => [p, n[p]]));
      },
      [id, props] as const,
    );

  const shot = (name: string) => tray().screenshot({ path: path.join(screenshotDir(), `walk-${name}.png`) });

  /** A picture without an earlier deploy's notification over the top of the dialog: closed as its own close does. */
  async function closeNotifications(): Promise<void> {
    await page.evaluate(() => $('.red-ui-notification').each((_i: number, n: any) => n.close && n.close()));
    await page.waitForFunction(() => $('.red-ui-notification').length === 0, undefined, { timeout: WAIT });
  }

  /** The name of the kind of entity chosen in the dialog's Entity (the label of its typed input). */
  const targetKind = () =>
    page.evaluate(() => $('#node-input-target + .red-ui-typedInput-container .red-ui-typedInput-type-label').text());

  /** The time series temperature in the dialog's chips of setting `f`: "temp" typed, "temperature" picked. */
  const pickTemperature = (f: string) =>
    pickSuggestion(page, tray().locator(`[data-tb-chips="${f}"] input[data-tb-field="${f}"]`), 'temp', 'temperature');

  /** In an attributes dialog: shared attributes, one row of values with its key, type and value. */
  async function sharedValueRow(key: string, type: string, value: string): Promise<void> {
    await tray().locator('#node-input-scope').selectOption('SHARED_SCOPE');
    await tray().locator('#node-input-valuesFrom').selectOption('rows');
    await tray().locator('[data-tb-value-rows] .red-ui-editableList-addButton').click();
    const row = tray().locator('[data-tb-value-row]').first();
    await row.locator('input[data-tb-value-key]').fill(key);
    await row.locator('input[data-tb-value-key]').press('Tab');
    await chooseTypedType(page, row, 'input[data-tb-value-value]', type);
    await typeTyped(row, 'input[data-tb-value-value]', value);
  }

  /** In an rpc dialog: a one-way command, its method typed as text and its params as JSON. */
  async function oneWayCommand(method: string, params: string): Promise<void> {
    await chooseTypedType(page, tray(), '#node-input-method', 'str');
    await typeTyped(tray(), '#node-input-method', method);
    await tray().locator('#node-input-mode').selectOption('oneway');
    await tray().locator('[data-tb-params-from]').selectOption('json');
    await typeTyped(tray(), '#node-input-params', params);
  }

  /** In a wait-until dialog: until temperature ≥ `value` (of the type chosen, when given), for at most 30 minutes. */
  async function untilTemperatureAtLeast(value: string, valueType?: string): Promise<void> {
    await pickTemperature('key');
    await tray().locator('#node-input-operator').selectOption('gte');
    if (valueType) await chooseTypedType(page, tray(), '#node-input-value', valueType);
    await typeTyped(tray(), '#node-input-value', value);
    await tray().locator('#node-input-timeout').fill('30m');
    await tray().locator('#node-input-timeout').press('Tab');
  }

  /**
   * The demo's clock, stepped by hand while a room is `below` the target (each room below its own target warms
   * ROOM_STEP °C a step), at most `most` steps; the number of steps taken.
   */
  function stepRoomsWhile(below: () => boolean, target: number, most: number): number {
    let steps = 0;
    while (below()) {
      assert.ok(steps < most, `still below ${target} °C after ${steps} steps of ${ROOM_STEP} °C`);
      sim.rooms.step();
      steps++;
    }
    return steps;
  }

  // ---- the sixteen tasks ------------------------------------------------------------------------------------

  it('1. list the thermostats above 25 °C: entity query built in the builder, preview, rows out', async function () {
    const [inj, q, dbg] = await chain(0, 'w1n', ['inject', 'tb-entity-query', 'debug']);
    await edit(q);
    assert.equal(await visible('[data-tb-builder]'), true, 'a new query opens in the builder');
    // Which entities: devices of the profile thermostat, picked from the server's list.
    await field('entityFilter.type').first().selectOption('deviceType');
    await pick('entityFilter.deviceTypes', 'therm', 'thermostat');
    // Columns: name is there already; the time series temperature, a chip from the devices' own keys.
    assert.deepEqual(
      ((await builderQuery(page)) as any).entityFields.map((f: any) => f.key),
      ['name', 'type', 'label'],
    );
    assert.equal(
      await field('latestValues.type').first().inputValue(),
      'TIME_SERIES',
      'time series is the default key type',
    );
    await pick('latestValues', 'temp', 'temperature');
    // Only where temperature greater than 25.
    await tray().locator('[data-tb-part="keyFilters"] > .tb-b-actions [data-tb-action="add-key-filter"]').click();
    await pick('keyFilters.0.key.key', 'temp', 'temperature');
    await field('keyFilters.0.predicate.operation').first().selectOption('GREATER');
    await field('keyFilters.0.predicate.value.defaultValue').fill('25');
    await field('keyFilters.0.predicate.value.defaultValue').press('Tab');
    const thermostats = (
      await control<Array<{ id: { id: string }; name: string; type: string }>>('GET', '/entities?type=DEVICE')
    ).filter((d) => d.type === 'thermostat');
    const temps = new Map<string, number>();
    for (const d of thermostats) {
      const series = await control<Array<{ value: number }>>('GET', `/telemetry?entityId=${d.id.id}&key=temperature`);
      if (series.length) temps.set(d.name, series[series.length - 1].value);
    }
    const above = [...temps]
      .filter(([, t]) => t > 25)
      .map(([n]) => n)
      .sort();
    assert.deepEqual(above, [...WARM_ROOMS].sort(), "the demo's three warm rooms are above 25 °C");
    let p = await runPreview(page);
    assert.equal(p.state, 'rows', p.text);
    assert.match(p.text, new RegExp(`\\(${above.length} in all\\)`));
    // Nothing above 1000: the preview says the conditions excluded them, and how many the filter alone finds.
    await field('keyFilters.0.predicate.value.defaultValue').fill('1000');
    await field('keyFilters.0.predicate.value.defaultValue').press('Tab');
    p = await runPreview(page);
    assert.equal(p.text, `No match for the conditions (Only where); ${temps.size} devices match the filter alone.`);
    await field('keyFilters.0.predicate.value.defaultValue').fill('25');
    await field('keyFilters.0.predicate.value.defaultValue').press('Tab');
    // The "no match" above answered "> 1000": shown as out of date now that the condition says 25.
    assert.deepEqual(
      await page.evaluate(() => ({
        stale: $('[data-tb-preview]').attr('data-tb-preview-stale'),
        note: $('[data-tb-preview-stale-note]').is(':visible'),
      })),
      {
        stale: 'true',
        note: true,
      },
    );
    const query = (await builderQuery(page)) as any;
    assert.deepEqual(query.keyFilters[0].key, { type: 'TIME_SERIES', key: 'temperature' });
    assert.equal(query.keyFilters[0].predicate.value.defaultValue, 25);
    // Previewed again: the warm rooms, by name.
    p = await runPreview(page);
    assert.equal(p.state, 'rows', p.text);
    for (const name of above) assert.ok(p.text.includes(name), `${name} in the preview: ${p.text}`);
    await shot('1-query');
    await saveDialog(page);
    await deployButton(page);
    await pressInject(page, inj);
    await waitForStatus(page, q, new RegExp(`^${above.length} of ${above.length}$`));
    const [rows] = (await waitForDebug(page, dbg)) as Array<Array<{ name: string; temperature: number }>>;
    assert.deepEqual(rows.map((r) => r.name).sort(), above);
    assert.ok(rows.every((r) => r.temperature > 25));
  });

  it('2. count the active critical alarms: alarm query, Count alarms, status and severity boxes; Find and back keeps the filter', async function () {
    const [inj, q, dbg] = await chain(1, 'w2n', ['inject', 'tb-alarm-query', 'debug']);
    await edit(q);
    await tray().locator('#node-input-operation').selectOption('count');
    assert.equal(
      await tray().locator('[data-tb-field="statusList"][data-tb-value="ACTIVE"]').isChecked(),
      true,
      'active is ticked already',
    );
    await tray().locator('[data-tb-field="severityList"][data-tb-value="CRITICAL"]').check();
    const count = await builderQuery(page);
    assert.deepEqual(count, { keyFilters: [], statusList: ['ACTIVE'], severityList: ['CRITICAL'] });
    await tray().locator('#node-input-operation').selectOption('find');
    assert.equal(
      await page.evaluate(() => ($('[data-tb-error]').is(':visible') ? $('[data-tb-error]').text() : '')),
      '',
    );
    assert.deepEqual(((await builderQuery(page)) as any).pageLink.severityList, ['CRITICAL']);
    await tray().locator('#node-input-operation').selectOption('count');
    assert.deepEqual(await builderQuery(page), count, 'Find and back: the same count');
    await saveDialog(page);
    await deployButton(page);
    const alarms = await control<Array<{ severity: string; cleared: boolean }>>('GET', '/alarms');
    const critical = alarms.filter((a) => a.severity === 'CRITICAL' && !a.cleared).length;
    assert.ok(critical > 0);
    await pressInject(page, inj);
    const s = await waitForStatus(page, q, new RegExp(`^${critical}$`));
    assert.equal(s.fill, 'green');
    assert.deepEqual(await waitForDebug(page, dbg), [critical]);
  });

  it('3. a live message for each critical alarm as it is raised: subscribe, Watch alarms, Severity critical, Send only new alarms', async function () {
    const [sub, dbg] = await chain(2, 'w3n', ['tb-subscribe', 'debug']);
    await edit(sub);
    await tray().locator('#node-input-kind').selectOption('alarmData');
    await tray().locator('[data-tb-field="pageLink.severityList"][data-tb-value="CRITICAL"]').check();
    await tray().locator('[data-tb-events-pick]').selectOption('created');
    assert.equal(await page.evaluate(() => String($('#node-input-events').val())), 'created');
    await shot('3-subscribe');
    await saveDialog(page);
    await deployButton(page);
    const first = await waitForStatus(page, sub, /^(\d+ alarms|1 alarm)$/);
    const before = Number(/^\d+/.exec(first.text)![0]);
    // The demo raises one every 30 s; here two, one after the other, on a thermostat.
    const originator = { entityType: 'DEVICE', id: await deviceId('Thermo A-103') };
    for (let i = 1; i <= 2; i++) {
      const raised = await control<{ id: { id: string } }>('POST', '/alarms', {
        originator,
        type: `Walk Overheat ${i}`,
        severity: 'CRITICAL',
      });
      const got = (await waitForDebug(page, dbg, i)) as Array<{ id: string; type: string; severity: string }>;
      assert.equal(got.length, i, 'one message per alarm');
      assert.deepEqual(
        [got[i - 1].id, got[i - 1].type, got[i - 1].severity],
        [raised.id.id, `Walk Overheat ${i}`, 'CRITICAL'],
      );
      seen.push(raised.id.id);
      await waitForStatus(page, sub, new RegExp(`^${before + i} alarms$`));
    }
    // A major one sends nothing: a critical one raised after it is the next message (the server's messages, and the
    // flow's, keep their order).
    await control('POST', '/alarms', { originator, type: 'Walk Minor', severity: 'MAJOR' });
    const next = await control<{ id: { id: string } }>('POST', '/alarms', {
      originator,
      type: 'Walk Overheat 3',
      severity: 'CRITICAL',
    });
    const got = (await waitForDebug(page, dbg, 3)) as Array<{ id: string }>;
    assert.deepEqual(
      got.map((a) => a.id),
      [...seen, next.id.id],
      'nothing for the major one',
    );
    await waitForStatus(page, sub, new RegExp(`^${before + 3} alarms$`));
  });

  it('4. set a target temperature on every thermostat, then wait until the rooms reach it: entity query Output to msg.entity → attributes with a Values row → wait until', async function () {
    const [inj, q, attr, wait, dbg] = await chain(3, 'w4n', [
      'inject',
      'tb-entity-query',
      'tb-attributes',
      'tb-wait-until',
      'debug',
    ]);
    await edit(q);
    await field('entityFilter.type').first().selectOption('deviceType');
    await pick('entityFilter.deviceTypes', 'therm', 'thermostat');
    await typeTyped(tray(), '#node-input-output', 'entity');
    await saveDialog(page);
    assert.equal(await page.evaluate((id) => RED.nodes.node(id).output, q), 'entity');

    await edit(attr);
    assert.equal(await tray().locator('#node-input-operation').inputValue(), 'save', 'Save is the default');
    await sharedValueRow('targetTemperature', 'num', '21');
    await shot('4-attributes');
    await saveDialog(page);
    assert.deepEqual(await saved(attr, ['operation', 'scope', 'valuesFrom', 'values']), {
      operation: 'save',
      scope: 'SHARED_SCOPE',
      valuesFrom: 'rows',
      values: [{ key: 'targetTemperature', type: 'num', value: '21' }],
      valid: true,
    });

    // Then wait until every room is at 21 °C or more: the entities come with the message (msg.entity, the default).
    await edit(wait);
    await untilTemperatureAtLeast('21', 'num');
    assert.match(await page.evaluate(() => String($('[data-tb-sentence]').text())), /temperature ≥ 21/);
    await shot('4-wait-until');
    await saveDialog(page);
    assert.deepEqual(
      await saved(wait, ['targetType', 'key', 'operator', 'value', 'valueType', 'listMode', 'timeout']),
      {
        targetType: 'auto',
        key: 'temperature',
        operator: 'gte',
        value: '21',
        valueType: 'num',
        listMode: 'all',
        timeout: '30m',
        valid: true,
      },
    );
    await deployButton(page);
    const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
    assert.equal(thermostats.length, 20, 'the demo has 20 thermostats');
    const temperature = (d: (typeof thermostats)[0]) => sim.data.latestOf(d.id, 'temperature')?.value as number;
    // The demo's rooms are at their own temperatures (the start target, 17 °C, holds none up): some below 21.
    assert.ok(
      thermostats.every((d) => sim.data.getAttribute(d, 'SHARED_SCOPE', 'targetTemperature')?.value === START_TARGET),
    );
    const cool = thermostats.filter((d) => temperature(d) < 21);
    assert.ok(cool.length >= 3, `rooms below 21 °C: ${cool.map((d) => d.name).join(', ')}`);
    await pressInject(page, inj);
    const s = await waitForStatus(page, attr, new RegExp(`^${thermostats.length} done$`));
    assert.equal(s.fill, 'green');
    // On the server: every thermostat has the shared attribute, 21 as a number.
    for (const d of thermostats)
      assert.equal(sim.data.getAttribute(d, 'SHARED_SCOPE', 'targetTemperature')?.value, 21, d.name);
    await waitForStatus(page, wait, /^waiting for 1$/);
    // The demo's clock: every 3 s each room below its target warms ROOM_STEP °C. The coolest (17.2 °C at least) is
    // there within 20 steps: a minute.
    stepRoomsWhile(() => thermostats.some((d) => temperature(d) < 21), 21, 20);
    const met = await waitForStatus(page, wait, /^met$/);
    assert.equal(met.fill, 'green');
    // Met, not timed out: the message came by the first output, with the attributes node's results.
    const [results] = (await waitForDebug(page, dbg)) as Array<Array<{ ok: boolean; entity: { id: string } }>>;
    assert.equal(results.length, thermostats.length, 'one result per thermostat');
    assert.ok(results.every((r) => r.ok));
    // The cool rooms warmed to the target (those cooler by themselves held there), the warm ones stayed warm.
    for (const d of cool) assert.ok(temperature(d) >= 21, `${d.name} warmed to its target`);
    assert.ok(cool.filter((d) => temperature(d) === 21).length >= 3, 'rooms held at 21 °C by their heater');
    for (const name of WARM_ROOMS)
      assert.ok(temperature(sim.data.mustFindByName('DEVICE', name)) > 25, `${name} stays warm`);
  });

  it('5. a one-way command to a device picked by name: rpc, fixed params, the summary and msg.rpc.params', async function () {
    const [inj, rpc, dbg] = await chain(4, 'w5n', ['inject', 'tb-rpc', 'debug']);
    await edit(rpc);
    await chooseTypedType(page, tray(), '#node-input-target', 'entity');
    assert.equal(await targetKind(), 'device picked by name');
    await pickSuggestion(page, field('target.id'), 'A-101', 'Thermo A-101');
    await oneWayCommand('reboot', '{"delay": 5}');
    assert.equal(await page.evaluate(() => $('[data-tb-summary]').text()), 'Sends "reboot"; params: {"delay":5}.');
    await shot('5-rpc');
    await saveDialog(page);
    const a101 = await deviceId('Thermo A-101');
    assert.deepEqual(
      await saved(rpc, ['target', 'targetType', 'method', 'methodType', 'mode', 'paramsFrom', 'params']),
      {
        target: JSON.stringify({ entityType: 'DEVICE', id: a101 }),
        targetType: 'json',
        method: 'reboot',
        methodType: 'str',
        mode: 'oneway',
        paramsFrom: 'json',
        params: '{"delay": 5}',
        valid: true,
      },
    );
    // The debug node shows msg.rpc (its Output typed in its dialog).
    await debugShows(dbg, 'rpc');
    await deployButton(page);
    await control('POST', '/rpc/reset-counters', {});
    await pressInject(page, inj);
    await waitForStatus(page, rpc, /^sent$/);
    const [out] = (await waitForDebug(page, dbg)) as Array<{ method: string; params: unknown; status: string }>;
    assert.deepEqual(out, { method: 'reboot', params: { delay: 5 }, status: 'SENT' });
    const { calls } = await control<{ calls: Array<{ method: string; params: unknown; oneway: boolean }> }>(
      'GET',
      `/rpc/calls?deviceId=${a101}`,
    );
    assert.deepEqual(
      calls.map((c) => [c.method, c.params, c.oneway]),
      [['reboot', { delay: 5 }, true]],
    );
  });

  it('6. the temperature of the device named in a message: Entities by name, the name from msg.payload', async function () {
    const [inj, q, dbg] = await chain(5, 'w6n', ['inject', 'tb-entity-query', 'debug']);
    await injectPayload(inj, 'str', 'Thermo A-102');
    await edit(q);
    await field('entityFilter.type').first().selectOption('entityName');
    assert.equal(await field('entityFilter.entityType').first().inputValue(), 'DEVICE');
    // The envelope on the name field: from the message, msg.payload.
    await tray().locator('[data-tb-bind="entityFilter.entityNameFilter"]').click();
    await tray()
      .locator('[data-tb-binding="entityFilter.entityNameFilter"]')
      .waitFor({ state: 'visible', timeout: WAIT });
    // msg.payload is where a switched field reads from, unless told otherwise.
    assert.equal(await tray().locator('[data-tb-bind-source="entityFilter.entityNameFilter"]').inputValue(), 'msg');
    assert.equal(await tray().locator('[data-tb-bind-path="entityFilter.entityNameFilter"]').inputValue(), 'payload');
    assert.equal(
      await field('latestValues.type').first().inputValue(),
      'TIME_SERIES',
      'time series is the default key type',
    );
    await pick('latestValues', 'temp', 'temperature');
    const query = (await builderQuery(page)) as any;
    assert.deepEqual(query.entityFilter, {
      type: 'entityName',
      entityType: 'DEVICE',
      entityNameFilter: '{{msg.payload}}',
    });
    await shot('6-by-name');
    await saveDialog(page);
    await deployButton(page);
    await pressInject(page, inj);
    const [rows] = (await waitForDebug(page, dbg)) as Array<Array<{ name: string; temperature: number }>>;
    const series = await control<Array<{ value: number }>>(
      'GET',
      `/telemetry?entityId=${await deviceId('Thermo A-102')}&key=temperature`,
    );
    assert.deepEqual(
      rows.map((r) => [r.name, r.temperature]),
      [['Thermo A-102', series[series.length - 1].value]],
    );
  });

  it('7. acknowledge an alarm whose id arrives: alarm action, Acknowledge, the alarm from the message', async function () {
    assert.ok(seen.length > 0, 'task 3 saw an alarm');
    const alarmId = seen[0];
    const [inj, act, dbg] = await chain(6, 'w7n', ['inject', 'tb-alarm-action', 'debug']);
    await injectPayload(inj, 'str', alarmId);
    await edit(act);
    assert.equal(
      await tray().locator('#node-input-operation').inputValue(),
      'acknowledge',
      'Acknowledge is the default',
    );
    assert.equal(
      await page.evaluate(() => $('#node-input-alarm').typedInput('type')),
      'auto',
      'the alarm from the message is the default',
    );
    await saveDialog(page);
    await deployButton(page);
    await pressInject(page, inj);
    let s = await waitForStatus(page, act, /^acknowledged$/);
    assert.equal(s.fill, 'green');
    const alarm = (await control<Array<{ id: { id: string }; acknowledged: boolean }>>('GET', '/alarms')).find(
      (a) => a.id.id === alarmId,
    );
    assert.equal(alarm?.acknowledged, true, 'acknowledged on the server');
    await waitForDebug(page, dbg, 1);
    await pressInject(page, inj);
    await waitForDebug(page, dbg, 2);
    s = await waitForStatus(page, act, /^already acknowledged$/);
    assert.equal(s.fill, 'green');
  });

  it('8. 24 hours of hourly averages: telemetry, entity picked by name, History, Last 24h, average, 1h', async function () {
    const [inj, tel, dbg] = await chain(7, 'w8n', ['inject', 'tb-telemetry', 'debug']);
    await edit(tel);
    await chooseTypedType(page, tray(), '#node-input-target', 'entity');
    assert.equal(await targetKind(), 'entity picked by name');
    assert.equal(await field('target.entityType').inputValue(), 'DEVICE', 'a device is the default');
    await pickSuggestion(page, field('target.id'), 'A-101', 'Thermo A-101');
    await tray().locator('#node-input-operation').selectOption('history');
    await pickTemperature('keys');
    await tray().locator('#node-input-last').fill('24h');
    await tray().locator('#node-input-last').press('Tab');
    await tray().locator('#node-input-agg').selectOption('AVG');
    await tray().locator('#node-input-interval').fill('1h');
    await tray().locator('#node-input-interval').press('Tab');
    await shot('8-telemetry');
    await saveDialog(page);
    assert.deepEqual(await saved(tel, ['operation', 'targetType', 'keys', 'last', 'agg', 'interval']), {
      operation: 'history',
      targetType: 'json',
      keys: 'temperature',
      last: '24h',
      agg: 'AVG',
      interval: '1h',
      valid: true,
    });
    await deployButton(page);
    await pressInject(page, inj);
    const [rows] = (await waitForDebug(page, dbg)) as Array<Array<{ ts: number; temperature: number }>>;
    assert.equal(rows.length, 24, JSON.stringify(rows).slice(0, 300));
    const ts = rows.map((r) => r.ts);
    assert.deepEqual(
      ts,
      [...ts].sort((a, b) => a - b),
      'by time',
    );
    assert.ok(rows.every((r) => typeof r.temperature === 'number'));
  });
  it('9. an RPC to a device picked by name → wait until at its default: no second pick, the wait ends met', async function () {
    const [inj, rpc, wait, dbg] = await chain(8, 'w9n', ['inject', 'tb-rpc', 'tb-wait-until', 'debug']);
    await edit(rpc);
    await chooseTypedType(page, tray(), '#node-input-target', 'entity');
    await pickSuggestion(page, field('target.id'), 'B-203', 'Thermo B-203');
    await oneWayCommand('setTarget', '{"target": 23}');
    await saveDialog(page);

    await edit(wait);
    // The entity is left at its default: the message's, which the rpc node passes on.
    assert.equal(await targetKind(), 'msg.entity, else msg.topic');
    await untilTemperatureAtLeast('23');
    assert.match(await page.evaluate(() => $('[data-tb-sentence]').text()), /^until temperature ≥ 23 /);
    await shot('9-wait');
    await saveDialog(page);
    assert.deepEqual(await saved(wait, ['targetType', 'key', 'operator', 'value', 'timeout']), {
      targetType: 'auto',
      key: 'temperature',
      operator: 'gte',
      value: '23',
      timeout: '30m',
      valid: true,
    });
    await deployButton(page);
    // A cool room (18.5 °C by itself, held at 21 by task 4's target): the wait starts below the new target.
    const room = sim.data.mustFindByName('DEVICE', 'Thermo B-203');
    const temperature = () => sim.data.latestOf(room.id, 'temperature')?.value as number;
    assert.ok(temperature() < 23, `Thermo B-203 is at ${temperature()} °C`);
    await pressInject(page, inj);
    await waitForStatus(page, rpc, /^sent$/);
    // No "msg.entity is missing": the wait watches the device the rpc node commanded.
    await waitForStatus(page, wait, /^waiting for 1$/);
    // The room warms toward the target the command set, ROOM_STEP °C at each step of the demo's clock.
    const steps = stepRoomsWhile(() => temperature() < 23, 23, 40);
    assert.ok(steps > 0, 'the room was below the target and warmed');
    const met = await waitForStatus(page, wait, /^met$/);
    assert.equal(met.fill, 'green');
    const [payload] = (await waitForDebug(page, dbg)) as Array<{ method: string; status: string }>;
    assert.deepEqual([payload.method, payload.status], ['setTarget', 'SENT'], 'msg.payload: what the rpc node did');
    const topic = await page.evaluate(
      (id) =>
        (window as any).tbDebugLog.filter((m: { id: string }) => m.id === id).map((m: { topic: string }) => m.topic),
      dbg,
    );
    assert.deepEqual(topic, ['met: temperature 23'], 'msg.topic: how the wait ended, shown above msg.payload');
  });

  it('10. query → save attributes, Output to left alone: the dialog says so, one click fixes it', async function () {
    const [inj, q, attr, dbg] = await chain(9, 'w10n', ['inject', 'tb-entity-query', 'tb-attributes', 'debug']);
    await edit(q);
    await field('entityFilter.type').first().selectOption('deviceType');
    await pick('entityFilter.deviceTypes', 'therm', 'thermostat');
    await saveDialog(page);
    assert.equal(await page.evaluate((id) => RED.nodes.node(id).output, q), 'payload', 'Output to left alone');

    await edit(attr);
    await sharedValueRow('mode', 'str', 'eco');
    // The line under the entity says the query before it sends its list to msg.payload; one click fixes it.
    const hint = tray().locator('[data-tb-chain-hint]');
    await hint.waitFor({ state: 'visible', timeout: WAIT });
    assert.match(String(await hint.textContent()), /sends its list to msg\.payload, not msg\.entity/);
    await shot('10-hint');
    await hint.locator('[data-tb-chain-fix]').click();
    await hint.waitFor({ state: 'hidden', timeout: WAIT });
    await saveDialog(page);
    assert.equal(await page.evaluate((id) => RED.nodes.node(id).output, q), 'entity', 'the query now sends msg.entity');
    await deployButton(page);
    const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
    await pressInject(page, inj);
    const s = await waitForStatus(page, attr, new RegExp(`^${thermostats.length} done$`));
    assert.equal(s.fill, 'green');
    const [results] = (await waitForDebug(page, dbg)) as Array<Array<{ ok: boolean; payload: unknown }>>;
    assert.ok(results.every((r) => r.ok));
    assert.deepEqual(results[0].payload, { mode: 'eco' }, 'each result says what was written');
    for (const d of thermostats) assert.equal(sim.data.getAttribute(d, 'SHARED_SCOPE', 'mode')?.value, 'eco', d.name);
  });

  it('11. the warm rooms, once too warm for a while: trigger on a query of thermostats, temperature > 25 held 10 s', async function () {
    // No inject: the trigger watches from deploy. A debug node on each of its outputs (on the second, to see that
    // nothing comes), on row 10 as chain() lays a row out.
    const [trig, dbg, dbgFalse] = ['w11n0', 'w11n1', 'w11n2'];
    const y = 80 + 110 * 10;
    await addNodes(page, [
      { id: trig, type: 'tb-trigger', z: TAB, x: 200, y, wires: [[dbg], [dbgFalse]] },
      { id: dbg, type: 'debug', z: TAB, x: 420, y: y - 25 },
      { id: dbgFalse, type: 'debug', z: TAB, x: 420, y: y + 25 },
    ]);
    // Both debug nodes show the whole message: msg.entity and msg.topic beside msg.payload.
    for (const id of [dbg, dbgFalse]) {
      await edit(id);
      await chooseTypedType(page, tray(), '#node-input-typed-complete', 'full');
      await saveDialog(page);
    }

    await edit(trig);
    // Watch = the entities of a query, When = values: the defaults, with one condition to fill in.
    assert.equal(await tray().locator('#node-input-watch').inputValue(), 'query');
    assert.equal(await tray().locator('#node-input-condition').inputValue(), 'value');
    assert.equal(await visible('[data-tb-builder]'), true, 'a new trigger opens its query in the builder');
    // In the builder: devices of the profile thermostat, picked from the server's list.
    await field('entityFilter.type').first().selectOption('deviceType');
    await pick('entityFilter.deviceTypes', 'therm', 'thermostat');
    // The condition: temperature (a chip from the thermostats' keys) > 25, a number.
    const cond = tray().locator('[data-tb-condition-row]');
    assert.equal(await cond.count(), 1, 'a new trigger has one condition to fill in');
    assert.equal(await cond.locator('[data-tb-condition-key-type]').inputValue(), 'TIME_SERIES');
    await pickSuggestion(page, cond.locator('[data-tb-chips] input.tb-b-text'), 'temp', 'temperature');
    assert.equal(await cond.locator('[data-tb-condition-operator]').inputValue(), 'gt', '> is the default');
    assert.equal(
      await page.evaluate(() => $('[data-tb-condition-row] input[data-tb-condition-value]').typedInput('type')),
      'num',
      'a number is the default',
    );
    await typeTyped(cond, 'input[data-tb-condition-value]', '25');
    // Held for 10 seconds: long enough to see it hold, short enough to wait for.
    await tray().locator('#node-input-holdFor').fill('10s');
    await tray().locator('#node-input-holdFor').press('Tab');
    // The sentence reads the trigger back, with the thermostats the query finds on the server.
    const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
    const sentence = `when temperature > 25 has held for 10 s on any of ${thermostats.length} thermostats`;
    try {
      await page.waitForFunction((text) => $('[data-tb-sentence]').text() === text, sentence, { timeout: WAIT });
    } catch {
      assert.equal(await page.evaluate(() => String($('[data-tb-sentence]').text())), sentence, 'the sentence');
    }
    await closeNotifications();
    await shot('11-trigger');
    await saveDialog(page);
    assert.deepEqual(await saved(trig, ['watch', 'queryType', 'condition', 'conditions', 'holdFor']), {
      watch: 'query',
      queryType: 'json',
      condition: 'value',
      conditions: [{ keyType: 'TIME_SERIES', key: 'temperature', operator: 'gt', value: '25', valueType: 'num' }],
      holdFor: '10s',
      valid: true,
    });
    const query = JSON.parse(await page.evaluate((id) => RED.nodes.node(id).query, trig));
    assert.deepEqual(query.entityFilter, { type: 'deviceType', deviceTypes: ['thermostat'] });
    // A new trigger's query follows the fleet (dynamic), a page of 1,000: every thermostat is watched.
    assert.deepEqual([query.pageLink.dynamic, query.pageLink.pageSize], [true, 1000]);

    const deployed = Date.now();
    await deployButton(page);
    // While the warm rooms hold: none true yet, of the thermostats watched.
    const holding = await waitForStatus(page, trig, new RegExp(`^0 true of ${thermostats.length}$`));
    assert.equal(holding.fill, 'green');
    // The hold is real time: 10 s from deploy, then one message per warm room on the first output.
    const warm = [...WARM_ROOMS].sort();
    const fired = await waitForStatus(
      page,
      trig,
      new RegExp(`^${warm.length} true of ${thermostats.length}$`),
      10000 + WAIT,
    );
    assert.equal(fired.fill, 'blue');
    const got = (await waitForDebug(page, dbg, warm.length)) as Array<{
      topic: string;
      entity: { entityType: string; id: string };
      payload: { state: boolean; event: string; name: string; value: number; since: number; heldFor: number };
    }>;
    assert.equal(got.length, warm.length, 'one message per warm room');
    assert.deepEqual(got.map((m) => m.payload.name).sort(), warm);
    for (const m of got) {
      const name = m.payload.name;
      assert.deepEqual(m.entity, { entityType: 'DEVICE', id: sim.data.mustFindByName('DEVICE', name).id }, name);
      assert.deepEqual([m.payload.state, m.payload.event], [true, 'true'], name);
      assert.ok(m.payload.value > 25, `${name}: ${m.payload.value}`);
      // Held since the trigger started watching (after the deploy), for the 10 s asked.
      assert.ok(m.payload.since >= deployed, `${name} held since ${m.payload.since}, deployed at ${deployed}`);
      assert.ok(m.payload.heldFor >= 10000, `${name} held ${m.payload.heldFor} ms`);
      // The topic, for the sidebar: what became true, how long it held, and which room.
      assert.match(m.topic, new RegExp(`^true: temperature ${m.payload.value} held 10 s \\(${name}\\)$`));
    }
    // Nothing became false: the second output sent nothing.
    assert.deepEqual(await debugValues(page, dbgFalse), []);
  });

  it('12. the last 10 entries of the audit log: api, the call picked from the common calls, tried before deploy', async function () {
    const [inj, api, dbg] = await chain(11, 'w12n', ['inject', 'tb-api', 'debug']);
    // On a server, the walk's own work is in the audit log (task 4's shared attributes, one entry per thermostat):
    // the simulator logs nothing by itself, so the entries are added, more than a page of 10 with the seeded ones.
    const [login] = sim.generic.auditLogs();
    const written = Date.now();
    sim.data
      .devices()
      .filter((d) => d.type === 'thermostat')
      .forEach((d, i) =>
        sim.generic.addAuditLog({
          tenantId: login.tenantId,
          customerId: null,
          entityId: { entityType: 'DEVICE', id: d.id },
          entityName: d.name,
          userId: login.userId,
          userName: login.userName,
          actionType: 'ATTRIBUTES_UPDATED',
          actionData: { entityId: d.id, scope: 'SHARED_SCOPE', attributes: { targetTemperature: 21 } },
          actionStatus: 'SUCCESS',
          actionFailureDetails: null,
          createdTime: written - 60000 + i * 1000,
        }),
      );
    const logs = sim.generic.auditLogs();
    assert.ok(logs.length > 10, `${logs.length} entries in the audit log`);

    await edit(api);
    // The common calls of the connected server: the audit log picked from the list, nothing typed.
    await page.waitForFunction(() => $('[data-tb-api-suggest]').attr('data-tb-state') === 'ready', undefined, {
      timeout: WAIT,
    });
    const option = tray().locator('[data-tb-api-suggest] option[data-tb-path="/api/audit/logs"]');
    assert.match(
      String(await option.textContent()),
      /^GET \/api\/audit\/logs\?pageSize=\d+&page=0&sortProperty=createdTime&sortOrder=DESC: the audit log/,
    );
    await tray()
      .locator('[data-tb-api-suggest]')
      .selectOption(String(await option.getAttribute('value')));
    assert.equal(await tray().locator('#node-input-method').inputValue(), 'GET');
    assert.equal(await tray().locator('#node-input-path').inputValue(), '/api/audit/logs');
    // The page size the pick filled in (100) made 10, as a person edits the number in Query.
    const picked = await tray().locator('#node-input-query').inputValue();
    assert.match(picked, /(^|&)pageSize=100(&|$)/);
    const query = picked.replace(/(^|&)pageSize=100(&|$)/, '$1pageSize=10$2');
    await tray().locator('#node-input-query').fill(query);
    await tray().locator('#node-input-query').press('Tab');
    assert.equal(
      await page.evaluate(() => $('[data-tb-api-summary]').text()),
      "Sends GET /api/audit/logs with the connection's login.",
    );
    // Try it (GET): the answer, before deploy.
    await tray().locator('[data-tb-api-try]').click();
    await page.waitForFunction(
      () => !['idle', 'running'].includes(String($('[data-tb-api-try-result]').attr('data-tb-state'))),
      undefined,
      { timeout: WAIT },
    );
    const tried = await page.evaluate(() => ({
      state: String($('[data-tb-api-try-result]').attr('data-tb-state')),
      head: String($('[data-tb-api-try-head]').text()),
      text: String($('[data-tb-api-try-text]').text()),
    }));
    assert.equal(tried.state, 'json', tried.head);
    assert.equal(tried.head, `/api/audit/logs?${query}: HTTP 200 · application/json`);
    const answer = JSON.parse(tried.text) as { data: unknown[]; totalElements: number };
    assert.deepEqual([answer.data.length, answer.totalElements], [10, logs.length]);
    await shot('12-api');
    await saveDialog(page);
    assert.deepEqual(await saved(api, ['method', 'path', 'query']), {
      method: 'GET',
      path: '/api/audit/logs',
      query,
      valid: true,
    });
    await deployButton(page);
    await pressInject(page, inj);
    const s = await waitForStatus(page, api, /^200 JSON$/);
    assert.equal(s.fill, 'green');
    const [page1] = (await waitForDebug(page, dbg)) as Array<{
      data: Array<{ id: { id: string }; createdTime: number }>;
      totalElements: number;
      hasNext: boolean;
    }>;
    // The 10 newest of what the server holds, newest first.
    const newest = logs
      .slice()
      .sort((a, b) => b.createdTime - a.createdTime)
      .slice(0, 10)
      .map((l) => l.id);
    assert.deepEqual(
      page1.data.map((e) => e.id.id),
      newest,
    );
    assert.deepEqual([page1.totalElements, page1.hasNext], [logs.length, true]);
  });

  it('13. ask a rule chain for an answer about a device: rule engine, as the entity picked by name', async function () {
    const [inj, re, dbg] = await chain(12, 'w13n', ['inject', 'tb-rule-engine', 'debug']);
    await injectPayload(inj, 'json', '{"question": "temperature"}');
    await edit(re);
    // Sent as the device: Originator an entity, the entity picked by name.
    await tray().locator('#node-input-originator').selectOption('entity');
    await chooseTypedType(page, tray(), '#node-input-target', 'entity');
    assert.equal(await targetKind(), 'entity picked by name');
    assert.equal(await field('target.entityType').inputValue(), 'DEVICE', 'a device is the default');
    await pickSuggestion(page, field('target.id'), 'A-101', 'Thermo A-101');
    await targetLineIs(page, /^The entity is Thermo A-101, picked by name\.$/);
    assert.equal(await tray().locator('#node-input-bodyFrom').inputValue(), 'payload', 'msg.payload is the default');
    assert.equal(
      await page.evaluate(() => $('[data-tb-summary]').text()),
      "Sends msg.payload as Thermo A-101 into its usual queue; waits the server's 10 s for the reply.",
    );
    await shot('13-rule-engine');
    await saveDialog(page);
    const a101 = await deviceId('Thermo A-101');
    assert.deepEqual(await saved(re, ['originator', 'target', 'targetType', 'bodyFrom']), {
      originator: 'entity',
      target: JSON.stringify({ entityType: 'DEVICE', id: a101 }),
      targetType: 'json',
      bodyFrom: 'payload',
      valid: true,
    });
    await deployButton(page);
    await control('POST', '/rule-engine/reset', {});
    await pressInject(page, inj);
    const s = await waitForStatus(page, re, /^replied$/);
    assert.equal(s.fill, 'green');
    // The demo root chain's answer: the data merged with its originator, the device.
    const [reply] = await waitForDebug(page, dbg);
    assert.deepEqual(reply, {
      question: 'temperature',
      originator: { entityType: 'DEVICE', id: a101, name: 'Thermo A-101' },
    });
    // On the server: one message reached the rule chains, from the device, with the inject's data, answered.
    const { calls } = await control<{
      calls: Array<{ originator: { entityType: string; id: string }; data: unknown; answered: number }>;
    }>('GET', '/rule-engine/calls');
    assert.deepEqual(
      calls.map((c) => [c.originator, c.data, c.answered]),
      [[{ entityType: 'DEVICE', id: a101 }, { question: 'temperature' }, 200]],
    );
  });

  it('14. tell the night shift: notify, the target picked by name, the subject and text from the message', async function () {
    const [inj, notify, dbg] = await chain(13, 'w14n', ['inject', 'tb-notify', 'debug']);
    const subject = 'Thermo A-103 too warm';
    const text = 'Thermo A-103 has been above 25 °C all day: please look at its heater tonight.';
    await injectPayload(inj, 'str', text, subject);
    await edit(notify);
    // Send a notification, a subject and a text (typed here or the message's), by the web: the defaults; the
    // subject and the text left empty are the message's topic and payload.
    assert.equal(await tray().locator('#node-input-action').inputValue(), 'send');
    assert.equal(await tray().locator('#node-input-content').inputValue(), 'text');
    assert.deepEqual(
      [await tray().locator('#node-input-subject').inputValue(), await tray().locator('#node-input-text').inputValue()],
      ['', ''],
    );
    assert.match(String(await tray().locator('#node-input-subject').getAttribute('placeholder')), /empty: msg\.topic/);
    assert.match(String(await tray().locator('#node-input-text').getAttribute('placeholder')), /empty: msg\.payload/);
    // The delivery methods the server offers, the web ticked.
    await page.waitForFunction(() => $('[data-tb-method]').length === 3, undefined, { timeout: WAIT });
    assert.deepEqual(
      await page.evaluate(() =>
        $('[data-tb-method]:checked')
          .map((_i: number, el: HTMLElement) => el.getAttribute('data-tb-method'))
          .get(),
      ),
      ['WEB'],
    );
    // Send to: a target picked by name from the server's list.
    await pickSuggestion(
      page,
      tray().locator('[data-tb-chips="targets"] input[data-tb-field="targets"]'),
      'night',
      'Night shift',
    );
    await page.waitForFunction(() => $('[data-tb-chips="targets"] [data-tb-chip]').length === 1, undefined, {
      timeout: WAIT,
    });
    assert.deepEqual(await chipsShown(page, 'targets'), ['Night shift']);
    assert.equal(
      await tray().locator('[data-tb-notify-summary]').innerText(),
      'Sends msg.topic as the subject and msg.payload as the text to Night shift by Web (bell); waits up to 10s for ' +
        'how many were sent.',
    );
    await shot('14-notify');
    await saveDialog(page);
    assert.deepEqual(await saved(notify, ['action', 'targets', 'content', 'subject', 'text', 'methods']), {
      action: 'send',
      targets: 'Night shift',
      content: 'text',
      subject: '',
      text: '',
      methods: 'WEB',
      valid: true,
    });
    await deployButton(page);
    // The night shift's users, as the server holds the target, and what their inboxes hold before.
    const center = await control<{
      targets: Array<{ name: string; configuration: { usersFilter: { usersIds?: string[] } } }>;
    }>('GET', '/notifications');
    const nightShift = center.targets.find((x) => x.name === 'Night shift');
    const users = nightShift?.configuration.usersFilter.usersIds ?? [];
    assert.ok(users.length > 0, `the night shift: ${JSON.stringify(nightShift)}`);
    const inbox = (user: string) =>
      control<Array<{ subject: string; text: string; status: string; requestId: { id: string } | null }>>(
        'GET',
        `/notifications?user=${encodeURIComponent(user)}`,
      );
    const before = await Promise.all(users.map((u) => inbox(u)));
    await pressInject(page, inj);
    const s = await waitForStatus(page, notify, new RegExp(`^sent: ${users.length}$`));
    assert.equal(s.fill, 'green');
    const [out] = (await waitForDebug(page, dbg)) as Array<{
      id: string;
      status: string;
      stats: { sent: Record<string, number>; totalErrors: number };
      sent: number;
      failed: number;
    }>;
    assert.deepEqual(
      [out.status, out.stats.sent, out.stats.totalErrors, out.sent, out.failed],
      ['SENT', { WEB: users.length }, 0, users.length, 0],
    );
    // In each night shift user's inbox: the notification, unread, its subject the topic and its text the payload.
    for (const [i, u] of users.entries()) {
      const now = await inbox(u);
      assert.equal(now.length, before[i].length + 1, `one more notification for ${u}`);
      assert.deepEqual(
        [now[0].subject, now[0].text, now[0].status, now[0].requestId?.id],
        [subject, text, 'SENT', out.id],
      );
    }
  });

  /** The meters task 15 creates, one for each room of Gamma Floor 2; task 16 puts the first under the floor. */
  const METERS = [
    { name: 'Meter G-201', label: 'Room 201' },
    { name: 'Meter G-202', label: 'Room 202' },
    { name: 'Meter G-203', label: 'Room 203' },
  ];

  it('15. create devices from a list: entity, create or update devices, the profile picked; a second press changes nothing', async function () {
    const [inj, ent, dbg] = await chain(14, 'w15n', ['inject', 'tb-entity', 'debug']);
    // The rows as a person writes them: a name and a label each, no profile.
    const rows =
      '[{"name": "Meter G-201", "label": "Room 201"}, {"name": "Meter G-202", "label": "Room 202"}, ' +
      '{"name": "Meter G-203", "label": "Room 203"}]';
    assert.deepEqual(JSON.parse(rows), METERS);
    await injectPayload(inj, 'json', rows);
    await edit(ent);
    // Create or update devices: the defaults.
    assert.equal(
      await tray().locator('#node-input-operation').inputValue(),
      'upsert',
      'create or update is the default',
    );
    assert.equal(await tray().locator('#node-input-entityType').inputValue(), 'DEVICE', 'a device is the default');
    // The profile for rows that name none, picked from the server's device profiles.
    await pickSuggestion(page, tray().locator('#node-input-profile'), 'met', 'meter');
    assert.equal(await tray().locator('#node-input-profile').inputValue(), 'meter');
    await page.waitForFunction(() => $('[data-tb-entity-summary]').text().endsWith('with profile meter.'), undefined, {
      timeout: WAIT,
    });
    assert.equal(
      await page.evaluate(() => String($('[data-tb-entity-summary]').text())),
      'Creates or updates each device of msg.payload by its name, with profile meter.',
    );
    assert.equal(await visible('[data-tb-profile-warning]'), false, 'the server has the profile meter');
    await shot('15-entity');
    await saveDialog(page);
    assert.deepEqual(await saved(ent, ['operation', 'entityType', 'profile']), {
      operation: 'upsert',
      entityType: 'DEVICE',
      profile: 'meter',
      valid: true,
    });
    // None of the meters is on the server yet.
    for (const m of METERS) assert.equal(sim.data.findByName('DEVICE', m.name), undefined, m.name);
    const devicesBefore = sim.data.devices().length;
    await deployButton(page);

    type Result = { ok: boolean; name: string; action: string; entity: { id: { id: string; entityType: string } } };
    await pressInject(page, inj);
    let s = await waitForStatus(page, ent, new RegExp(`^${METERS.length} done$`));
    assert.equal(s.fill, 'green');
    const [created] = (await waitForDebug(page, dbg)) as Result[][];
    assert.deepEqual(
      created.map((r) => [r.name, r.ok, r.action]),
      METERS.map((m) => [m.name, true, 'created']),
      'one result per row, in order',
    );
    // On the server: the three meters, each once, with the profile picked and the row's label.
    assert.equal(sim.data.devices().length, devicesBefore + METERS.length);
    const versions: number[] = [];
    for (const [i, m] of METERS.entries()) {
      const d = sim.data.mustFindByName('DEVICE', m.name);
      assert.deepEqual([d.type, d.label], ['meter', m.label], m.name);
      assert.deepEqual(created[i].entity.id, { entityType: 'DEVICE', id: d.id }, `${m.name}: the result's entity`);
      versions.push(sim.entities.versionOf(d.id));
    }

    // Pressed again: each row found as it is, nothing written, no second device.
    await pressInject(page, inj);
    const [, again] = (await waitForDebug(page, dbg, 2)) as Result[][];
    s = await waitForStatus(page, ent, new RegExp(`^${METERS.length} done$`));
    assert.equal(s.fill, 'green');
    assert.deepEqual(
      again.map((r) => [r.name, r.ok, r.action]),
      METERS.map((m) => [m.name, true, 'unchanged']),
    );
    assert.equal(sim.data.devices().length, devicesBefore + METERS.length, 'no second device');
    for (const [i, m] of METERS.entries()) {
      assert.equal(sim.data.devices().filter((d) => d.name === m.name).length, 1, `one ${m.name}`);
      const d = sim.data.mustFindByName('DEVICE', m.name);
      assert.equal(sim.entities.versionOf(d.id), versions[i], `${m.name} not written again`);
    }
  });

  /** Waits for tb-relation's line under the settings to read `text` (a picked name arrives from the server). */
  async function relationLineIs(text: string): Promise<void> {
    await page
      .waitForFunction((t) => $('[data-tb-relation-summary]').text() === t, text, { timeout: WAIT })
      .catch(() => undefined);
    assert.equal(await page.evaluate(() => $('[data-tb-relation-summary]').text()), text);
  }

  it('16. put a new meter under its floor, then list the floor: relation Create, both ends picked by name; relation Find', async function () {
    const meter = sim.data.findByName('DEVICE', METERS[0].name);
    assert.ok(meter, `task 15 created ${METERS[0].name}`);
    const floor = sim.data.mustFindByName('ASSET', 'Gamma Floor 2');
    const [inj, rel, dbg] = await chain(15, 'w16n', ['inject', 'tb-relation', 'debug']);
    await edit(rel);
    // Create a relation, the related entity over the entity (the floor contains the meter), Contains: the defaults.
    assert.equal(await tray().locator('#node-input-operation').inputValue(), 'create', 'Create is the default');
    assert.equal(await tray().locator('#node-input-direction').inputValue(), 'TO', 'related → entity is the default');
    assert.equal(
      await tray().locator('#node-input-direction option:checked').textContent(),
      'related → entity (find: its parents)',
    );
    assert.equal(await tray().locator('#node-input-relationType').inputValue(), 'Contains', 'Contains is the default');
    assert.equal(await tray().locator('#node-input-typeGroup').inputValue(), 'COMMON');
    // The entity: the meter, picked by name.
    await chooseTypedType(page, tray(), '#node-input-target', 'entity');
    assert.equal(await targetKind(), 'entity picked by name');
    assert.equal(await field('target.entityType').inputValue(), 'DEVICE', 'a device is the default');
    await pickSuggestion(page, field('target.id'), 'G-201', METERS[0].name);
    await targetLineIs(page, new RegExp(`^The entity is ${METERS[0].name}, picked by name\\.$`));
    // The related entity: the floor, an asset picked by name.
    await chooseTypedType(page, tray(), '#node-input-related', 'entity');
    await field('related.entityType').selectOption('ASSET');
    await pickSuggestion(page, field('related.id'), 'Gamma Fl', 'Gamma Floor 2');
    assert.equal(await visible('.tb-tip-exists'), true, 'the line says a relation that exists is left as it is');
    await relationLineIs(`Creates: Gamma Floor 2 Contains ${METERS[0].name}.`);
    await closeNotifications();
    await shot('16-relation-create');
    await saveDialog(page);
    assert.deepEqual(
      await saved(rel, ['operation', 'target', 'targetType', 'related', 'relatedType', 'direction', 'relationType']),
      {
        operation: 'create',
        target: JSON.stringify({ entityType: 'DEVICE', id: meter.id }),
        targetType: 'json',
        related: JSON.stringify({ entityType: 'ASSET', id: floor.id }),
        relatedType: 'json',
        direction: 'TO',
        relationType: 'Contains',
        valid: true,
      },
    );

    // Then the floor's children: a second relation, Find, the floor picked by name, its children.
    const [injFind, find, dbgFind] = await chain(16, 'w16f', ['inject', 'tb-relation', 'debug']);
    await edit(find);
    await tray().locator('#node-input-operation').selectOption('find');
    assert.equal(await visible('[data-tb-row="related"]'), false, 'no related entity to find');
    await chooseTypedType(page, tray(), '#node-input-target', 'entity');
    await field('target.entityType').selectOption('ASSET');
    await pickSuggestion(page, field('target.id'), 'Gamma Fl', 'Gamma Floor 2');
    await targetLineIs(page, /^The entity is Gamma Floor 2, picked by name\.$/);
    await tray().locator('#node-input-direction').selectOption('FROM');
    assert.equal(
      await tray().locator('#node-input-direction option:checked').textContent(),
      'entity → related (find: its children)',
    );
    // Contains, one level: left as they are.
    assert.deepEqual(
      [
        await tray().locator('#node-input-relationType').inputValue(),
        await tray().locator('#node-input-maxLevel').inputValue(),
      ],
      ['Contains', '1'],
    );
    await relationLineIs('Finds X where Gamma Floor 2 Contains X, one level down.');
    await closeNotifications();
    await shot('16-relation-find');
    await saveDialog(page);
    assert.deepEqual(
      await saved(find, ['operation', 'target', 'targetType', 'direction', 'relationType', 'maxLevel']),
      {
        operation: 'find',
        target: JSON.stringify({ entityType: 'ASSET', id: floor.id }),
        targetType: 'json',
        direction: 'FROM',
        relationType: 'Contains',
        maxLevel: 1,
        valid: true,
      },
    );
    await deployButton(page);

    // The relation: from the floor to the meter, Contains; none yet.
    const held = () =>
      sim.data
        .relationsFrom(floor.id)
        .filter((r) => r.to.id === meter.id)
        .map((r) => ({ type: r.type, typeGroup: r.typeGroup, version: r.version }));
    assert.deepEqual(held(), [], 'the meter is under no floor yet');
    type Created = {
      from: { entityType: string; id: string };
      to: { entityType: string; id: string };
      type: string;
      typeGroup: string;
      created: boolean;
    };
    await pressInject(page, inj);
    let s = await waitForStatus(page, rel, /^relation created$/);
    assert.equal(s.fill, 'green');
    const [out] = (await waitForDebug(page, dbg)) as Created[];
    const relation = {
      from: { entityType: 'ASSET', id: floor.id },
      to: { entityType: 'DEVICE', id: meter.id },
      type: 'Contains',
      typeGroup: 'COMMON',
    };
    assert.deepEqual(out, { ...relation, created: true });
    const once = held();
    assert.deepEqual(
      once.map((r) => [r.type, r.typeGroup]),
      [['Contains', 'COMMON']],
      'the server holds the relation',
    );
    // Pressed again: already related, nothing written (the relation keeps its version).
    await pressInject(page, inj);
    const [, again] = (await waitForDebug(page, dbg, 2)) as Created[];
    assert.deepEqual(again, { ...relation, created: false });
    s = await waitForStatus(page, rel, /^already related$/);
    assert.equal(s.fill, 'green');
    assert.deepEqual(held(), once, 'the relation once, as it was');

    // The floor's children: the rows as the query nodes give them, the new meter among them.
    const children = sim.data
      .relationsFrom(floor.id)
      .filter((r) => r.type === 'Contains' && r.typeGroup === 'COMMON')
      .map((r) => sim.data.get(r.to.id)!);
    assert.ok(children.length > 1, `Gamma Floor 2 contains ${children.map((c) => c.name).join(', ')}`);
    await pressInject(page, injFind);
    s = await waitForStatus(page, find, new RegExp(`^${children.length} related$`));
    assert.equal(s.fill, 'green');
    const [found] = (await waitForDebug(page, dbgFind)) as Array<
      Array<{ id: string; entityType: string; name: string; relationType: string }>
    >;
    const row = (e: { id: string; entityType: string; name: string }) => ({
      id: e.id,
      entityType: e.entityType,
      name: e.name,
      relationType: 'Contains',
    });
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    assert.deepEqual([...found].sort(byName), children.map(row).sort(byName));
    assert.deepEqual(
      found.map((r) => r.name).sort(),
      ['Meter G-200', 'Meter G-201', 'Thermo G-201', 'Thermo G-202', 'Thermo G-203'],
      "the floor's meter and thermostats, and now the new meter",
    );
  });
});
