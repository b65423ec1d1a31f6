/**
 * Browser tests of the editor side: Debian chromium (playwright-core) against Node-RED started embedded with
 * this repository (scripts/embedded.ts) and the simulator, both in this process on port 0.
 *
 * Part of `npm test`; `npm run test:browser` runs the browser tests alone. They need Debian's chromium at
 * /usr/bin/chromium (a missing one fails them, saying how to install it). Every wait is on a condition or a
 * response, never a sleep; a page error fails the test that caused it.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT, type Embedded } from '../../scripts/embedded';
import { useSimulator } from '../support/simulator';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './chromium';
import { closeTrays as closeAll, openDialog as openEditDialog, saveDialog } from './editor-page';
import { simConnection, TENANT } from './flows';
import { sharedNodeRed } from './nodered';

// Globals of the editor page, for the functions passed to page.evaluate / waitForFunction.
declare const RED: any;
declare const $: any;

const MODULE = 'node-red-contrib-thingsboard-query';
const CATEGORY = 'ThingsBoard';
const TYPES = [
  'tb-connection',
  'tb-entity-query',
  'tb-entity-count',
  'tb-alarm-query',
  'tb-subscribe',
  'tb-alarm-status',
  'tb-build-report',
  'tb-alarm-action',
  'tb-telemetry',
  'tb-attributes',
  'tb-rpc',
  'tb-rule-engine',
  'tb-entity',
  'tb-wait-until',
  'tb-trigger',
  'tb-api',
  'tb-notify',
  'tb-relation',
];
const PALETTE_TYPES = TYPES.filter((t) => t !== 'tb-connection');
const WAIT = 15000;

const catalog = (type: string): any =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'nodes/locales/en-US', `${type}.json`), 'utf8'))[type];

/** The help's tooltip paragraph, up to its first entity or tag (the sidebar shows it rendered). */
function helpOpening(type: string): string {
  const help = fs.readFileSync(path.join(REPO_ROOT, 'nodes/locales/en-US', `${type}.html`), 'utf8');
  const m = /<p>([^<&]+)/.exec(help);
  assert.ok(m, `no opening paragraph in the ${type} help`);
  return m![1].replace(/\s+/g, ' ').trim();
}

