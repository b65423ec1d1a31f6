/**
 * The README's getting-started walkthrough, done in a real editor as a person does it: Debian chromium
 * (playwright-core) against the shared embedded Node-RED (test/browser/nodered.ts) and the simulator.
 *
 * Starting from an empty flow: the ThingsBoard nodes are in the palette; inject, tb-entity-query and debug are
 * dragged from the palette and wired by dragging from port to port; a connection is added in the config dialog
 * (the simulator's URL, tenant@thingsboard.org / tenant); deploy; the query is built in the dialog (the
 * thermostat device profile picked from the server's suggestions, the temperature column, preview); deploy;
 * the inject button is pressed and the debug sidebar shows the result.
 *
 * The steps run in order (each starts where the previous one ended). Each saves a screenshot to
 * screenshotDir() (see chromium.ts); the README's pictures are taken with TB_SCREENSHOTS_DIR=docs/images.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { REPO_ROOT, type Embedded } from '../../scripts/embedded';
import { useSimulator } from '../support/simulator';
import { launchChromium, requireChromium, screenshotDir } from './chromium';
import { closeTrays, pickSuggestion, topTray, WAIT } from './editor-page';
import { TENANT } from './flows';
import { deployFlows, sharedNodeRed } from './nodered';

declare const RED: any;
declare const $: any;

const TAB = 'gsFlow';

describe('getting started walkthrough (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let nr: Embedded;
  let context: BrowserContext;
  let page: Page;
  let userDir: string;
  let thermostats: number;
  /** Ids of the nodes the walkthrough adds, by type. */
  const ids: Record<string, string> = {};
  const pageErrors: string[] = [];

  before(async function () {
    requireChromium();
    thermostats = sim.data.devices().filter((d) => d.type === 'thermostat').length;
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-gs-'));
    ({ nr } = await sharedNodeRed());
    // A fresh Node-RED: one empty flow tab, and the palette and sidebar shown. The editor keeps whether they are
    // shown in the runtime's user settings, which the Node-RED shared with the other browser files keeps too
    // (the demo's test hides them for its pictures).
    await deployFlows(nr, [{ id: TAB, type: 'tab', label: 'Flow 1' }]);
    const shown = await fetch(`${nr.url}/settings/user`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ 'menu-menu-item-palette': true, 'menu-menu-item-sidebar': true }),
    });
    assert.ok(shown.ok, `POST /settings/user: HTTP ${shown.status}`);
    ({ context, page } = await launchChromium(path.join(userDir, 'profile')));
    await page.setViewportSize({ width: 1400, height: 860 });
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
    await page.goto(nr.url);
    await page.locator(".red-ui-palette-node[data-palette-type='inject']").waitFor({ timeout: 30000 });
    await page.waitForFunction(
      (tab) => typeof RED !== 'undefined' && RED.nodes && RED.nodes.workspace(tab) && RED.nodes.dirty() === false,
      TAB,
      { timeout: 30000 },
    );
  });

  afterEach(function () {
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await deployFlows(nr, []).catch(() => undefined); // its nodes let go of the simulator
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  // ---- helpers ---------------------------------------------------------------------------------------------

  const shotPath = (name: string) => path.join(screenshotDir(), `getting-started-${name}.png`);
  const canvas = () => page.locator('#red-ui-workspace-chart');
  /** The node on the canvas (its SVG group). */
  const onCanvas = (id: string) => page.locator(`[id="${id}"]`);

  /** Drags a node type from the palette onto the canvas at (x, y) of the visible canvas; returns the new node's id. */
  async function dragFromPalette(type: string, x: number, y: number): Promise<string> {
    const before: string[] = await page.evaluate((t) => RED.nodes.filterNodes({ type: t }).map((n: any) => n.id), type);
    const item = page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`);
    await item.scrollIntoViewIfNeeded();
    await item.dragTo(canvas(), { targetPosition: { x, y } });
    const handle = await page.waitForFunction(
      ([t, known]) =>
        RED.nodes
          .filterNodes({ type: t })
          .map((n: any) => n.id)
          .find((id: string) => !known.includes(id)),
      [type, before] as const,
      { timeout: WAIT },
    );
    const id = (await handle.jsonValue()) as string;
    await onCanvas(id).waitFor({ state: 'visible', timeout: WAIT });
    return id;
  }

  /** Centre of an element on the page. */
  async function centre(l: Locator): Promise<{ x: number; y: number }> {
    const b = await l.boundingBox();
    assert.ok(b, 'element has a box');
    return { x: b!.x + b!.width / 2, y: b!.y + b!.height / 2 };
  }

  /** Wires two nodes as a person does: press on the output port, drag to the input port, release. */
  async function wire(from: string, to: string): Promise<void> {
    const a = await centre(onCanvas(from).locator('.red-ui-flow-port-output .red-ui-flow-port').first());
    const b = await centre(onCanvas(to).locator('.red-ui-flow-port-input .red-ui-flow-port').first());
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
    await page.mouse.move(b.x, b.y, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(
      ([s, t]) => RED.nodes.filterLinks({ source: { id: s }, target: { id: t } }).length === 1,
      [from, to] as const,
      { timeout: WAIT },
    );
  }

  /** Opens a node's edit dialog by double-clicking it, and waits until the dialog is ready. */
  async function openByDoubleClick(id: string): Promise<void> {
    await onCanvas(id).locator('.red-ui-flow-node').first().dblclick();
    await topTray(page).locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: WAIT });
  }

  /** Presses Deploy and waits until the editor has no undeployed change. */
  async function deploy(): Promise<void> {
    const deployed = page.waitForResponse(
      (r) => new URL(r.url()).pathname.endsWith('/flows') && r.request().method() === 'POST',
      { timeout: WAIT },
    );
    await page.locator('#red-ui-header-button-deploy').click();
    assert.equal((await deployed).status(), 200);
    await page.waitForFunction(() => RED.nodes.dirty() === false, undefined, { timeout: WAIT });
  }

  /** A screenshot of the canvas around the walkthrough's nodes (with room for their status texts). */
  async function flowShot(name: string): Promise<void> {
    const clip = await page.evaluate((nodeIds) => {
      const boxes = nodeIds.map((id: string) => document.getElementById(id)!.getBoundingClientRect());
      const x = Math.min(...boxes.map((b: DOMRect) => b.left)) - 30;
      const y = Math.min(...boxes.map((b: DOMRect) => b.top)) - 30;
      return {
        x,
        y,
        width: Math.max(...boxes.map((b: DOMRect) => b.right)) + 60 - x,
        height: Math.max(...boxes.map((b: DOMRect) => b.bottom)) + 45 - y,
      };
    }, Object.values(ids));
    await page.screenshot({ path: shotPath(name), clip });
  }

  const statusText = (id: string) =>
    page.evaluate(
      (nodeId) => document.getElementById(nodeId)?.querySelector('.red-ui-flow-node-status-label')?.textContent ?? '',
      id,
    );

  // ---- the walkthrough ---------------------------------------------------------------------------------------

  it('1. install: the ThingsBoard nodes are in the palette', async function () {
    const category = page.locator('#red-ui-palette-container-ThingsBoard'); // its header and its nodes
    await category.scrollIntoViewIfNeeded();
    const types: string[] = await page.evaluate(() =>
      $('#red-ui-palette-container-ThingsBoard .red-ui-palette-node')
        .toArray()
        .map((el: HTMLElement) => el.getAttribute('data-palette-type')),
    );
    // Every node type of the package but the connection (a configuration node, not in the palette).
    const listed = Object.keys(
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))['node-red'].nodes,
    ).filter((t) => t !== 'tb-connection');
    assert.ok(listed.includes('tb-telemetry') && listed.length >= 10);
    assert.deepEqual(types.sort(), listed.sort());
    // The picture shows every node: the window tall enough for the palette to hold the whole category unscrolled.
    await page.setViewportSize({ width: 1400, height: 1400 });
    const whole = await page.evaluate(() => {
      const scroller = $('#red-ui-palette-container').closest('.red-ui-palette-scroll')[0] ?? document.body;
      const last = $('#red-ui-palette-container-ThingsBoard .red-ui-palette-node').last()[0];
      return last.getBoundingClientRect().bottom <= scroller.getBoundingClientRect().bottom;
    });
    assert.ok(whole, 'the last ThingsBoard node is inside the palette, not scrolled out of it');
    await category.screenshot({ path: shotPath('palette') });
    await page.setViewportSize({ width: 1400, height: 860 });
  });

  it('2. a first flow: inject, tb-entity-query and debug dragged from the palette and wired', async function () {
    ids.inject = await dragFromPalette('inject', 140, 160);
    ids.query = await dragFromPalette('tb-entity-query', 370, 160);
    ids.debug = await dragFromPalette('debug', 610, 160);
    await wire(ids.inject, ids.query);
    await wire(ids.query, ids.debug);
    // Without a connection the query node is marked as not ready (the red triangle).
    assert.equal(await page.evaluate((id) => RED.nodes.node(id).valid, ids.query), false);
    await onCanvas(ids.query).locator('.red-ui-flow-node-error').waitFor({ state: 'visible', timeout: WAIT });
    await page.mouse.click(700, 600); // nothing selected
    await flowShot('flow');
  });

  it('3. a connection: added in the config dialog, then deployed', async function () {
    await openByDoubleClick(ids.query);
    // Node-RED 4 has a "+" (add) button beside the connection; 3.1 a pencil that adds when nothing is chosen.
    const add = topTray(page).locator('#node-input-btn-connection-add, #node-input-lookup-connection').first();
    await add.click();
    const tray = topTray(page);
    await tray.locator('#node-config-input-url').waitFor({ state: 'visible', timeout: WAIT });
    await tray.locator('#node-config-input-name').fill('My ThingsBoard');
    await tray.locator('#node-config-input-url').fill(sim.url);
    assert.equal(await tray.locator('#node-config-input-authMode').inputValue(), 'password');
    await tray.locator('#node-config-input-username').fill(TENANT.username);
    await tray.locator('#node-config-input-password').fill(TENANT.password);
    await tray.locator('#node-config-input-password').blur(); // leaves the box: its check runs
    await page.waitForFunction(() => !$('#node-config-input-password').hasClass('input-error'), undefined, {
      timeout: WAIT,
    });
    await tray.screenshot({ path: shotPath('connection') });
    await tray.locator('#node-config-dialog-ok').click();
    // Back in the query node's dialog, with the new connection chosen.
    await page.waitForFunction(
      () =>
        $('.red-ui-tray').length === 1 && RED.nodes.node($('#node-input-connection').val())?.type === 'tb-connection',
      undefined,
      { timeout: WAIT },
    );
    const conn: string = await page.evaluate(() => $('#node-input-connection').val());
    ids.connection = conn;
    await topTray(page).locator('#node-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
    assert.equal(await page.evaluate((id) => RED.nodes.node(id).valid, ids.query), true);
    await deploy();
    const flows = await (await fetch(`${nr.url}/flows`)).json();
    const saved = flows.find((n: any) => n.id === conn);
    assert.equal(saved.url, sim.url);
    assert.equal(saved.credentials, undefined, 'no credentials in the flow');
  });

  it('4. the query: the thermostat profile picked from the server, the temperature column, a preview', async function () {
    delete ids.connection; // a config node: not on the canvas
    await openByDoubleClick(ids.query);
    const tray = topTray(page);
    const field = (f: string) => tray.locator(`[data-tb-field="${f}"]`);
    await tray.locator('#node-input-name').fill('thermostats');
    await field('entityFilter.type').first().selectOption('deviceType');
    await pickSuggestion(page, field('entityFilter.deviceTypes').last(), 'therm', 'thermostat');
    await field('latestValues.type').first().selectOption('TIME_SERIES');
    await pickSuggestion(page, field('latestValues').last(), 'temp', 'temperature');
    const q = JSON.parse(await page.evaluate(() => $('#node-input-query').typedInput('value')));
    assert.deepEqual(q.entityFilter, { type: 'deviceType', deviceTypes: ['thermostat'] });
    assert.deepEqual(q.latestValues, [{ type: 'TIME_SERIES', key: 'temperature' }]);
    await tray.locator('[data-tb-action="preview"]').click();
    await page.waitForFunction(
      () => !['running', 'idle'].includes($('[data-tb-preview]').attr('data-tb-preview')),
      undefined,
      { timeout: WAIT },
    );
    assert.equal(await page.evaluate(() => $('[data-tb-preview]').attr('data-tb-preview')), 'rows');
    assert.match(await page.evaluate(() => $('[data-tb-preview]').text()), new RegExp(`\\(${thermostats} in all\\)`));
    // The whole dialog in one picture, from its top.
    await page.setViewportSize({ width: 1400, height: 1800 });
    await page.evaluate(() =>
      $('.red-ui-tray *')
        .filter((_i: number, el: HTMLElement) => el.scrollTop > 0)
        .scrollTop(0),
    );
    await tray.screenshot({ path: shotPath('query') });
    await page.setViewportSize({ width: 1400, height: 860 });
    await tray.locator('#node-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
    await deploy();
  });

  it('5. run it: the inject button, the node status and the debug sidebar', async function () {
    await onCanvas(ids.inject).locator('.red-ui-flow-node-button-button').click();
    await page
      .waitForFunction(
        ([id, n]) =>
          document.getElementById(id)?.querySelector('.red-ui-flow-node-status-label')?.textContent === `${n} of ${n}`,
        [ids.query, thermostats] as const,
        { timeout: WAIT },
      )
      .catch(async () => assert.fail(`status: ${await statusText(ids.query)}`));
    // The debug tab of the sidebar (the bug icon), as a person opens it.
    const tab = page.locator('#red-ui-tab-debug a, a.red-ui-tab-link-button[href="#debug"]').first();
    if (await tab.isVisible()) await tab.click();
    else await page.evaluate(() => RED.sidebar.show('debug'));
    const msg = page.locator('.red-ui-debug-content .red-ui-debug-msg').last();
    await msg.waitFor({ state: 'visible', timeout: WAIT });
    assert.match(await msg.innerText(), new RegExp(`msg\\.payload : array\\[${thermostats}\\]`));
    // Open the array, its first ten, and the first item: one thermostat with its name and temperature.
    await msg.locator('.red-ui-debug-msg-element').first().locator('.red-ui-debug-msg-expandable').first().click();
    await msg.getByText('[0 … 9]', { exact: true }).click();
    await msg.locator('.red-ui-debug-msg-object-key', { hasText: /^0$/ }).first().click();
    await page.waitForFunction(
      () => /temperature/.test($('.red-ui-debug-content .red-ui-debug-msg').last().text()),
      undefined,
      { timeout: WAIT },
    );
    const text = await msg.innerText();
    assert.match(text, /name: "Thermo A-101"/);
    assert.match(text, /temperature: 21\.5/);
    // The editor's "deployed" and "injected" notes fade by themselves: the picture shows what stays.
    await page.waitForFunction(() => $('.red-ui-notification').length === 0, undefined, { timeout: WAIT });
    // Nothing selected or hovered, and the canvas back where the flow was drawn (the edit dialog scrolled it
    // to keep the edited node beside the dialog).
    await page.mouse.click(600, 600);
    await page.evaluate(() => $('#red-ui-workspace-chart').scrollTop(0).scrollLeft(0));
    await page.screenshot({ path: shotPath('debug') });
    await closeTrays(page);
  });
});
