/**
 * The dialogs in the user's words, in a real editor (Debian chromium, the shared embedded Node-RED, the simulator):
 * tb-rpc's line on its mode says only what is true of the mode chosen; every duration shows and takes its unit, a
 * node saved by an older version shows its durations migrated and is not flagged before it is opened; each dialog
 * shows at most a few short lines, none in protocol words; a live alarm subscription sends what one pick says; and
 * the small ones: "Name starts with" is not marked required, the entity query names itself after its entities, an
 * empty list of values says so, the help tells of the entity picked by name, fits the sidebar, and names the
 * connection as one. Screenshots of every dialog go to screenshotDir() as `words-<what>.png`.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import { addNodes, closeTrays, marked, openDialog, saveDialog, topTray, typeInto, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

/** Every node type with a place in the palette. */
const TYPES = [
  'tb-entity-query',
  'tb-entity-count',
  'tb-alarm-query',
  'tb-subscribe',
  'tb-alarm-status',
  'tb-alarm-action',
  'tb-telemetry',
  'tb-attributes',
  'tb-rpc',
  'tb-wait-until',
  'tb-build-report',
];

/** Words of the wire that a dialog's hint does not use. */
const PROTOCOL_WORDS =
  /pageLink|\{\{msg\.<path>\}\}|\{\{flow\.<key>\}\}|placeholder|msg\.scope, msg\.keys|in ms\b|ms\)/;

