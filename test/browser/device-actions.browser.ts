/**
 * tb-telemetry, tb-attributes and tb-rpc in a real editor (Debian chromium, the shared embedded Node-RED, the
 * simulator): each dialog shows what its action uses, picks a fixed entity by name with the query builder's
 * entity picker, says under the target box which entity it acts on, suggests the keys that entity has, flags wrong
 * settings with the runtime's own words, and saves what the runtime reads; a deployed tb-rpc commands a device
 * from an inject and says so in its status.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  checkTargetLine,
  chipsShown as chipsIn,
  closeTrays,
  keySuggestions as keySuggestionsIn,
  marked as markedIn,
  openDialog,
  pickEntity as pickOne,
  pickSuggestion,
  saveDialog,
  topTray,
  typeInto,
  verdict as verdictIn,
  WAIT,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-telemetry, tb-attributes, tb-rpc (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  const idOf = (name: string) => sim.data.mustFindByName('DEVICE' as never, name).id;

  const editor = useEditor({
    dir: 'tb-browser-devices-',
    ready: 'rpcD',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabD', x, y, wires: [] as string[][] });
      const a102 = { entityType: 'DEVICE', id: idOf('Thermo A-102') };
      return [
        { id: 'tabD', type: 'tab', label: 'device actions' },
        simConnection('connD', sim.url),
        { id: 'telD', type: 'tb-telemetry', connection: 'connD', version: 1, ...at(400, 60) },
        // A connection the runtime does not run (disabled): no suggestions, and the dialog says why.
        {
          id: 'connOff',
          type: 'tb-connection',
          name: 'off',
          d: true,
          url: sim.url,
          authMode: 'password',
          timeout: 10,
          version: 1,
        },
        { id: 'telOff', type: 'tb-telemetry', connection: 'connOff', operation: 'latest', version: 1, ...at(400, 300) },
        { id: 'attrD', type: 'tb-attributes', connection: 'connD', version: 1, ...at(400, 140) },
        // Fresh, for the entity line under the target box.
        { id: 'telL', type: 'tb-telemetry', connection: 'connD', version: 1, ...at(700, 60) },
        { id: 'attrL', type: 'tb-attributes', connection: 'connD', version: 1, ...at(700, 140) },
        // Saved by version 1 without the options a message may give: the dialog shows what the migration gives them.
        {
          id: 'rpcOld',
          type: 'tb-rpc',
          connection: 'connD',
          method: 'reboot',
          methodType: 'str',
          version: 1,
          ...at(700, 220),
        },
        {
          id: 'injD',
          type: 'inject',
          name: 'ask',
          props: [{ p: 'payload' }],
          repeat: '',
          once: false,
          payload: '',
          payloadType: 'date',
          ...at(160, 220),
          wires: [['rpcD']],
        },
        {
          id: 'rpcD',
          type: 'tb-rpc',
          name: '',
          connection: 'connD',
          target: JSON.stringify(a102),
          targetType: 'json',
          method: 'getState',
          methodType: 'str',
          mode: 'twoway',
          timeout: 10000,
          persistent: false,
          expiration: '',
          retries: '',
          additionalInfo: '',
          waitFor: 'final',
          concurrency: 4,
          version: 1,
          ...at(400, 220),
        },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);

  const open = (id: string) => openDialog(page, id);

  const save = () => saveDialog(page);
  const verdict = (id: string, prop: string) => verdictIn(page, id, prop);
  const marked = (prop: string, expected: boolean) => markedIn(page, prop, expected);
  const type = (prop: string, text: string) => typeInto(page, prop, text);

  /** Picks a fixed entity with the entity picker under the target TypedInput. */
  const pickEntity = (entityType: string, typed: string, name: string) => pickOne(page, entityType, typed, name);

  /** The suggestion menu's items for the keys box with `typed` in it (then closes the menu). */
  const keySuggestions = (typed: string) => keySuggestionsIn(page, 'keys', typed);
  const chipsShown = () => chipsIn(page, 'keys');

  it('tb-rpc deployed: an inject commands the fixed device, and the status says it replied', async function () {
    await page.evaluate(() => $.ajax({ url: 'inject/injD', type: 'POST' }));
    await page.waitForFunction(
      () =>
        /replied/.test(
          document.getElementById('rpcD')?.querySelector('.red-ui-flow-node-status-label')?.textContent || '',
        ),
      undefined,
      { timeout: WAIT },
    );
    assert.deepEqual(
      sim.rpc.calls(idOf('Thermo A-102')).map((c) => c.method),
      ['getState'],
    );
  });

  it('tb-telemetry: rows per action, a fixed entity by name, its own keys suggested, history checked by the runtime, saved', async function () {
    await open('telD');
    const rows = async () => ({
      keys: await visible('.tb-row-keys'),
      range: await visible('.tb-row-range'),
      history: await visible('.tb-row-history'),
      save: await visible('.tb-row-save'),
      del: await visible('.tb-row-delete'),
    });
    assert.deepEqual(await rows(), { keys: false, range: false, history: false, save: true, del: false });
    await tray().locator('#node-input-operation').selectOption('delete');
    assert.deepEqual(await rows(), { keys: true, range: true, history: false, save: false, del: true });
    await tray().locator('#node-input-operation').selectOption('history');
    assert.deepEqual(await rows(), { keys: true, range: true, history: true, save: false, del: false });

    // Without a fixed entity the keys suggested are those of the chosen type's entities.
    assert.equal(await page.getAttribute('[data-tb-keys-source]', 'data-tb-keys-source'), 'type');
    assert.ok((await keySuggestions('')).includes('energy'), 'devices have energy (meters)');

    await pickEntity('DEVICE', 'A-101', 'Thermo A-101');
    const a101 = idOf('Thermo A-101');
    assert.deepEqual(JSON.parse(await page.evaluate(() => $('#node-input-target').typedInput('value'))), {
      entityType: 'DEVICE',
      id: a101,
    });
    assert.equal(await visible('.tb-row-id-type'), false, '"Id is a" is for bare ids only');
    await page.waitForFunction(
      () =>
        $('[data-tb-keys-source]').attr('data-tb-keys-source') === 'entity' &&
        /Thermo A-101/.test($('[data-tb-keys-source]').text()),
      undefined,
      { timeout: WAIT },
    );
    // The entity's own time series only.
    assert.deepEqual(await keySuggestions(''), ['humidity', 'temperature']);
    await pickSuggestion(
      page,
      tray().locator('[data-tb-chips="keys"] input[data-tb-field="keys"]'),
      'temp',
      'temperature',
    );
    assert.deepEqual(await chipsShown(), ['temperature']);
    assert.deepEqual(await keySuggestions(''), ['humidity'], 'a chosen key is not suggested again');

    // Another entity: its own keys (a meter has energy and power), and a chip it lacks is marked.
    await tray().locator('[data-tb-field="target.id"]').fill('');
    await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'A-100', 'Meter A-100');
    assert.deepEqual(await keySuggestions(''), ['energy', 'power']);
    await page.waitForFunction(() => $('[data-tb-chip="temperature"]').hasClass('tb-b-unknown'), undefined, {
      timeout: WAIT,
    });
    await tray().locator('[data-tb-field="target.id"]').fill('');
    await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'A-101', 'Thermo A-101');
    await page.waitForFunction(
      () =>
        $('[data-tb-chip="temperature"]').length === 1 && !$('[data-tb-chip="temperature"]').hasClass('tb-b-unknown'),
      undefined,
      { timeout: WAIT },
    );

    // The runtime's own checks: an aggregation needs an interval, and at most 700 of them.
    await type('last', '24h');
    await tray().locator('#node-input-agg').selectOption('AVG');
    await marked('interval', true);
    assert.match(
      String(await verdict('telD', 'interval')),
      /^interval is missing: agg AVG needs an interval .* ThingsBoard silently returns raw points$/,
    );
    await type('interval', '1m');
    await marked('interval', true);
    assert.match(
      String(await verdict('telD', 'interval')),
      /^interval must be at least 124s for this range, or the range shorter: 1 min cuts 1 d into 1440 intervals/,
    );
    await type('interval', '1h');
    await marked('interval', false);
    await type('from', '2026-01-01T00:00:00Z');
    await marked('from', true);
    assert.match(String(await verdict('telD', 'from')), /from and last are both set/);
    await type('from', '');
    await marked('from', false);
    assert.equal(await verdict('telD', 'agg'), true);
    await tray().screenshot({ path: path.join(screenshotDir(), 'telemetry-history.png') });
    await save();
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('telD');
      return {
        operation: x.operation,
        target: x.target,
        targetType: x.targetType,
        keys: x.keys,
        last: x.last,
        agg: x.agg,
        interval: x.interval,
        order: x.order,
        maxItems: x.maxItems,
        concurrency: x.concurrency,
        valid: x.valid,
      };
    });
    // A node deployed without maxItems and concurrency shows (and keeps) what version 1 read in their place: the
    // default concurrency, and maxItems and order left empty (msg.maxItems and msg.order, else 100000 and ASC).
    assert.deepEqual(n, {
      operation: 'history',
      target: JSON.stringify({ entityType: 'DEVICE', id: a101 }),
      targetType: 'json',
      keys: 'temperature',
      last: '24h',
      agg: 'AVG',
      interval: '1h',
      order: '',
      maxItems: '',
      concurrency: '4',
      valid: true,
    });
  });

  it('tb-telemetry on a connection the runtime does not run: the keys are typed by hand, and the dialog says why', async function () {
    await open('telOff');
    assert.equal(await visible('[data-tb-keys-problem]'), false);
    const entry = tray().locator('[data-tb-chips="keys"] input[data-tb-field="keys"]');
    await entry.click();
    await entry.press('ArrowDown');
    await page.waitForFunction(() => $('[data-tb-keys-problem]').is(':visible'), undefined, { timeout: WAIT });
    assert.match(await page.locator('[data-tb-keys-problem]').innerText(), /deploy it to get them/);
    await entry.fill('humidity');
    await entry.press('Enter');
    await page.waitForFunction(() => $('[data-tb-chip="humidity"]').length === 1, undefined, { timeout: WAIT });
    assert.equal(await page.evaluate(() => $('#node-input-keys').val()), 'humidity');
  });

  it('tb-attributes: scopes the action allows, the SHARED tip off devices, keys of the chosen scope, saved', async function () {
    await open('attrD');
    assert.equal(await visible('.tb-row-keys'), false, 'a save takes its keys from msg.payload');
    await tray().locator('#node-input-scope').selectOption('CLIENT_SCOPE');
    await marked('scope', true);
    assert.match(
      String(await verdict('attrD', 'scope')),
      /^scope is CLIENT_SCOPE: ThingsBoard saves attributes only in SERVER_SCOPE or SHARED_SCOPE/,
    );
    await tray().locator('#node-input-scope').selectOption('SHARED_SCOPE');
    await marked('scope', false);
    assert.equal(await visible('[data-tb-tip="shared"]'), false, 'devices get shared attributes pushed');
    await tray().locator('#node-input-targetEntityType').selectOption('ASSET');
    assert.equal(await visible('[data-tb-tip="shared"]'), true, 'on an asset a shared attribute is only stored');
    await pickEntity('ASSET', 'Alpha', 'Building Alpha');
    assert.equal(await visible('[data-tb-tip="shared"]'), true);
    await tray().locator('[data-tb-field="target.entityType"]').selectOption('DEVICE');
    await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'A-101', 'Thermo A-101');
    assert.equal(await visible('[data-tb-tip="shared"]'), false);

    await tray().locator('#node-input-operation').selectOption('read');
    assert.equal(await visible('.tb-row-keys'), true);
    assert.deepEqual(
      await keySuggestions(''),
      ['config', 'reportingInterval', 'targetTemperature'],
      'the shared attributes of Thermo A-101',
    );
    await tray().locator('#node-input-scope').selectOption('CLIENT_SCOPE');
    await marked('scope', false);
    assert.deepEqual(await keySuggestions(''), ['fw', 'note', 'serial']);
    await tray().locator('#node-input-scope').selectOption('SHARED_SCOPE');
    await pickSuggestion(
      page,
      tray().locator('[data-tb-chips="keys"] input[data-tb-field="keys"]'),
      'target',
      'targetTemperature',
    );
    await pickSuggestion(page, tray().locator('[data-tb-chips="keys"] input[data-tb-field="keys"]'), 'conf', 'config');
    await page.locator('[data-tb-chip="config"] [data-tb-action="remove-chip"]').click();
    assert.deepEqual(await chipsShown(), ['targetTemperature']);
    await tray().locator('#node-input-operation').selectOption('delete');
    await tray().locator('#node-input-scope').selectOption('any');
    await marked('scope', true);
    assert.match(String(await verdict('attrD', 'scope')), /a delete needs one scope/);
    await tray().locator('#node-input-scope').selectOption('SHARED_SCOPE');
    await marked('scope', false);
    await save();
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('attrD');
      return {
        operation: x.operation,
        scope: x.scope,
        target: x.target,
        targetType: x.targetType,
        keys: x.keys,
        valid: x.valid,
      };
    });
    assert.deepEqual(n, {
      operation: 'delete',
      scope: 'SHARED_SCOPE',
      target: JSON.stringify({ entityType: 'DEVICE', id: idOf('Thermo A-101') }),
      targetType: 'json',
      keys: 'targetTemperature',
      valid: true,
    });
  });

  const lines: Array<[string, string, { entityType: string; typed: string; name: string }]> = [
    ['tb-telemetry', 'telL', { entityType: 'DEVICE', typed: 'A-101', name: 'Thermo A-101' }],
    ['tb-attributes', 'attrL', { entityType: 'ASSET', typed: 'Alpha', name: 'Building Alpha' }],
  ];
  for (const [type, id, pick] of lines) {
    it(`${type}: the entity line says which entity, as configured (picked by name, a msg. property, the message)`, async function () {
      await open(id);
      await checkTargetLine(
        page,
        'The entity is',
        pick,
        path.join(screenshotDir(), `${type.replace('tb-', '')}-entity-line.png`),
      );
      await closeTrays(page);
    });
  }

  it('tb-rpc: devices only, a wait the server would cut is refused unless persistent, persistent settings checked, saved', async function () {
    await open('rpcD');
    // The fixed device of the deployed node, shown by name.
    await page.waitForFunction(() => $('[data-tb-field="target.id"]').val() === 'Thermo A-102', undefined, {
      timeout: WAIT,
    });
    assert.deepEqual(
      await page.evaluate(() =>
        $('[data-tb-field="target.entityType"] option')
          .map((_: number, o: HTMLOptionElement) => o.value)
          .get(),
      ),
      ['DEVICE'],
    );
    await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'B-201', 'Thermo B-201');
    await page.evaluate(() => $('#node-input-method').typedInput('value', 'setGpio'));
    assert.equal(await visible('.tb-row-persistent'), false);
    await type('timeout', '30s');
    await marked('timeout', true);
    assert.match(
      String(await verdict('rpcD', 'timeout')),
      /^timeout is 30 s: make it 29 s or less, or tick Persistent for a longer wait/,
    );
    await tray().locator('#node-input-persistent').check();
    await marked('timeout', false);
    assert.equal(await visible('.tb-row-persistent'), true);
    assert.equal(await page.evaluate(() => $('[data-tb-tip="mode"]:visible').attr('data-tb-mode')), 'persistent');
    await type('retries', '6');
    await marked('retries', true);
    assert.match(String(await verdict('rpcD', 'retries')), /^retries must be between 0 and 5/);
    await type('retries', '2');
    await marked('retries', false);
    await type('expiration', '1h');
    await page.evaluate(() => $('#node-input-additionalInfo').typedInput('value', '{"by":"node-red"}'));
    await tray().locator('#node-input-waitFor').selectOption('accepted');
    await page.evaluate(() => $('#node-input-method').typedInput('value', ' '));
    await marked('method', true);
    assert.match(String(await verdict('rpcD', 'method')), /method/);
    await page.evaluate(() => $('#node-input-method').typedInput('value', 'setGpio'));
    await marked('method', false);
    await save();
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('rpcD');
      return {
        target: x.target,
        method: x.method,
        methodType: x.methodType,
        timeout: x.timeout,
        persistent: x.persistent,
        retries: x.retries,
        expiration: x.expiration,
        additionalInfo: x.additionalInfo,
        waitFor: x.waitFor,
        valid: x.valid,
        label: document.getElementById('rpcD')?.querySelector('.red-ui-flow-node-label')?.textContent,
      };
    });
    assert.deepEqual(n, {
      target: JSON.stringify({ entityType: 'DEVICE', id: idOf('Thermo B-201') }),
      method: 'setGpio',
      methodType: 'str',
      timeout: '30s',
      persistent: true,
      retries: '2',
      expiration: '1h',
      additionalInfo: '{"by":"node-red"}',
      waitFor: 'accepted',
      valid: true,
      label: 'RPC setGpio',
    });
  });

  it('tb-rpc saved by version 1: the dialog shows it migrated, and saving writes version 3', async function () {
    await open('rpcOld');
    const shown = () =>
      page.evaluate(() => ({
        mode: $('#node-input-mode').val(),
        timeout: $('#node-input-timeout').val(),
        waitFor: $('#node-input-waitFor').val(),
        paramsFrom: $('#node-input-paramsFrom').val(),
        persistent: $('#node-input-persistent').prop('checked'),
        concurrency: $('#node-input-concurrency').val(),
        // The envelope marker of each setting that reads the message as it stands (some rows are hidden).
        fromMessage: $('.tb-from-msg')
          .filter((_: number, m: HTMLElement) => m.style.display !== 'none')
          .map((_: number, m: HTMLElement) => $(m).closest('label').attr('for'))
          .get(),
      }));
    // Version 1 read a missing mode, timeout and waitFor from the message (else twoway, 10 s, final): left empty.
    assert.deepEqual(await shown(), {
      mode: '',
      timeout: '',
      waitFor: '',
      paramsFrom: 'payload',
      persistent: false,
      concurrency: '4',
      fromMessage: [
        'node-input-mode',
        'node-input-timeout',
        'node-input-waitFor',
        'node-input-expiration',
        'node-input-retries',
        'node-input-additionalInfo',
      ],
    });
    await save();
    const saved = await page.evaluate(() => {
      const x = RED.nodes.node('rpcOld');
      return { version: x.version, mode: x.mode, timeout: x.timeout, waitFor: x.waitFor, valid: x.valid };
    });
    assert.deepEqual(saved, { version: 3, mode: '', timeout: '', waitFor: '', valid: true });
  });
});
