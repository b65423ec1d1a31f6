/**
 * The `npm start` demo in a browser: every example deployed as scripts/start.ts deploys it (its flow builder,
 * against the simulator, and the debug sidebar's filter it sets), then each tab looked at as a person would: the live
 * nodes show their translated status, no node sits where a status text is drawn, and the sidebar shows the messages
 * of the tab being looked at.
 *
 * Part of `npm test` (and `npm run test:browser`): it needs Debian's chromium at /usr/bin/chromium.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, type Embedded } from '../../scripts/embedded';
import { DEMO_DEBUG_FILTER, demoFlows, demoServer, quietDebugSidebar } from '../../scripts/start';
import { dbl, long } from '../../sim';
import { useSimulator } from '../support/simulator';
import { waitFor } from '../support/wait';
import { launchChromium, requireChromium, screenshotDir } from './chromium';
import { deployFlows, sharedNodeRed } from './nodered';

declare const RED: any;

const WAIT = 15000;
/** Types whose nodes show a status text under them in the examples (ours; no example's function sets one). */
const STATUS_TYPES = /^tb-/;
/** Room a status needs under its node: the dot and up to ~26 characters of 10 px text. */
const STATUS_BOX = { gap: 2, height: 22, width: 170 };

describe('npm start demo (browser)', function () {
  this.timeout(60000);

  const sim = useSimulator();
  let nr: Embedded;
  let context: BrowserContext;
  let page: Page;
  let userDir: string;
  let flows: Array<Record<string, any>>;
  /** Whether this file set the sidebar's filter in the shared Node-RED's user settings (put back after). */
  let filterSet = false;
  const pageErrors: string[] = [];

  before(async function () {
    const simUrl = sim.url;
    requireChromium();
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-demo-'));
    ({ nr } = await sharedNodeRed());
    // As npm start does (which writes into .demo/): the CSV example's file goes into the temporary directory here.
    flows = demoFlows(demoServer({}, simUrl).connection, { fileDir: userDir });
    await deployFlows(nr, flows);
    filterSet = await quietDebugSidebar(nr.url);
    ({ context, page } = await launchChromium(path.join(userDir, 'profile')));
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
    await page.goto(nr.url);
    await page.waitForFunction(
      () =>
        typeof RED !== 'undefined' &&
        RED.workspaces &&
        RED.nodes.workspace &&
        RED.nodes.dirty() === false &&
        RED.nodes.filterNodes({}).length > 0,
      undefined,
      {
        timeout: 30000,
      },
    );
  });

  afterEach(function () {
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await deployFlows(nr, []).catch(() => undefined); // its nodes let go of the simulator
    // The other browser files share this Node-RED: its sidebar filter back as it was (null removes a user setting).
    if (nr && filterSet) {
      await fetch(`${nr.url}/settings/user`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ debug: { filter: null } }),
      }).catch(() => undefined);
    }
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  const examples = fs
    .readdirSync(path.join(REPO_ROOT, 'examples'))
    .filter((f) => f.endsWith('.json'))
    .sort();

  it('deploys every example on its own tab', async function () {
    const tabs: string[] = await page.evaluate(() => {
      const t: string[] = [];
      RED.nodes.eachWorkspace((w: any) => t.push(w.label));
      return t;
    });
    assert.deepEqual(
      [...tabs].sort(),
      examples.map((f) => f.replace(/\.json$/, '')),
    );
  });

  for (const file of examples) {
    const label = file.replace(/\.json$/, '');
    it(`${label}: no node hides a status text`, async function () {
      const tab = flows.find((n) => n.type === 'tab' && n.label === label)!;
      // Draw the tab, then measure every node as the editor laid it out.
      await page.evaluate((id) => RED.workspaces.show(id), tab.id);
      await page.waitForFunction(
        (id) => RED.nodes.filterNodes({ z: id }).every((n: any) => n.w > 0 && document.getElementById(n.id)),
        tab.id,
        { timeout: WAIT },
      );
      const boxes: Array<{ id: string; type: string; name: string; x: number; y: number; w: number; h: number }> =
        await page.evaluate(
          (id) =>
            RED.nodes.filterNodes({ z: id }).map((n: any) => ({
              id: n.id,
              type: n.type,
              name: n.name || n.type,
              x: n.x - n.w / 2,
              y: n.y - n.h / 2,
              w: n.w,
              h: n.h,
            })),
          tab.id,
        );
      const overlaps: string[] = [];
      for (const b of boxes.filter((n) => STATUS_TYPES.test(n.type))) {
        const s = { x: b.x, y: b.y + b.h + STATUS_BOX.gap, w: STATUS_BOX.width, h: STATUS_BOX.height };
        for (const o of boxes) {
          if (o === b) continue;
          const hit = o.x < s.x + s.w && o.x + o.w > s.x && o.y < s.y + s.h && o.y + o.h > s.y;
          if (hit) overlaps.push(`"${o.name}" (${o.type}) covers the status of "${b.name}"`);
        }
      }
      assert.deepEqual(overlaps, []);
    });
  }

  /** A node's status text on the canvas. */
  const statusText = (id: string) =>
    page.evaluate(
      (nodeId) => document.getElementById(nodeId)?.querySelector('.red-ui-flow-node-status-label')?.textContent || '',
      id,
    );
  /** Shows the node's tab (only the shown tab's nodes are drawn) and waits for its status text. */
  async function waitForStatus(id: string, text: RegExp): Promise<void> {
    await page.evaluate((nodeId) => RED.workspaces.show(RED.nodes.node(nodeId).z), id);
    await page
      .waitForFunction(
        ([nodeId, re]) =>
          new RegExp(re).test(
            document.getElementById(nodeId)?.querySelector('.red-ui-flow-node-status-label')?.textContent || '',
          ),
        [id, text.source] as const,
        {
          timeout: WAIT,
        },
      )
      .catch(async () => assert.fail(`${id}: no status matching ${text} (${await statusText(id)})`));
  }
  const node = (tab: string, name: string) => {
    const z = flows.find((n) => n.type === 'tab' && n.label === tab)!.id;
    const n = flows.find((x) => x.z === z && x.name === name);
    assert.ok(n, `"${name}" on the tab "${tab}"`);
    return n!;
  };
  const press = (id: string) =>
    page.evaluate((nodeId) => fetch(`inject/${nodeId}`, { method: 'POST' }).then((r) => r.status), id);

  it("the device actions run in the demo: every thermostat's target set by its schedules' buttons (the README's automation loop), commands answered, a dew point written", async function () {
    // Nothing fired at deploy: the two schedules of the thermostats wait for their times, or for their buttons.
    const tab = 'Set the target temperature of every thermostat';
    const attrs = node(tab, 'set targetTemperature');
    assert.equal(sim.telemetry.sharedPushes(), 0, 'no target set at deploy');
    // The night's, then the day's: query → attributes, the target from the inject, on all 20 thermostats.
    assert.equal(await press(node(tab, '22:00: 17 °C at night').id), 200);
    await waitForStatus(attrs.id, /^20 done$/);
    assert.equal(await press(node(tab, '7:00: 21 °C by day').id), 200);
    await waitForStatus(node(tab, 'all thermostats').id, /^20 of 20$/);
    const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
    const bothSet = () =>
      thermostats.every(
        (d) =>
          sim.telemetry.sharedPushes(d.id) === 2 &&
          sim.data.attributeOf(d.id, 'SHARED_SCOPE', 'targetTemperature')?.value === 21,
      );
    await waitFor(bothSet, WAIT, "the two schedules to set every thermostat, the day's 21 °C last");
    await waitForStatus(attrs.id, /^20 done$/);
    // The README's picture of the loop: the tab's nodes with their statuses, palette and sidebar out of the way.
    await page.evaluate(() => {
      RED.menu.setSelected('menu-item-palette', false);
      RED.menu.setSelected('menu-item-sidebar', false);
    });
    try {
      // The canvas widens once the palette is gone: wait until every node is drawn inside it, with room around.
      await page.evaluate((z) => RED.workspaces.show(z), attrs.z);
      await page.waitForFunction(
        (z) => {
          // Settled: the nodes sit where they sat at the previous look (the sidebar slides out), with room around.
          const lefts = RED.nodes
            .filterNodes({ z })
            .map((n: any) => Math.round(document.getElementById(n.id)?.getBoundingClientRect().left ?? -1));
          const w = window as any;
          const settled = w.__tbLefts === lefts.join(',');
          w.__tbLefts = lefts.join(',');
          return settled && lefts.every((l: number) => l >= 20);
        },
        attrs.z,
        { timeout: WAIT, polling: 200 },
      );
      const clip = await page.evaluate((z) => {
        const boxes = RED.nodes
          .filterNodes({ z })
          .map((n: any) => document.getElementById(n.id)?.getBoundingClientRect())
          .filter(Boolean);
        const x = Math.min(...boxes.map((b: DOMRect) => b.left)) - 20;
        const y = Math.min(...boxes.map((b: DOMRect) => b.top)) - 20;
        return {
          x,
          y,
          width: Math.max(...boxes.map((b: DOMRect) => b.right)) + 30 - x,
          height: Math.max(...boxes.map((b: DOMRect) => b.bottom)) + 40 - y,
        };
      }, attrs.z);
      await page.screenshot({ path: path.join(screenshotDir(), 'automation-loop.png'), clip });
    } finally {
      await page.evaluate(() => {
        RED.menu.setSelected('menu-item-palette', true);
        RED.menu.setSelected('menu-item-sidebar', true);
      });
    }

    // The history of the last 24 hours: its button.
    const history = 'Last 24 hours, hourly average';
    assert.equal(await press(node(history, 'every hour').id), 200);
    await waitForStatus(node(history, 'hourly average, 24 h').id, /^(\d+ rows|1 row|no rows)$/);

    // Commands: a two-way reply, and a persistent command followed until every thermostat answered.
    const commands = 'Command a device and wait for its answer';
    assert.equal(await press(node(commands, 'ask Thermo A-101').id), 200);
    await waitForStatus(node(commands, 'getState').id, /^replied$/);
    assert.equal(await press(node(commands, 'fan speed 3 on every thermostat').id), 200);
    await waitForStatus(node(commands, 'setFanSpeed (persistent)').id, /^20 done$/);
    assert.equal(sim.rpc.calls().filter((c) => c.method === 'setFanSpeed').length, 20);

    // A thermostat reports: its dew point is written back.
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo G-203');
    sim.data.setTelemetry(thermo.id, { temperature: dbl(25), humidity: long(50) });
    await waitForStatus(node('Record a computed value', 'save dewPoint').id, /^saved$/);
    assert.equal(sim.data.latestOf(thermo.id, 'dewPoint')?.value, 13.9);
  });

  it('the live nodes show their status in words, and the debug node that prints every event starts off', async function () {
    const live = flows.filter((n) => n.type === 'tb-subscribe');
    assert.ok(live.length > 0);
    for (const n of live) {
      await page.evaluate((z) => RED.workspaces.show(z), n.z);
      // A query with values from the message waits for a message.
      const bound = typeof n.query === 'string' && /\{\{\s*(msg|flow|global|env)\./.test(n.query);
      const text = bound
        ? /^idle$/
        : n.kind === 'alarmData'
          ? /^(\d+ alarms|1 alarm|watching, no alarms yet)$/
          : n.kind === 'entityData'
            ? /^(watching \d+ entities|watching 1 entity|watching, none match)$/
            : n.kind === 'notifications'
              ? /^\d+ unread$/
              : /^count: \d+$/;
      await page
        .waitForFunction(
          ([id, re]) => {
            const el = document.getElementById(id);
            const label = el && el.querySelector('.red-ui-flow-node-status-label');
            return !!label && new RegExp(re).test(label.textContent || '');
          },
          [n.id, text.source] as const,
          { timeout: WAIT },
        )
        .catch(async () =>
          assert.fail(
            `${n.name}: no status matching ${text} ` +
              `(${await page.evaluate((id) => document.getElementById(id)?.querySelector('.red-ui-flow-node-status-label')?.textContent, n.id)})`,
          ),
        );
    }
    // The README's pictures of live flows: the tab's nodes with their statuses, palette and sidebar out of the way.
    await page.evaluate(() => {
      RED.menu.setSelected('menu-item-palette', false);
      RED.menu.setSelected('menu-item-sidebar', false);
    });
    for (const [label, file] of [
      ['Live telemetry table', 'live-flow'],
      ['Alarm to notification pipeline', 'alarm-flow'],
      ['Acknowledge from a notification', 'ack-flow'],
      ['Escalate an alarm nobody acknowledged', 'escalation-flow'],
    ]) {
      const tab = flows.find((n) => n.type === 'tab' && n.label === label);
      if (!tab) continue;
      await page.evaluate((id) => RED.workspaces.show(id), tab.id);
      await page.waitForFunction(
        (id) =>
          RED.nodes
            .filterNodes({ z: id, type: 'tb-subscribe' })
            .every((n: any) =>
              /watching|alarm|count/.test(
                document.getElementById(n.id)?.querySelector('.red-ui-flow-node-status-label')?.textContent || '',
              ),
            ),
        tab.id,
        { timeout: WAIT },
      );
      if (file === 'escalation-flow') {
        // A new critical alarm: the picture shows its wait running (or met: another example acknowledges it).
        sim.data.createAlarm({
          originator: sim.data.mustFindByName('DEVICE', 'Thermo G-101').id,
          type: 'Overheating',
          severity: 'CRITICAL',
        });
        const wait = flows.find((n) => n.z === tab.id && n.type === 'tb-wait-until')!;
        await waitForStatus(wait.id, /^(waiting for \d+|met)$/);
      }
      const clip = await page.evaluate((id) => {
        const boxes = RED.nodes
          .filterNodes({ z: id })
          .map((n: any) => document.getElementById(n.id)?.getBoundingClientRect())
          .filter(Boolean);
        const x = Math.min(...boxes.map((b: DOMRect) => b.left)) - 20;
        const y = Math.min(...boxes.map((b: DOMRect) => b.top)) - 20;
        return {
          x,
          y,
          width: Math.max(...boxes.map((b: DOMRect) => b.right)) + 30 - x,
          height: Math.max(...boxes.map((b: DOMRect) => b.bottom)) + 40 - y,
        };
      }, tab.id);
      await page.screenshot({ path: path.join(screenshotDir(), `${file}.png`), clip });
    }
    await page.evaluate(() => {
      RED.menu.setSelected('menu-item-palette', true);
      RED.menu.setSelected('menu-item-sidebar', true);
    });
    // The demo keeps the sidebar for the user's own messages: every debug node fed by a live node shows its last
    // message under the node instead (scripts/start.ts); in the examples themselves, one that prints every live
    // event to the sidebar starts off.
    const fedByLive = flows.filter(
      (n) => n.type === 'debug' && live.some((s) => (s.wires as string[][]).some((port) => port.includes(n.id))),
    );
    assert.ok(fedByLive.length > 0, 'a debug node wired straight to a subscribe node');
    for (const d of fedByLive) {
      assert.deepEqual(
        [d.tosidebar, d.tostatus],
        [false, true],
        `demo debug "${d.name}": on the canvas, not in the sidebar`,
      );
      assert.deepEqual(await page.evaluate((id) => [RED.nodes.node(id).tosidebar, RED.nodes.node(id).tostatus], d.id), [
        false,
        true,
      ]);
    }
    const examples = fs
      .readdirSync(path.join(REPO_ROOT, 'examples'))
      .filter((f) => f.endsWith('.json'))
      .flatMap(
        (f) =>
          JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', f), 'utf8')) as Array<
            Record<string, unknown> & { id: string }
          >,
      );
    const subscribes = examples.filter((n) => n.type === 'tb-subscribe');
    const everyEvent = examples.filter(
      (n) =>
        n.type === 'debug' &&
        n.tosidebar !== false &&
        subscribes.some((s) => (s.wires as string[][]).some((port) => port.includes(n.id))),
    );
    assert.ok(everyEvent.length > 0, 'an example prints live events to the sidebar');
    for (const d of everyEvent)
      assert.equal(d.active, false, `example debug "${d.name}" prints every live event: it starts off`);
  });

  it('the debug sidebar shows the messages of the tab looked at (current flow), and no example fires at deploy but three that send it nothing', async function () {
    // The filter the demo set, as the sidebar shows it.
    assert.equal(await page.evaluate(() => RED.settings.get('debug.filter')), DEMO_DEBUG_FILTER);
    await page.evaluate(() => RED.sidebar.show('debug'));
    assert.equal(
      await page.evaluate(() => document.querySelector('#red-ui-sidebar-debug-filter span')?.textContent),
      'current flow',
    );
    // As deployed (what a Deploy in the editor starts again): every inject waits for its button or its time, but
    // three that their examples start at deploy, and these reach no debug node that writes to the sidebar (the
    // dashboard's reaches its chart).
    const atDeploy: string[] = await page.evaluate(() =>
      RED.nodes
        .filterNodes({ type: 'inject' })
        .filter((n: any) => n.once)
        .map((n: any) => n.name)
        .sort(),
    );
    assert.deepEqual(atDeploy, ['at deploy', 'the day, at deploy', 'watch all meters']);

    // Two tabs, each with a message of its own: each shows in the sidebar while its tab is the one looked at.
    const debugNode = (tab: string, name: string) => {
      const z = flows.find((n) => n.type === 'tab' && n.label === tab)!.id;
      return flows.find((n) => n.z === z && n.type === 'debug' && n.name === name)!;
    };
    const query = debugNode('Query devices', 'thermostats');
    const counts = debugNode('Count entities and alarms', 'thermostats');
    /** The sidebar's messages of a debug node: how many, and how many are shown. */
    const shown = (id: string) =>
      page.evaluate((nodeId) => {
        const all = Array.from(document.querySelectorAll(`.red-ui-debug-msg-node-${nodeId}`));
        return { all: all.length, visible: all.filter((m) => !m.classList.contains('hide')).length };
      }, id);
    const look = async (label: string) => {
      await page.evaluate((z) => RED.workspaces.show(z), flows.find((n) => n.type === 'tab' && n.label === label)!.id);
    };
    await look('Query devices');
    assert.equal(await press(node('Query devices', 'all thermostats').id), 200);
    await page.waitForFunction((id) => document.querySelector(`.red-ui-debug-msg-node-${id}:not(.hide)`), query.id, {
      timeout: WAIT,
    });
    // Pressed from its own tab, the counts come while another tab is looked at: out of sight.
    assert.equal(await press(node('Count entities and alarms', 'every minute').id), 200);
    await page.waitForFunction((id) => document.querySelector(`.red-ui-debug-msg-node-${id}`), counts.id, {
      timeout: WAIT,
    });
    assert.deepEqual(await shown(counts.id), { all: 1, visible: 0 });
    assert.deepEqual(await shown(query.id), { all: 1, visible: 1 });
    await page.screenshot({ path: path.join(screenshotDir(), 'demo-sidebar-current-flow.png') });
    // The other tab: its messages, and the first tab's out of sight.
    await look('Count entities and alarms');
    await page.waitForFunction((id) => document.querySelector(`.red-ui-debug-msg-node-${id}:not(.hide)`), counts.id, {
      timeout: WAIT,
    });
    assert.deepEqual(await shown(counts.id), { all: 1, visible: 1 });
    assert.deepEqual(await shown(query.id), { all: 1, visible: 0 });
  });
});