describe("the dialogs in the user's words (browser)", function () {
  this.timeout(120000);

  const sim = useSimulator();
  let page: Page;
  const at = (x: number, y: number) => ({ z: 'tabX', x, y, wires: [] as string[][] });

  const editor = useEditor({
    dir: 'tb-browser-words-',
    ready: 'eqMsg',
    viewport: { width: 1500, height: 1600 },
    flows: () => [
      { id: 'tabX', type: 'tab', label: 'words' },
      simConnection('connX', sim.url),
      // Saved by version 2, when these durations were numbers: of ms, of seconds, or beside a unit.
      {
        id: 'connV2',
        type: 'tb-connection',
        name: 'old',
        url: sim.url,
        authMode: 'password',
        timeout: 30,
        retryBudget: 45,
        reportTimeout: 300,
        version: 2,
      },
      {
        id: 'rpcV2',
        type: 'tb-rpc',
        connection: 'connX',
        method: 'reboot',
        methodType: 'str',
        mode: 'oneway',
        timeout: 15000,
        persistent: true,
        expiration: 3600000,
        version: 2,
        ...at(200, 300),
      },
      {
        id: 'telV2',
        type: 'tb-telemetry',
        connection: 'connX',
        operation: 'save',
        ttl: 86400,
        version: 2,
        ...at(200, 380),
      },
      {
        id: 'subV2',
        type: 'tb-subscribe',
        connection: 'connX',
        kind: 'entityData',
        tsKeys: 'temperature',
        tsWindow: 2,
        tsWindowUnit: 'days',
        history: true,
        historyKeys: 'temperature',
        historyRange: 90,
        historyRangeUnit: 'minutes',
        historyInterval: 3600000,
        historyAgg: 'AVG',
        version: 2,
        ...at(200, 460),
      },
      {
        id: 'brV2',
        type: 'tb-build-report',
        connection: 'connX',
        viewConfigId: '0f8fad5b-d9cb-469f-a165-70867728950e',
        range: 'last',
        last: 7,
        lastUnit: 'days',
        maxWait: 120,
        version: 2,
        ...at(200, 540),
      },
      {
        id: 'waitV2',
        type: 'tb-wait-until',
        connection: 'connX',
        key: 'temperature',
        timeout: 90000,
        version: 2,
        ...at(200, 620),
      },
      // Named after their query's entities, or not (a query from the message).
      {
        id: 'eqT',
        type: 'tb-entity-query',
        connection: 'connX',
        queryType: 'json',
        query: JSON.stringify({
          entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
          entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          pageLink: { page: 0, pageSize: 100 },
        }),
        ...at(500, 300),
      },
      {
        id: 'eqK',
        type: 'tb-entity-query',
        connection: 'connX',
        operation: 'keys',
        queryType: 'json',
        query: JSON.stringify({ entityFilter: { type: 'entityType', entityType: 'ASSET' } }),
        ...at(500, 380),
      },
      {
        id: 'eqMsg',
        type: 'tb-entity-query',
        connection: 'connX',
        queryType: 'msg',
        query: 'payload',
        ...at(500, 460),
      },
      { id: 'eqName', type: 'tb-entity-query', connection: 'connX', name: 'my query', ...at(500, 540) },
    ],
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const shot = (name: string) => tray().screenshot({ path: path.join(screenshotDir(), `words-${name}.png`) });
  /** The yellow lines the open dialog shows, as shown. */
  const tips = (): Promise<string[]> =>
    page.evaluate(() =>
      $('.red-ui-tray:last .form-tips:visible')
        .map((_: number, el: HTMLElement) => $(el).text().replace(/\s+/g, ' ').trim())
        .get(),
    );
  const modeLine = () =>
    page.evaluate(() => ({
      shown: $('[data-tb-tip="mode"]').is(':visible'),
      mode: $('[data-tb-tip="mode"]').attr('data-tb-mode'),
      text: $('[data-tb-tip="mode"]').text(),
    }));
  /** A node's own validator of `prop`, on its saved value (as the canvas checks a node not opened). */
  const savedVerdict = (id: string, prop: string) =>
    page.evaluate(
      ([nodeId, p]) => {
        const n = RED.nodes.node(nodeId);
        return n._def.defaults[p].validate.call(n, n[p], {});
      },
      [id, prop] as const,
    );
  const input = (prop: string) => page.evaluate((p) => String($(`#node-input-${p}`).val()), prop);

  it('tb-rpc: the line on the mode says only what is true of it (two-way, one-way, persistent)', async function () {
    await addNodes(page, [{ id: 'rpcM', type: 'tb-rpc', z: 'tabX', x: 800, y: 300 }]);
    await page.evaluate(() => (RED.nodes.node('rpcM').connection = 'connX'));
    await openDialog(page, 'rpcM');
    let line = await modeLine();
    assert.deepEqual([line.shown, line.mode], [true, 'twoway']);
    assert.match(line.text, /^Waits up to the timeout for the device's reply/);
    await shot('rpc-twoway');

    await tray().locator('#node-input-mode').selectOption('oneway');
    line = await modeLine();
    assert.deepEqual([line.shown, line.mode], [true, 'oneway']);
    assert.match(line.text, /^Does not wait for a reply/);
    for (const text of await tips()) {
      assert.doesNotMatch(
        text,
        /reply usually means|answer comes within the timeout or not at all/,
        'no two-way words',
      );
    }
    await shot('rpc-oneway');

    await tray().locator('#node-input-persistent').check();
    line = await modeLine();
    assert.deepEqual([line.shown, line.mode], [true, 'persistent']);
    assert.match(line.text, /keeps the command until the device takes it/);
    await tray().locator('#node-input-persistent').uncheck();
    // Left to the message: the mode is not known, so the line says nothing.
    await tray().locator('#node-input-mode').selectOption('');
    line = await modeLine();
    assert.equal(line.shown, false);
    await tray().locator('#node-input-mode').selectOption('oneway');
    assert.equal((await modeLine()).mode, 'oneway');
    await saveDialog(page);
    assert.equal(await page.evaluate(() => RED.nodes.node('rpcM').mode), 'oneway');
  });

  it('durations: shown and taken with their unit; a bare number is saved with its unit', async function () {
    await openDialog(page, 'rpcM');
    assert.equal(await input('timeout'), '10s', 'a new node: 10s, not 10000');
    assert.match(await page.evaluate(() => $('#node-input-timeout').attr('placeholder')), /^e\.g\. 10s/);
    await typeInto(page, 'timeout', '45s');
    await marked(page, 'timeout', true);
    await typeInto(page, 'timeout', '15000');
    await marked(page, 'timeout', false);
    await saveDialog(page);
    assert.equal(await page.evaluate(() => RED.nodes.node('rpcM').timeout), '15s');
  });

  it('durations saved by version 2 as numbers: valid before the dialog opens, shown with units, saved as such', async function () {
    const durations: Array<[string, string[]]> = [
      ['rpcV2', ['timeout', 'expiration']],
      ['telV2', ['ttl']],
      ['subV2', ['tsWindow', 'historyRange', 'historyInterval']],
      ['brV2', ['last', 'maxWait']],
      ['waitV2', ['timeout']],
      ['connV2', ['timeout', 'retryBudget', 'reportTimeout']],
    ];
    for (const [id, props] of durations)
      for (const p of props) assert.equal(await savedVerdict(id, p), true, `${id}.${p} as saved`);

    await openDialog(page, 'rpcV2');
    assert.deepEqual([await input('timeout'), await input('expiration')], ['15s', '1h']);
    await shot('rpc-persistent-v2');
    await saveDialog(page);
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('rpcV2');
        return [n.version, n.timeout, n.expiration];
      }),
      [3, '15s', '1h'],
    );

    await openDialog(page, 'telV2');
    assert.equal(await input('ttl'), '1d');
    assert.equal(await page.evaluate(() => $('label[for="node-input-ttl"]').text().trim()), 'TTL');
    await closeTrays(page);

    await openDialog(page, 'subV2');
    assert.deepEqual(
      [await input('tsWindow'), await input('historyRange'), await input('historyInterval')],
      ['2d', '90m', '1h'],
    );
    assert.equal(await page.evaluate(() => $('#node-input-tsWindowUnit').is(':visible')), false, 'no unit beside it');
    await shot('subscribe-durations');
    await typeInto(page, 'historyInterval', '');
    await marked(page, 'historyInterval', true);
    await typeInto(page, 'historyInterval', '30 min');
    await marked(page, 'historyInterval', false);
    await saveDialog(page);
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('subV2');
        return [n.version, n.tsWindow, n.historyRange, n.historyInterval, n.tsWindowUnit, n.historyRangeUnit];
      }),
      [3, '2d', '90m', '30 min', '', ''],
    );

    await openDialog(page, 'brV2');
    assert.deepEqual([await input('last'), await input('maxWait')], ['7d', '2m']);
    await closeTrays(page);

    await openDialog(page, 'waitV2');
    assert.equal(await input('timeout'), '90s');
    await closeTrays(page);

    await openDialog(page, 'connV2');
    const conn = (p: string) => page.evaluate((q) => String($(`#node-config-input-${q}`).val()), p);
    assert.deepEqual(
      [await conn('timeout'), await conn('retryBudget'), await conn('reportTimeout')],
      ['30s', '45s', '5m'],
    );
    await tray().screenshot({ path: path.join(screenshotDir(), 'words-tb-connection.png') });
    assert.deepEqual(
      (await tips()).filter((t) => t.length > 100),
      [],
      'the connection dialog: short lines only',
    );
    await closeTrays(page);
  });

  it('every dialog, fresh from the palette: a few short lines, none in protocol words (screenshots)', async function () {
    await addNodes(
      page,
      TYPES.map((type, i) => ({
        id: `fresh-${type}`,
        type,
        z: 'tabX',
        x: 900 + 200 * (i % 3),
        y: 80 + 60 * Math.floor(i / 3),
      })),
    );
    // Two connections here: a node from the palette takes the first, as a person would choose it.
    await page.evaluate((types) => {
      for (const t of types) RED.nodes.node(`fresh-${t}`).connection = 'connX';
    }, TYPES);
    for (const type of TYPES) {
      await openDialog(page, `fresh-${type}`);
      const shown = await tips();
      await shot(type);
      assert.ok(shown.length <= 3, `${type}: ${shown.length} yellow lines: ${JSON.stringify(shown)}`);
      for (const text of shown) {
        assert.ok(text.length <= 120, `${type}: a hint of ${text.length} characters: ${text}`);
        assert.doesNotMatch(text, PROTOCOL_WORDS, `${type}: ${text}`);
      }
      await closeTrays(page);
    }
  });

  it('tb-subscribe watching alarms: one pick for the everyday choices, read back from the saved events', async function () {
    const pickOf = async (events: string): Promise<string> => {
      await page.evaluate(
        (ev) => Object.assign(RED.nodes.node('fresh-tb-subscribe'), { kind: 'alarmData', events: ev }),
        events,
      );
      await openDialog(page, 'fresh-tb-subscribe');
      const p = await tray().locator('[data-tb-events-pick]').inputValue();
      await closeTrays(page);
      return p;
    };
    assert.equal(await pickOf(''), 'all');
    assert.equal(await pickOf('created'), 'created');
    assert.equal(await pickOf('cleared,created'), 'createdCleared');
    assert.equal(await pickOf('created,acknowledged'), 'custom');
    await page.evaluate(() => Object.assign(RED.nodes.node('fresh-tb-subscribe'), { kind: 'alarmData', events: '' }));
    await openDialog(page, 'fresh-tb-subscribe');
    await tray().locator('[data-tb-events-pick]').selectOption('createdCleared');
    assert.equal(await input('events'), 'created,cleared');
    await shot('subscribe-alarm-pick');
    await tray().locator('[data-tb-events-pick]').selectOption('custom');
    assert.equal(await tray().locator('[data-tb-event]').count(), 6, 'the six events, ticked one by one');
    await tray().locator('[data-tb-event="acknowledged"]').check();
    assert.equal(await input('events'), 'created,acknowledged,cleared');
    await saveDialog(page);
    assert.equal(
      await page.evaluate(() => RED.nodes.node('fresh-tb-subscribe').events),
      'created,acknowledged,cleared',
    );
  });

  it('"Name starts with" is not marked required: empty means any name', async function () {
    await openDialog(page, 'eqT', {
      view: 'builder',
      props: {
        query: JSON.stringify({
          entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: '' },
          entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          pageLink: { page: 0, pageSize: 10 },
        }),
      },
    });
    const labels = await page.evaluate(() =>
      $('.red-ui-tray:last .tb-b-row > label, .red-ui-tray:last .tb-b-label')
        .map((_: number, el: HTMLElement) => $(el).text().trim())
        .get(),
    );
    assert.ok(labels.includes('Name starts with'), JSON.stringify(labels));
    assert.ok(labels.includes('Entity type *'), 'the entity type is still required');
    assert.match(await page.evaluate(() => $('.red-ui-tray:last').text()), /Empty: any name\./);
    await closeTrays(page);
  });

  it('tb-entity-query names itself after the entities its query finds, as the other nodes do from their settings', async function () {
    const label = (id: string) =>
      page.evaluate((i) => document.getElementById(i)?.querySelector('.red-ui-flow-node-label')?.textContent, id);
    assert.equal(await label('eqT'), 'devices of profile thermostat');
    assert.equal(await label('eqK'), 'keys of all assets');
    assert.equal(await label('eqMsg'), 'entity query', 'a query from the message');
    // Dropped from the palette, with a new node's query: not configured yet, it keeps its name.
    await addNodes(page, [{ id: 'eqNew', type: 'tb-entity-query', z: 'tabX', x: 500, y: 620 }]);
    assert.equal(await label('eqNew'), 'entity query');
    assert.equal(await label('eqName'), 'my query');
  });

  it('an empty list of values says so, instead of a thin bar', async function () {
    await openDialog(page, 'fresh-tb-attributes');
    await tray().locator('#node-input-valuesFrom').selectOption('rows');
    const look = () =>
      page.evaluate(() => ({
        empty: $('[data-tb-value-empty]').is(':visible') ? $('[data-tb-value-empty]').text() : '',
        list: $('#node-input-values .red-ui-editableList-border').is(':visible'),
      }));
    assert.deepEqual(await look(), { empty: 'No values yet: add one with + value.', list: false });
    await shot('attributes-no-values');
    await tray().locator('#node-input-values .red-ui-editableList-addButton').click();
    await page.waitForFunction(() => $('[data-tb-value-row]').length === 1, undefined, { timeout: WAIT });
    assert.deepEqual(await look(), { empty: '', list: true });
    await closeTrays(page);
  });

  /** Opens a node's help in the sidebar from its dialog; returns the help's element. */
  async function helpOf(id: string) {
    await openDialog(page, id);
    await tray().locator('.red-ui-tray-footer-left button:has(i.fa-book)').click();
    const help = page.locator('.red-ui-sidebar-help-stack .red-ui-help').first();
    await help.waitFor({ state: 'visible', timeout: WAIT });
    return help;
  }

  it("the help: tb-wait-until's tells of the entity picked by name; tb-rpc's fits the sidebar", async function () {
    let help = await helpOf('waitV2');
    await help.filter({ hasText: 'Waits until a value' }).waitFor({ state: 'visible', timeout: WAIT });
    assert.match(await help.innerText(), /entity picked by name/);
    await closeTrays(page);

    help = await helpOf('rpcV2');
    await help.filter({ hasText: 'Sends a command' }).waitFor({ state: 'visible', timeout: WAIT });
    assert.match(
      await help.innerText(),
      /\{ "entityType": "DEVICE", "id": "…" \}/,
      'the example, wrapped, reads whole',
    );
    // The picture shows the outputs, where the longest example was.
    await help.locator('code', { hasText: 'false,' }).first().scrollIntoViewIfNeeded();
    await page.locator('#red-ui-sidebar').screenshot({ path: path.join(screenshotDir(), 'words-rpc-help.png') });
    await closeTrays(page);

    // Nothing of any node's help runs off the sidebar: no element reaches past it, no text past its element.
    const shownHelp = () => page.evaluate(() => String($('.red-ui-sidebar-help-stack .red-ui-help:visible').text()));
    let before = await shownHelp();
    for (const type of [...TYPES, 'tb-connection']) {
      await page.evaluate((t) => RED.sidebar.help.show(t), type);
      await page.waitForFunction(
        (b) => {
          const now = String($('.red-ui-sidebar-help-stack .red-ui-help:visible').text());
          return now !== '' && now !== b;
        },
        before,
        { timeout: WAIT },
      );
      before = await shownHelp();
      const beyond = await page.evaluate(() => {
        const box = $('.red-ui-sidebar-help-stack .red-ui-help:visible')[0] as HTMLElement;
        const right = box.getBoundingClientRect().right;
        return Array.from(box.querySelectorAll('*'))
          .filter((el) => {
            const e = el as HTMLElement;
            return (
              e.getBoundingClientRect().right > right + 1 || (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
            );
          })
          .map((el) => `${el.tagName}: ${(el as HTMLElement).innerText.slice(0, 60)}`);
      });
      assert.deepEqual(beyond, [], `${type}: nothing runs off the sidebar`);
    }
  });

  it('the help tree names the connection as one, among the nodes', async function () {
    await page.evaluate(() => RED.sidebar.show('help'));
    const labels = await page.evaluate(() =>
      $('.red-ui-sidebar-help-toc .red-ui-treeList-label')
        .map((_: number, el: HTMLElement) => $(el).text().trim())
        .get(),
    );
    assert.ok(labels.includes('ThingsBoard connection'), JSON.stringify(labels));
    assert.ok(!labels.includes('ThingsBoard'), 'not "ThingsBoard" alone');
  });
});
