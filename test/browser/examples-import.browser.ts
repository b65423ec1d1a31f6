/**
 * The examples as a user gets them: imported through Import ▸ Examples into a fresh editor (nothing deployed),
 * in Debian chromium against the shared embedded Node-RED. Each lands on its own tab named after it; its
 * connection comes without credentials and is flagged before deploy (with every node that uses it), and a
 * connection deployed with its password stored is not; several examples share that one connection, so its
 * credentials are asked once, and a device an example picks by name shows by its name; and deployed without
 * credentials, an example logs nothing but the connection's problem once per node at start: every message error
 * goes to its Catch node.
 *
 * Part of `npm test` (and `npm run test:browser`). Every wait is on a condition or a response, never a sleep.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, type Embedded } from '../../scripts/embedded';
import { useSimulator } from '../support/simulator';
import { launchChromium, requireChromium } from './chromium';
import { closeTrays, openDialog, topTray, WAIT } from './editor-page';
import { TENANT } from './flows';
import { deployFlows, sharedNodeRed } from './nodered';

declare const RED: any;
declare const $: any;

const MODULE = 'node-red-contrib-thingsboard-query';

type FlowNode = Record<string, any> & { id: string; type: string };
interface Example {
  file: string;
  label: string;
  nodes: FlowNode[];
}

const EXAMPLES: Example[] = fs
  .readdirSync(path.join(REPO_ROOT, 'examples'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    label: file.replace(/\.json$/, ''),
    nodes: JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'examples', file), 'utf8')),
  }));
const CONNECTION = EXAMPLES[0].nodes.find((n) => n.type === 'tb-connection')!;
const ERRORS = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'nodes/locales/en-US/tb-connection.json'), 'utf8'))[
  'tb-connection'
].errors;
const NO_ANALYTICS = JSON.parse(
  fs.readFileSync(path.join(REPO_ROOT, 'nodes/locales/en-US/tb-build-report.json'), 'utf8'),
)['tb-build-report'].errors.noAnalytics;
const isTb = (type: string): boolean => /^tb-/.test(type) && type !== 'tb-connection';
/** Dashboard 2's configuration nodes (the dashboard example brings its own base, page, theme and groups). */
const isDashboardConfig = (type: string): boolean => /^ui-(base|page|theme|group)$/.test(type);
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the editor holds: tabs, config nodes and flow nodes, with their validity and messages. */
interface EditorState {
  tabs: Array<{ id: string; label: string }>;
  configs: Array<{ id: string; type: string; name: string; valid: boolean; errors: string[] }>;
  nodes: Array<{
    id: string;
    type: string;
    name: string;
    z: string;
    connection?: string;
    valid: boolean;
    errors: string[];
  }>;
}