describe('editor (browser)', function () {
  this.timeout(60000);

  const sim = useSimulator();
  let nr: Embedded;
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;
  let thermostats: number;
  const pageErrors: string[] = [];
  /** Every answer the editor got from GET /credentials/<type>/<id>, by path. */
  const credentialAnswers = new Map<string, Promise<unknown>>();

  /** One node of each type, plus the cases the tests look at, on one tab. */
  function testFlow(simUrl: string): unknown[] {
    const at = (x: number, y: number) => ({ z: 'tab1', x, y, wires: [] as string[][] });
    return [
      { id: 'tab1', type: 'tab', label: 'browser test' },
      simConnection('conn1', simUrl, {
        analyticsUrl: `${simUrl}/apiTrendz/`,
        analyticsAuth: 'same',
        reportConcurrency: 2,
        reportTimeout: 300,
      }),
      {
        id: 'inj1',
        type: 'inject',
        name: 'count now',
        props: [{ p: 'payload' }],
        repeat: '',
        once: false,
        payload: '',
        payloadType: 'date',
        ...at(120, 60),
        wires: [['count1']],
      },
      {
        id: 'count1',
        type: 'tb-entity-count',
        name: 'thermostats',
        connection: 'conn1',
        queryType: 'json',
        query: JSON.stringify({ entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } }),
        version: 1,
        ...at(340, 60),
      },
      {
        id: 'sub1',
        type: 'tb-subscribe',
        name: 'live thermostats',
        connection: 'conn1',
        kind: 'entityData',
        queryType: 'json',
        format: 'flat',
        query: JSON.stringify({
          entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
          entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
          pageLink: { page: 0, pageSize: 100, dynamic: true },
        }),
        version: 1,
        ...at(340, 140),
      },
      { id: 'eqNoConn', type: 'tb-entity-query', name: 'no connection', connection: '', version: 1, ...at(340, 220) },
      {
        id: 'eqBadJson',
        type: 'tb-entity-query',
        name: 'bad json',
        connection: 'conn1',
        queryType: 'json',
        query: '{"entityFilter":',
        version: 1,
        ...at(340, 300),
      },
      {
        id: 'eqNoFilter',
        type: 'tb-entity-query',
        name: 'no filter',
        connection: 'conn1',
        queryType: 'json',
        query: '{"pageLink":{"pageSize":10}}',
        version: 1,
        ...at(340, 380),
      },
      { id: 'aq1', type: 'tb-alarm-query', connection: 'conn1', version: 1, ...at(620, 60) },
      { id: 'as1', type: 'tb-alarm-status', connection: 'conn1', version: 1, ...at(620, 140) },
      {
        id: 'br1',
        type: 'tb-build-report',
        connection: 'conn1',
        viewConfigId: '0f8fad5b-d9cb-469f-a165-70867728950e',
        version: 1,
        ...at(620, 220),
      },
      { id: 'act1', type: 'tb-alarm-action', connection: 'conn1', version: 1, ...at(620, 300) },
      { id: 'tel1', type: 'tb-telemetry', connection: 'conn1', version: 1, ...at(860, 60) },
      { id: 'attr1', type: 'tb-attributes', connection: 'conn1', version: 1, ...at(860, 140) },
      { id: 'rpc1', type: 'tb-rpc', connection: 'conn1', version: 1, ...at(860, 220) },
      {
        id: 'wait1',
        type: 'tb-wait-until',
        connection: 'conn1',
        key: 'temperature',
        version: 1,
        ...at(860, 300),
        wires: [[], []],
      },
      { id: 'trig1', type: 'tb-trigger', connection: 'conn1', version: 1, ...at(860, 380), wires: [[], []] },
      { id: 'api1', type: 'tb-api', connection: 'conn1', path: '/api/audit/logs', version: 1, ...at(860, 460) },
      { id: 're1', type: 'tb-rule-engine', connection: 'conn1', version: 1, ...at(860, 540) },
      { id: 'ent1', type: 'tb-entity', connection: 'conn1', version: 1, ...at(860, 700) },
      { id: 'notify1', type: 'tb-notify', connection: 'conn1', targets: 'Night shift', version: 1, ...at(860, 620) },
      { id: 'rel1', type: 'tb-relation', connection: 'conn1', version: 1, ...at(860, 700) },
    ];
  }
  /** The node of each type that the dialog test opens. */
  const DIALOG_NODE: Record<string, string> = {
    'tb-connection': 'conn1',
    'tb-entity-query': 'eqNoFilter',
    'tb-entity-count': 'count1',
    'tb-alarm-query': 'aq1',
    'tb-subscribe': 'sub1',
    'tb-alarm-status': 'as1',
    'tb-build-report': 'br1',
    'tb-alarm-action': 'act1',
    'tb-telemetry': 'tel1',
    'tb-attributes': 'attr1',
    'tb-rpc': 'rpc1',
    'tb-wait-until': 'wait1',
    'tb-trigger': 'trig1',
    'tb-api': 'api1',
    'tb-rule-engine': 're1',
    'tb-entity': 'ent1',
    'tb-notify': 'notify1',
    'tb-relation': 'rel1',
  };

  async function admin(
    method: string,
    urlPath: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const res = await fetch(`${nr.url}${urlPath}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${urlPath}: HTTP ${res.status} ${await res.clone().text()}`);
    return res;
  }

  /** The top-most edit tray (a config tray stacks over the node tray). */
  const topTray = () => page.locator('.red-ui-tray').last();

  const closeTrays = () => closeAll(page);

  /** Opens the edit dialog of a node (a config node through editConfig, as the sidebar does). */
  const openDialog = (id: string) => openEditDialog(page, id, { ready: '#node-input-name, #node-config-input-name' });

  /** A node's status on the canvas: the label text and the class of its dot or ring. */
  const statusOf = (id: string) =>
    page.evaluate((nodeId) => {
      const el = document.getElementById(nodeId);
      const label = el && el.querySelector('.red-ui-flow-node-status-label');
      const shape = el && el.querySelector('.red-ui-flow-node-status');
      return { text: label ? label.textContent : null, shape: shape ? shape.getAttribute('class') : null };
    }, id);

  /** Waits until a node's status label matches `text` and its shape's class matches `shape`. */
  async function waitForStatus(id: string, text: RegExp, shape = /red-ui-flow-node-status-dot-green/) {
    try {
      await page.waitForFunction(
        ([nodeId, t, s]) => {
          const el = document.getElementById(nodeId);
          const label = el && el.querySelector('.red-ui-flow-node-status-label');
          const dot = el && el.querySelector('.red-ui-flow-node-status');
          return !!(
            label &&
            dot &&
            new RegExp(t).test(label.textContent || '') &&
            new RegExp(s).test(dot.getAttribute('class') || '')
          );
        },
        [id, text.source, shape.source] as const,
        { timeout: WAIT },
      );
    } catch {
      assert.fail(`${id}: expected a status ${text} ${shape}, got ${JSON.stringify(await statusOf(id))}`);
    }
    return statusOf(id);
  }

  /**
   * Hovers an element and returns the text of the tooltip it opens: a popover for dialog inputs, an SVG
   * tooltip for the badges of a node on the canvas.
   */
  async function tooltipOf(target: ReturnType<Page['locator']>): Promise<string> {
    await page.mouse.move(0, 0);
    await target.hover();
    const tip = page.locator('.red-ui-popover:visible, g.red-ui-flow-port-tooltip').last();
    await tip.waitFor({ state: 'visible', timeout: WAIT });
    const text = await tip.evaluate((el) => (el as HTMLElement).innerText ?? el.textContent ?? '');
    await page.mouse.move(0, 0);
    return (text || (await tip.textContent()) || '').replace(/\s+/g, ' ').trim();
  }

  before(async function () {
    requireChromium();
    const simUrl = sim.url;
    thermostats = sim.data.devices().filter((d) => d.type === 'thermostat').length;
    assert.ok(thermostats > 0);

    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-profile-'));
    ({ nr } = await sharedNodeRed()); // one Node-RED per process, shared with the other browser tests
    await admin('POST', '/flows', testFlow(simUrl), { 'Node-RED-Deployment-Type': 'full' });

    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
    page.on('response', (res) => {
      const m = /\/credentials\/[^/]+\/[^/?]+$/.exec(new URL(res.url()).pathname);
      if (m && res.request().method() === 'GET') credentialAnswers.set(m[0], res.json());
    });
    await page.goto(nr.url);
    // Ready: the palette is built, the flows are loaded and drawn.
    await page.locator(".red-ui-palette-node[data-palette-type='inject']").waitFor({ timeout: 30000 });
    await page.waitForFunction(
      () =>
        typeof RED !== 'undefined' &&
        RED.editor &&
        RED.nodes.node('count1') &&
        document.getElementById('count1') &&
        !RED.nodes.dirty(),
      undefined,
      { timeout: 30000 },
    );
  });

  afterEach(async function () {
    if (page) await closeTrays().catch(() => undefined);
    const errors = pageErrors.splice(0);
    assert.deepEqual(errors, [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await admin('POST', '/flows', [], { 'Node-RED-Deployment-Type': 'full' }).catch(() => undefined); // let go of the simulator
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  it('loads the shared editor script once, before the node definitions', async function () {
    const res = await page.request.get(`${nr.url}/resources/${MODULE}/tb-editor.js`);
    assert.equal(res.status(), 200);
    assert.equal(
      (await res.body()).toString('utf8'),
      fs.readFileSync(path.join(REPO_ROOT, 'resources/tb-editor.js'), 'utf8'),
    );
    const loaded = await page.evaluate(
      (types) => ({
        shared: typeof (window as any).TbEditor === 'object' && typeof (window as any).TbEditor.forType === 'function',
        registered: types.filter((t: string) => !!RED.nodes.getType(t)),
      }),
      TYPES,
    );
    assert.equal(loaded.shared, true);
    assert.deepEqual(loaded.registered, TYPES);
  });

  it(`shows every ${CATEGORY} node in the palette with its label and its own icon`, async function () {
    const palette = await page.evaluate((category): Array<{ type: string | null; label: string; icon: string }> => {
      return $(`#red-ui-palette-container-${category} .red-ui-palette-node`)
        .toArray()
        .map((el: HTMLElement) => ({
          type: el.getAttribute('data-palette-type'),
          label: $(el).find('.red-ui-palette-label').text().replace(/\s+/g, ' ').trim(),
          icon: $(el).find('.red-ui-palette-icon').css('background-image'),
        }));
    }, CATEGORY);
    assert.deepEqual(palette.map((p) => p.type).sort(), [...PALETTE_TYPES].sort());
    for (const p of palette) {
      assert.equal(p.label, catalog(p.type!).paletteLabel, `${p.type} palette label`);
      const m = /url\("?([^")]+)"?\)/.exec(p.icon);
      assert.ok(m, `${p.type}: no icon image (${p.icon})`);
      const served = await page.request.get(m![1]);
      assert.equal(served.status(), 200);
      // The editor serves a default icon with HTTP 200 when ours is not found: compare the bytes.
      assert.ok(
        (await served.body()).equals(fs.readFileSync(path.join(REPO_ROOT, 'src', 'nodes', String(p.type), 'icon.svg'))),
        `${p.type} icon bytes`,
      );
    }
    // The editor draws config nodes with a cog, but the runtime serves the config node's own icon too (the
    // Flow Library shows it).
    const served = await page.request.get(`${nr.url}/icons/${MODULE}/tb-connection.svg`);
    assert.ok(
      (await served.body()).equals(fs.readFileSync(path.join(REPO_ROOT, 'src/nodes/tb-connection/icon.svg'))),
      'tb-connection icon bytes',
    );
  });

  for (const type of TYPES) {
    it(`${type}: the edit dialog opens translated, and its help shows in the sidebar`, async function () {
      await openDialog(DIALOG_NODE[type]);
      const text = await topTray().innerText();
      assert.doesNotMatch(text, /\btb-[a-z-]+\.[a-zA-Z]+\.[a-zA-Z]/, 'an untranslated catalog key in the dialog');
      assert.match(text, new RegExp(catalog(type).label.name));
      await topTray().locator('.red-ui-tray-footer-left button:has(i.fa-book)').click();
      const help = page.locator('.red-ui-sidebar-help-stack .red-ui-help').first();
      await help.filter({ hasText: helpOpening(type) }).waitFor({ state: 'visible', timeout: WAIT });
      assert.match(await help.innerText(), /\bDetails\b/);
    });
  }

  it('tb-entity-query: an empty connection shows the invalid marker and the validation message', async function () {
    const node = await page.evaluate(() => ({
      valid: RED.nodes.node('eqNoConn').valid,
      errors: RED.nodes.node('eqNoConn').validationErrors,
    }));
    assert.equal(node.valid, false);
    assert.ok(node.errors.length > 0);
    const marker = page.locator('#eqNoConn .red-ui-flow-node-error');
    await marker.waitFor({ state: 'visible', timeout: WAIT });
    assert.match(await tooltipOf(marker), new RegExp(`${catalog('tb-entity-query').label.connection}: `));

    // In the dialog the connection select offers "Add new…": the node's own message.
    await openDialog('eqNoConn');
    const select = topTray().locator('#node-input-connection');
    await page.waitForFunction(() => $('#node-input-connection').hasClass('input-error'), undefined, { timeout: WAIT });
    assert.equal(await tooltipOf(select), catalog('tb-entity-query').errors.connection);
  });

  it('tb-entity-query: a query that is not JSON (or not a query) shows the invalid marker and the message', async function () {
    const label = catalog('tb-entity-query').label.query;
    const badJson = await page.evaluate(() => RED.nodes.node('eqBadJson').validationErrors);
    assert.equal(badJson.length, 1, JSON.stringify(badJson));
    assert.match(badJson[0], new RegExp(`^${label}: .*JSON`));
    await page.locator('#eqBadJson .red-ui-flow-node-error').waitFor({ state: 'visible', timeout: WAIT });
    assert.ok((await tooltipOf(page.locator('#eqBadJson .red-ui-flow-node-error'))).includes(badJson[0]));

    // The runtime's own validation, in its own words.
    const noFilter = await page.evaluate(() => RED.nodes.node('eqNoFilter').validationErrors);
    assert.deepEqual(noFilter, ['query.entityFilter must be an entity filter object with a "type" (missing)']);
    await page.locator('#eqNoFilter .red-ui-flow-node-error').waitFor({ state: 'visible', timeout: WAIT });

    // The dialog marks the query input, and clears the mark once the query is fixed.
    await openDialog('eqBadJson');
    const query = topTray().locator('#node-input-query + .red-ui-typedInput-container');
    await page.waitForFunction(
      () => $('#node-input-query + .red-ui-typedInput-container').hasClass('input-error'),
      undefined,
      { timeout: WAIT },
    );
    await page.evaluate(() =>
      $('#node-input-query').typedInput('value', '{"entityFilter":{"type":"deviceType","deviceTypes":["meter"]}}'),
    );
    await page.waitForFunction(
      () => !$('#node-input-query + .red-ui-typedInput-container').hasClass('input-error'),
      undefined,
      { timeout: WAIT },
    );
    assert.equal(await query.count(), 1);
  });

  it('tb-connection: shows only the credential rows of the selected auth mode; the password stays on the server', async function () {
    await openDialog('conn1');
    // The editor asks once per node (then keeps the answer): look at what it got.
    await page.waitForFunction(() => !!RED.nodes.node('conn1').credentials, undefined, { timeout: WAIT });
    const answer = await credentialAnswers.get('/credentials/tb-connection/conn1');
    assert.deepEqual(
      Object.entries(answer as Record<string, unknown>)
        .filter(([k, v]) => k.startsWith('has_') || v)
        .sort(),
      [
        ['has_analyticsPassword', false],
        ['has_apiKey', false],
        ['has_password', true],
        ['has_token', false],
        ['username', TENANT.username],
      ],
    );
    assert.ok(!JSON.stringify(answer).includes(`"${TENANT.password}"`), 'the password value reached the browser');
    assert.equal(await topTray().locator('#node-config-input-password').inputValue(), '__PWRD__');
    assert.equal(await topTray().locator('#node-config-input-username').inputValue(), TENANT.username);

    const visible = async () => ({
      username: await topTray().locator('#node-config-input-username').isVisible(),
      password: await topTray().locator('#node-config-input-password').isVisible(),
      apiKey: await topTray().locator('#node-config-input-apiKey').isVisible(),
      token: await topTray().locator('#node-config-input-token').isVisible(),
    });
    assert.deepEqual(await visible(), { username: true, password: true, apiKey: false, token: false });
    await topTray().locator('#node-config-input-authMode').selectOption('apiKey');
    assert.deepEqual(await visible(), { username: false, password: false, apiKey: true, token: false });
    await topTray().locator('#node-config-input-authMode').selectOption('token');
    assert.deepEqual(await visible(), { username: false, password: false, apiKey: false, token: true });
    // An empty token is flagged while the token mode is selected.
    await page.waitForFunction(() => $('#node-config-input-token').hasClass('input-error'), undefined, {
      timeout: WAIT,
    });
    await topTray().locator('#node-config-input-authMode').selectOption('password');
    assert.deepEqual(await visible(), { username: true, password: true, apiKey: false, token: false });
    // Analytics rows follow the analytics URL.
    assert.equal(await topTray().locator('#node-config-input-analyticsAuth').isVisible(), true);
    assert.equal(await topTray().locator('#node-config-input-analyticsUsername').isVisible(), false);
    await topTray().locator('#node-config-input-analyticsAuth').selectOption('own');
    assert.equal(await topTray().locator('#node-config-input-analyticsUsername').isVisible(), true);
    // The live message limit: empty (a flow from before the setting) means the default; 0 is flagged.
    const limit = topTray().locator('[data-tb-ws-limit]');
    assert.equal(await limit.isVisible(), true);
    await limit.fill('');
    await limit.dispatchEvent('change');
    await page.waitForFunction(() => !$('[data-tb-ws-limit]').hasClass('input-error'), undefined, { timeout: WAIT });
    await limit.fill('0');
    await limit.dispatchEvent('change');
    await page.waitForFunction(() => $('[data-tb-ws-limit]').hasClass('input-error'), undefined, { timeout: WAIT });
    await limit.fill('64');
    await limit.dispatchEvent('change');
    await page.waitForFunction(() => !$('[data-tb-ws-limit]').hasClass('input-error'), undefined, { timeout: WAIT });
    // Retries within a budget, and the largest answer: what a connection saved before them (version 1) read in
    // their place, shown migrated (the retries left empty: settings.js, else the default the placeholder shows); a
    // value out of range flagged, a good one accepted.
    const setting = async (hook: string, bad: string, good: string): Promise<string> => {
      const input = topTray().locator(`[${hook}]`);
      assert.equal(await input.isVisible(), true, hook);
      // empty in a connection saved before the setting: the placeholder shows the default that applies
      const shown = (await input.inputValue()) || `default ${await input.getAttribute('placeholder')}`;
      const flagged = (on: boolean) =>
        page.waitForFunction(([h, o]) => $(`[${h}]`).hasClass('input-error') === o, [hook, on] as const, {
          timeout: WAIT,
        });
      await input.fill(bad);
      await input.dispatchEvent('change');
      await flagged(true);
      await input.fill(good);
      await input.dispatchEvent('change');
      await flagged(false);
      return shown;
    };
    assert.equal(await setting('data-tb-retries', '11', '5'), 'default 3');
    assert.equal(await setting('data-tb-retry-budget', '0', '1m'), '30s');
    assert.equal(await setting('data-tb-max-response', '-1', '64'), '32');
  });

  it('tb-build-report saved by version 1 without most settings: its dialog shows them migrated, saving writes version 3', async function () {
    await openDialog('br1');
    const shown = await page.evaluate(() => ({
      viewConfigIdType: $('#node-input-viewConfigIdType').val(),
      range: $('#node-input-range').val(),
      last: $('#node-input-last').val(),
      filters: $('#node-input-filters').val(),
      filtersType: $('#node-input-filtersType').val(),
      format: $('#node-input-format').val(),
      split: $('#node-input-split').prop('checked'),
      parseNumbers: $('#node-input-parseNumbers').prop('checked'),
      maxRetries: $('#node-input-maxRetries').val(),
      maxWait: $('#node-input-maxWait').val(),
    }));
    // Version 1 read a missing parseNumbers as off and missing filters as none: the migration says so.
    assert.deepEqual(shown, {
      viewConfigIdType: 'str',
      range: 'view',
      last: '24h',
      filters: '',
      filtersType: 'json',
      format: 'rows',
      split: false,
      parseNumbers: false,
      maxRetries: '5',
      maxWait: '2m',
    });
    await saveDialog(page);
    const saved = await page.evaluate(() => {
      const n = RED.nodes.node('br1');
      return {
        version: n.version,
        parseNumbers: n.parseNumbers,
        filters: n.filters,
        maxWait: n.maxWait,
        valid: n.valid,
      };
    });
    assert.deepEqual(saved, { version: 3, parseNumbers: false, filters: '', maxWait: '2m', valid: true });
  });

  it('tb-entity-count: an injected message shows the count as the node status', async function () {
    await admin('POST', '/inject/inj1');
    await waitForStatus('count1', new RegExp(`^${thermostats}$`));
  });

  it('tb-subscribe: shows a green "watching N entities" status, translated', async function () {
    await waitForStatus('sub1', new RegExp(`^watching ${thermostats} entities$`));
  });

  it('imports an example, sets up its connection in the dialog, and deploys it', async function () {
    const name = 'Count entities and alarms';
    assert.ok(
      (await (await admin('GET', '/library/examples/flows/')).json()).includes(MODULE),
      'the module has examples',
    );
    const listed = JSON.stringify(await (await admin('GET', `/library/examples/flows/${MODULE}/`)).json());
    assert.ok(listed.includes(name), `"${name}" is listed: ${listed}`);
    // As Import > Examples does: fetch the flow and import it onto a new tab.
    const ids = await page.evaluate(
      async ([module, file]): Promise<{
        conn?: string;
        counts: Array<{ id: string; name: string }>;
        inject?: string;
      }> => {
        const data = await $.getJSON(`library/examples/flows/${module}/${encodeURIComponent(file)}`);
        const before = new Set(RED.nodes.filterNodes({}).map((n: any) => n.id));
        RED.view.importNodes(data, { generateIds: true, addFlow: true });
        const added = RED.nodes.filterNodes({}).filter((n: any) => !before.has(n.id));
        let conn: any;
        RED.nodes.eachConfig((n: any) => {
          if (n.type === 'tb-connection' && n.name === 'My ThingsBoard') conn = n;
        });
        return {
          conn: conn && conn.id,
          counts: added.filter((n: any) => n.type === 'tb-entity-count').map((n: any) => ({ id: n.id, name: n.name })),
          inject: added.find((n: any) => n.type === 'inject')?.id,
        };
      },
      [MODULE, name] as const,
    );
    assert.ok(ids.conn, 'the example brings its tb-connection');
    assert.equal(ids.counts.length, 2);
    // It comes without credentials: flagged, and so are the nodes that use it, until they are filled in.
    const valid = () =>
      page.evaluate(
        (list) => list.map((id: string) => RED.nodes.node(id).valid),
        [ids.conn!, ...ids.counts.map((c) => c.id)],
      );
    assert.deepEqual(await valid(), [false, false, false]);

    // Point its connection at the simulator and log in, through the config dialog.
    await openDialog(ids.conn);
    await topTray().locator('#node-config-input-url').fill(sim.url);
    await topTray().locator('#node-config-input-username').fill(TENANT.username);
    await topTray().locator('#node-config-input-password').fill(TENANT.password);
    await topTray().locator('#node-config-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
    assert.deepEqual(await valid(), [true, true, true]);

    // Deploy; the test tab holds invalid nodes on purpose, so confirm the warning.
    const deployed = page.waitForResponse((r) => r.url().endsWith('/flows') && r.request().method() === 'POST', {
      timeout: WAIT,
    });
    await page.locator('#red-ui-header-button-deploy').click();
    await page.locator('#red-ui-deploy-dialog-confirm-deploy-deploy').click({ timeout: WAIT });
    assert.equal((await deployed).status(), 200);
    await page.waitForFunction(() => RED.nodes.dirty() === false, undefined, { timeout: WAIT });

    const flows = await (await admin('GET', '/flows')).json();
    for (const c of ids.counts)
      assert.ok(
        flows.some((n: any) => n.id === c.id),
        `${c.name} is deployed`,
      );
    const conn = flows.find((n: any) => n.id === ids.conn);
    assert.equal(conn.url, sim.url);
    // Saved by version 1: the dialog saved it migrated (retries empty: settings.js, else the default; durations with
    // their unit), as version 3.
    assert.deepEqual([conn.version, conn.retries, conn.retryBudget, conn.timeout], [3, '', '30s', '30s']);
    assert.equal(conn.credentials, undefined, 'no credentials in the flow');
    const creds = await (await admin('GET', `/credentials/tb-connection/${ids.conn}`)).json();
    assert.deepEqual([creds.username, creds.has_password, creds.password], [TENANT.username, true, undefined]);

    // The example runs: its inject (which waits a minute after deploy) is pressed, and the counts show.
    await page.evaluate((z) => RED.workspaces.show(z), flows.find((n: any) => n.id === ids.counts[0].id).z);
    assert.ok(ids.inject, 'the example has an inject node');
    await admin('POST', `/inject/${ids.inject}`);
    const thermo = ids.counts.find((c) => c.name === 'thermostats')!;
    await waitForStatus(thermo.id, new RegExp(`^${thermostats}$`));
    const other = ids.counts.find((c) => c.name !== 'thermostats')!;
    await waitForStatus(other.id, /^\d+$/);
  });
});