describe('examples imported into a fresh editor (browser)', function () {
  this.timeout(120000);

  const sim = useSimulator();
  let nr: Embedded;
  let context: BrowserContext;
  let page: Page;
  let userDir: string;
  const pageErrors: string[] = [];

  async function admin(method: string, urlPath: string): Promise<any> {
    const res = await fetch(`${nr.url}${urlPath}`, { method });
    assert.ok(res.ok, `${method} ${urlPath}: HTTP ${res.status}`);
    return res.json();
  }

  const state = (): Promise<EditorState> =>
    page.evaluate(() => {
      const s: any = { tabs: [], configs: [], nodes: [] };
      RED.nodes.eachWorkspace((w: any) => s.tabs.push({ id: w.id, label: w.label }));
      RED.nodes.eachConfig((n: any) =>
        s.configs.push({ id: n.id, type: n.type, name: n.name, valid: n.valid, errors: n.validationErrors || [] }),
      );
      for (const n of RED.nodes.filterNodes({})) {
        s.nodes.push({
          id: n.id,
          type: n.type,
          name: n.name,
          z: n.z,
          connection: n.connection,
          valid: n.valid,
          errors: n.validationErrors || [],
        });
      }
      return s;
    });

  /** Reloads the editor with nothing deployed: one empty tab, "Flow 1". */
  async function freshEditor(): Promise<void> {
    await deployFlows(nr, []);
    await page.goto(nr.url);
    await page.waitForFunction(
      () =>
        typeof RED !== 'undefined' &&
        RED.nodes &&
        RED.nodes.getType &&
        RED.nodes.getType('tb-connection') &&
        RED.workspaces.active() &&
        RED.nodes.dirty() === false,
      undefined,
      { timeout: 30000 },
    );
    const s = await state();
    assert.deepEqual(
      [s.tabs.map((t) => t.label), s.configs.length, s.nodes.length],
      [['Flow 1'], 0, 0],
      'a fresh editor',
    );
  }

  /**
   * Imports an example as a user does: Import ▸ Examples, the module, the example, Import. Resolves once its tab
   * is there ('imported'), or once Node-RED says some nodes already exist ('conflict': the shared connection).
   */
  async function importFromMenu(label: string): Promise<'imported' | 'conflict'> {
    const before = (await state()).tabs.length;
    // An earlier import's "Imported" notification would lie over the dialog's list: close it, as its own close does.
    await page.evaluate(() => $('.red-ui-notification').each((_i: number, n: any) => n.close && n.close()));
    await page.waitForFunction(() => $('.red-ui-notification').length === 0, undefined, { timeout: WAIT });
    await page.evaluate(() => RED.actions.invoke('core:show-examples-import-dialog'));
    const dialog = page.locator('#red-ui-clipboard-dialog');
    await dialog.waitFor({ state: 'visible', timeout: WAIT });
    const item = (text: string) =>
      dialog
        .locator('.red-ui-treeList-label')
        .filter({ hasText: new RegExp(`^\\s*${escape(text)}\\s*$`) })
        .first();
    // The module's branch may open expanded (the dialog can keep it open from the last import): a click on it
    // would then fold it. Open it only when the example is not showing, and once more if a click folded it.
    const target = item(label);
    for (let attempt = 0; !(await target.isVisible()); attempt++) {
      if (attempt >= 3) throw new Error(`"${label}" does not show under ${MODULE} in the import dialog`);
      if (
        attempt > 0 ||
        !(await target.waitFor({ state: 'visible', timeout: 1000 }).then(
          () => true,
          () => false,
        ))
      ) {
        await item(MODULE).click();
        await target.waitFor({ state: 'visible', timeout: 5000 }).catch(() => undefined);
      }
    }
    await target.click();
    await page.locator('#red-ui-clipboard-dialog-ok').click();
    await dialog.waitFor({ state: 'hidden', timeout: WAIT });
    const conflict = page.locator('.red-ui-notification', { hasText: 'already exist' });
    await page.waitForFunction(
      ([n, l]) => {
        if ($('.red-ui-notification:contains("already exist")').length > 0) return true;
        const tabs: any[] = [];
        RED.nodes.eachWorkspace((w: any) => tabs.push(w));
        return tabs.length > (n as number) && tabs.some((w) => w.label === l);
      },
      [before, label] as const,
      { timeout: WAIT },
    );
    return (await conflict.count()) > 0 ? 'conflict' : 'imported';
  }

  /** Answers Node-RED's "already exist" notification: Import copy, or View nodes… then Import selected. */
  async function resolveConflict(label: string, how: 'copy' | 'view'): Promise<void> {
    const before = (await state()).tabs.length;
    const notification = page.locator('.red-ui-notification', { hasText: 'already exist' });
    if (how === 'copy') {
      await notification.locator('button', { hasText: 'Import copy' }).click();
    } else {
      await notification.locator('button', { hasText: 'View nodes' }).click();
      const selected = page.locator('#red-ui-clipboard-dialog-import-conflict');
      await selected.waitFor({ state: 'visible', timeout: WAIT });
      // The connection that already exists is not imported again (Node-RED leaves it unticked).
      await selected.click();
      await page.locator('#red-ui-clipboard-dialog').waitFor({ state: 'hidden', timeout: WAIT });
    }
    await notification.waitFor({ state: 'detached', timeout: WAIT });
    await page.waitForFunction(
      ([n, l]) => {
        const t: any[] = [];
        RED.nodes.eachWorkspace((w: any) => t.push(w));
        return t.length > (n as number) && t.some((w) => w.label === l);
      },
      [before, label] as const,
      { timeout: WAIT },
    );
  }

  /**
   * Imports an example with the calls Import ▸ Examples makes (without its dialog): the library's flow, then
   * RED.view.importNodes as is, or with new ids, as the "Import copy" answer to a conflict does.
   */
  async function importDirectly(label: string, copy: boolean): Promise<void> {
    await page.evaluate(
      async ([module, f, generateIds]) => {
        const data = await $.getJSON(`library/examples/flows/${module}/${encodeURIComponent(f as string)}`);
        RED.view.importNodes(data, { generateIds, addFlow: false });
      },
      [MODULE, label, copy] as const,
    );
  }

  /** Deploys from the editor, confirming the warning about invalid nodes if there is one. */
  async function deployFromEditor(): Promise<void> {
    const posted = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/flows' && r.request().method() === 'POST',
      { timeout: WAIT },
    );
    await page.locator('#red-ui-header-button-deploy').click();
    const confirm = page.locator('#red-ui-deploy-dialog-confirm-deploy-deploy');
    await Promise.race([posted, confirm.waitFor({ state: 'visible', timeout: WAIT })]);
    if (await confirm.isVisible()) await confirm.click();
    assert.equal((await posted).status(), 200);
    await page.waitForFunction(() => RED.nodes.dirty() === false, undefined, { timeout: WAIT });
  }

  before(async function () {
    requireChromium();
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-import-'));
    ({ nr } = await sharedNodeRed());
    ({ context, page } = await launchChromium(path.join(userDir, 'profile')));
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
    // Leaving an editor with undeployed changes asks first: go.
    page.on('dialog', (d) => (d.type() === 'beforeunload' ? d.accept() : d.dismiss()));
  });

  afterEach(async function () {
    if (page) await closeTrays(page).catch(() => undefined);
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await deployFlows(nr, []).catch(() => undefined); // the examples let go of the simulator
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  it('serves the JSON schemas of the queries with the editor resources', async function () {
    for (const f of fs.readdirSync(path.join(REPO_ROOT, 'resources', 'schemas'))) {
      const served = await admin('GET', `/resources/${MODULE}/schemas/${f}`);
      assert.deepEqual(served, JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'resources', 'schemas', f), 'utf8')), f);
    }
  });

  for (const ex of EXAMPLES) {
    it(`${ex.label}: lands on its own tab; its connection, without credentials, is flagged before deploy`, async function () {
      await freshEditor();
      const flow1 = (await state()).tabs[0];
      assert.equal(await importFromMenu(ex.label), 'imported');
      const s = await state();
      const tab = ex.nodes.find((n) => n.type === 'tab')!;
      assert.deepEqual(s.tabs, [flow1, { id: tab.id, label: ex.label }], 'its own tab, named after it');
      const placed = ex.nodes.filter(
        (n) => n.type !== 'tab' && n.type !== 'tb-connection' && !isDashboardConfig(n.type),
      );
      assert.deepEqual(s.nodes.map((n) => n.id).sort(), placed.map((n) => n.id).sort(), 'every node of the example');
      for (const n of s.nodes) assert.equal(n.z, tab.id, `${n.type} "${n.name}" is on the example's tab`);

      // A dashboard's own configuration nodes come with it, valid as they are.
      assert.deepEqual(
        s.configs.filter((c) => isDashboardConfig(c.type)).map((c) => [c.id, c.valid]),
        ex.nodes.filter((n) => isDashboardConfig(n.type)).map((n) => [n.id, true]),
        "the dashboard's base, page, theme and groups",
      );
      // The connection: the shared one, flagged with what to fill in; the nodes that use it say so too.
      assert.deepEqual(
        s.configs.filter((c) => !isDashboardConfig(c.type)),
        [
          {
            id: CONNECTION.id,
            type: 'tb-connection',
            name: CONNECTION.name,
            valid: false,
            errors: [ERRORS.signInPassword],
          },
        ],
      );
      const invalid = s.nodes.filter((n) => !n.valid);
      assert.deepEqual(
        invalid.map((n) => n.id).sort(),
        s.nodes
          .filter((n) => isTb(n.type))
          .map((n) => n.id)
          .sort(),
        'the ThingsBoard nodes, and only they, are flagged',
      );
      for (const n of invalid)
        assert.ok(n.errors.join(' ').includes(ERRORS.signInPassword), `${n.type} "${n.name}": ${n.errors.join(' ')}`);

      // On the canvas: the warning triangle on each ThingsBoard node.
      await page.evaluate((id) => RED.workspaces.show(id), tab.id);
      for (const n of invalid)
        await page.locator(`[id="${n.id}"] .red-ui-flow-node-error`).waitFor({ state: 'visible', timeout: WAIT });
    });
  }

  it('a connection pasted without credentials is flagged for whatever its sign-in needs, until its dialog has it', async function () {
    await freshEditor();
    const pasted = [
      { ...CONNECTION, id: 'cKey', name: 'key', authMode: 'apiKey' },
      {
        ...CONNECTION,
        id: 'cToken',
        name: 'token',
        authMode: 'token',
        analyticsUrl: 'http://127.0.0.1:8888/apiTrendz/',
        analyticsAuth: 'own',
      },
    ];
    await page.evaluate((nodes) => RED.view.importNodes(nodes, { generateIds: false, addFlow: false }), pasted);
    const configs = async () => Object.fromEntries((await state()).configs.map((c) => [c.id, [c.valid, c.errors]]));
    assert.deepEqual(await configs(), {
      cKey: [false, [ERRORS.signInApiKey]],
      cToken: [false, [ERRORS.signInToken, ERRORS.analyticsSignIn]],
    });

    /** Fills the given credential inputs in the connection's dialog and presses Done. */
    const fill = async (id: string, values: Record<string, string>) => {
      await openDialog(page, id);
      for (const [key, value] of Object.entries(values))
        await topTray(page).locator(`#node-config-input-${key}`).fill(value);
      await topTray(page).locator('#node-config-dialog-ok').click();
      await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
    };
    await fill('cKey', { apiKey: 'tb_example' });
    await fill('cToken', { token: 'eyJexample' });
    assert.deepEqual(
      await configs(),
      { cKey: [true, []], cToken: [false, [ERRORS.analyticsSignIn]] },
      'the analytics sign-in is still missing',
    );
    await fill('cToken', { analyticsUsername: 'analyst', analyticsPassword: 'secret' });
    assert.deepEqual(await configs(), { cKey: [true, []], cToken: [true, []] });
  });

  it('imported together, the examples share one connection: its credentials are asked once, and a deployed one is not flagged', async function () {
    await freshEditor();
    assert.equal(await importFromMenu(EXAMPLES[0].label), 'imported');
    // Fill in the connection once, in its dialog.
    await openDialog(page, CONNECTION.id);
    await topTray(page).locator('#node-config-input-url').fill(sim.url);
    await topTray(page).locator('#node-config-input-username').fill(TENANT.username);
    await topTray(page).locator('#node-config-input-password').fill(TENANT.password);
    await topTray(page).locator('#node-config-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
    assert.equal((await state()).configs[0].valid, true);

    // The others: Node-RED says the connection already exists; "View nodes…" (the second) and "Import copy"
    // (the third) both keep the one there is. The rest are imported as "Import copy" does.
    for (const [i, ex] of EXAMPLES.entries()) {
      if (i === 0) continue;
      if (i <= 2) {
        assert.equal(await importFromMenu(ex.label), 'conflict', ex.label);
        await resolveConflict(ex.label, i === 1 ? 'view' : 'copy');
      } else {
        await importDirectly(ex.label, true);
      }
    }
    const check = async (when: string) => {
      const s = await state();
      assert.deepEqual(
        s.tabs.map((t) => t.label).sort(),
        ['Flow 1', ...EXAMPLES.map((e) => e.label)].sort(),
        `${when}: a tab per example`,
      );
      assert.deepEqual(
        s.configs.filter((c) => !isDashboardConfig(c.type)).map((c) => [c.id, c.valid]),
        [[CONNECTION.id, true]],
        `${when}: one connection, valid`,
      );
      const tb = s.nodes.filter((n) => isTb(n.type));
      assert.ok(tb.length >= EXAMPLES.length);
      for (const n of tb) {
        assert.equal(n.connection, CONNECTION.id, `${when}: ${n.type} "${n.name}" uses the one connection`);
        // The report nodes still want the analytics URL (no credentials): the connection has none.
        if (n.type === 'tb-build-report') assert.deepEqual(n.errors, [NO_ANALYTICS], `${when}: ${n.name}`);
        else assert.deepEqual([n.valid, n.errors], [true, []], `${when}: ${n.type} "${n.name}"`);
      }
    };
    await check('imported');

    await deployFromEditor();
    const creds = await admin('GET', `/credentials/tb-connection/${CONNECTION.id}`);
    assert.deepEqual([creds.username, creds.has_password, creds.password], [TENANT.username, true, undefined]);

    // Loaded again, the connection's credentials are on the server only: it is not flagged.
    await page.reload();
    await page.waitForFunction(
      (id) =>
        typeof RED !== 'undefined' && RED.nodes && RED.nodes.node && RED.nodes.node(id) && RED.nodes.dirty() === false,
      CONNECTION.id,
      { timeout: 30000 },
    );
    assert.equal(
      await page.evaluate((id) => RED.nodes.node(id).credentials, CONNECTION.id),
      undefined,
      'the editor does not hold them',
    );
    await check('deployed and loaded again');
    // And they work: every live node of every example shows a green status, but one whose query takes its values
    // from the message, which waits for a message (grey ring).
    for (const n of (await state()).nodes.filter((x) => x.type === 'tb-subscribe')) {
      await page.evaluate((z) => RED.workspaces.show(z), n.z);
      const bound = await page.evaluate(
        (id) => /\{\{\s*(msg|flow|global|env)\./.test(RED.nodes.node(id).query || ''),
        n.id,
      );
      await page.waitForFunction(
        ([id, re]) =>
          new RegExp(re).test(
            document.getElementById(id)?.querySelector('.red-ui-flow-node-status')?.getAttribute('class') || '',
          ),
        [n.id, bound ? 'status-ring-grey' : 'status-dot-green'] as const,
        { timeout: WAIT },
      );
    }
    // The examples' fixed devices open on the picker, by the name the server gives them.
    for (const name of ['getState', 'hourly average, 24 h']) {
      const n = (await state()).nodes.find((x) => x.name === name)!;
      await page.evaluate((z) => RED.workspaces.show(z), n.z);
      await openDialog(page, n.id);
      await page
        .waitForFunction(() => $('[data-tb-field="target.id"]').val() === 'Thermo A-101', undefined, { timeout: WAIT })
        .catch(async () =>
          assert.fail(
            `${name}: the device is not shown by name ` +
              `(${await page.evaluate(() => $('[data-tb-field="target.id"]').val())})`,
          ),
        );
      await closeTrays(page);
    }
  });

  it("deployed without credentials, nothing is logged but the connection's problem, once per node at start: message errors go to the Catch nodes", async function () {
    await freshEditor();
    // What reaches the debug sidebar: the debug nodes' messages, and every error or warning logged by a node.
    await page.evaluate(() => {
      (window as any).tbDebug = [];
      RED.comms.subscribe('debug', (_topic: string, msg: any) =>
        (window as any).tbDebug.push({ id: msg.id, level: msg.level, msg: msg.msg }),
      );
    });
    for (const [i, ex] of EXAMPLES.entries()) await importDirectly(ex.label, i > 0);
    assert.deepEqual(
      (await state()).configs.filter((c) => !isDashboardConfig(c.type)).map((c) => [c.id, c.valid]),
      [[CONNECTION.id, false]],
      'one connection, without credentials',
    );
    await deployFromEditor();
    const s = await state();
    const debugOf = (z: string) => s.nodes.find((n) => n.z === z && n.type === 'debug' && n.name === 'error')!.id;
    const caught = (id: string) =>
      page.evaluate((d) => (window as any).tbDebug.filter((m: any) => m.id === d && m.level === undefined).length, id);

    // The connection reports its problem once, at start.
    await page.waitForFunction(
      (id) => (window as any).tbDebug.some((m: any) => m.id === id && m.level === 20),
      CONNECTION.id,
      { timeout: WAIT },
    );

    // Each inject (as its interval or its button would) sends a message to ThingsBoard nodes, which fail: each
    // failure reaches the Catch node of the tab. An inject that only stops a subscription fails nothing.
    const wires = new Map(s.nodes.map((n) => [n.id, [] as string[]]));
    const deployed: FlowNode[] = await admin('GET', '/flows');
    for (const n of deployed) if (wires.has(n.id)) wires.set(n.id, (n.wires || []).flat());
    const typeOf = new Map(s.nodes.map((n) => [n.id, n.type]));
    /** The ThingsBoard nodes a message from `id` reaches first (the ones that fail it). */
    const firstTb = (id: string): Set<string> => {
      const out = new Set<string>();
      const seen = new Set<string>();
      const queue = [...wires.get(id)!];
      while (queue.length) {
        const next = queue.shift()!;
        if (seen.has(next)) continue;
        seen.add(next);
        if (isTb(typeOf.get(next)!)) out.add(next);
        else queue.push(...(wires.get(next) || []));
      }
      return out;
    };
    let pressed = 0;
    for (const inj of deployed.filter((n) => n.type === 'inject')) {
      const onlyStops = (inj.props || []).some((p: any) => p.p === 'action' && p.v === 'unsubscribe');
      const failing = firstTb(inj.id);
      if (onlyStops || failing.size === 0) continue;
      const at = debugOf(inj.z);
      const reaches = async (n: number, what: string) => {
        await page
          .waitForFunction(
            ([d, k]) =>
              (window as any).tbDebug.filter((m: any) => m.id === d && m.level === undefined).length >= (k as number),
            [at, n] as const,
            { timeout: WAIT },
          )
          .catch(async () => {
            const logged = await page.evaluate(() =>
              (window as any).tbDebug.filter((m: any) => m.level !== undefined).map((m: any) => m.msg),
            );
            assert.fail(
              `inject "${inj.name}" ${what}: ${n} error(s) should reach the Catch node's debug node; ` +
                `got ${await caught(at)} (logged: ${JSON.stringify(logged)})`,
            );
          });
      };
      if (inj.once) await reaches(failing.size, 'at deploy'); // it fired at deploy already
      const before = await caught(at);
      await page.evaluate((id) => $.ajax({ url: `inject/${id}`, type: 'POST' }), inj.id);
      await reaches(before + failing.size, 'pressed');
      pressed++;
    }
    assert.ok(pressed >= 7, `${pressed} injects pressed`);

    // Logged: only the connection's configuration problem, once by the connection and at most once by a node
    // that reports it at start (a live node, which subscribes at deploy). Nothing logged for a message.
    const logged: Array<{ id: string; level: number; msg: string }> = await page.evaluate(() =>
      (window as any).tbDebug.filter((m: any) => m.level === 20),
    );
    const problem = logged.find((m) => m.id === CONNECTION.id)!.msg;
    const byNode = new Map<string, number>();
    for (const m of logged) {
      assert.equal(m.msg, problem, `${typeOf.get(m.id) || m.id} logged another error`);
      byNode.set(m.id, (byNode.get(m.id) || 0) + 1);
    }
    for (const [id, n] of byNode) assert.equal(n, 1, `${typeOf.get(id) || id} logged ${n} times`);
    for (const id of byNode.keys())
      assert.ok(id === CONNECTION.id || typeOf.get(id) === 'tb-subscribe', `${typeOf.get(id) || id} logged at start`);
  });
});
