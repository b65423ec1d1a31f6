/**
 * Values from the message in the query builder (issue 17), in a real editor: Debian chromium (playwright-core)
 * against the shared embedded Node-RED (test/browser/nodered.ts) and the simulator. A control switched to the
 * message becomes a chip (never raw braces), the summary names the binding, the dialog leaves a bound value to
 * run time and says what it must be, the preview asks for a value to try with and never sends a placeholder, and
 * a query with placeholders typed in the JSON view comes back from the builder byte for byte.
 *
 * The README's picture of it (builder-values-from-message.png) goes to screenshotDir() (see chromium.ts).
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Embedded } from '../../scripts/embedded';
import { Simulator } from '../../sim';
import { launchChromium, requireChromium, screenshotDir } from './chromium';
import { builderQuery, closeTrays as closeAll, openBuilder, runPreview, topTray, WAIT } from './editor-page';
import { simConnection } from './flows';
import { deployFlows, sharedNodeRed } from './nodered';

// Globals of the editor page, for the functions passed to page.evaluate / waitForFunction.
declare const RED: any;
declare const $: any;

describe('query builder: values from the message (browser)', function () {
  this.timeout(90000);

  let sim: Simulator;
  let simUrl: string;
  let nr: Embedded;
  let context: BrowserContext;
  let page: Page;
  let userDir: string;
  const pageErrors: string[] = [];
  /** The bodies of the preview requests the page sent. */
  const previews: string[] = [];

  function flows(): Array<Record<string, unknown>> {
    const at = (x: number, y: number) => ({ z: 'tabV', x, y, wires: [] as string[][] });
    return [
      { id: 'tabV', type: 'tab', label: 'values from the message' },
      simConnection('connV', simUrl),
      {
        id: 'eqV',
        type: 'tb-entity-query',
        name: 'find',
        connection: 'connV',
        operation: 'find',
        queryType: 'json',
        query: '',
        version: 1,
        ...at(200, 60),
      },
      {
        id: 'aqV',
        type: 'tb-alarm-query',
        name: 'alarms',
        connection: 'connV',
        operation: 'find',
        queryType: 'json',
        query: '',
        version: 1,
        ...at(200, 140),
      },
    ];
  }

  before(async function () {
    requireChromium();
    sim = new Simulator();
    simUrl = await sim.start();
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-bindings-'));
    ({ nr } = await sharedNodeRed());
    await deployFlows(nr, flows());
    ({ context, page } = await launchChromium(path.join(userDir, 'profile')));
    await page.setViewportSize({ width: 1500, height: 1500 });
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
    page.on('request', (r) => {
      if (/\/tb-connection\/[^/]+\/preview$/.test(r.url())) previews.push(r.postData() ?? '');
    });
    await page.goto(nr.url);
    await page.waitForFunction(
      () => typeof RED !== 'undefined' && RED.nodes && RED.nodes.node('eqV') && RED.nodes.dirty() === false,
      undefined,
      { timeout: 30000 },
    );
  });

  afterEach(async function () {
    await closeAll(page).catch(() => undefined);
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await deployFlows(nr, []).catch(() => undefined);
    await sim?.stop().catch(() => undefined);
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  // ---- helpers (the dialog's opener and preview: editor-page.ts) -----------------------------------------

  const tray = () => topTray(page);
  const hook = (name: string, value: string) => tray().locator(`[${name}="${value}"]`);

  const open = (id: string, query?: unknown) => openBuilder(page, id, query);
  // A query of the test, read field by field.
  const dialogQuery = async (): Promise<any> => builderQuery(page);

  const shown = (sel: string) => page.evaluate((s) => ($(s).is(':visible') ? $(s).text() : ''), sel);
  const errorText = () => shown('[data-tb-error]');
  const summaryText = () => shown('[data-tb-summary]');

  const preview = () => runPreview(page);

  /** Switches a control to the message and sets its source and path. */
  async function bind(field: string, source: string, property: string): Promise<void> {
    await hook('data-tb-bind', field).click();
    await hook('data-tb-binding', field).waitFor({ state: 'visible', timeout: WAIT });
    if (source !== 'msg') await hook('data-tb-bind-source', field).selectOption(source);
    await hook('data-tb-bind-path', field).fill(property);
  }

  // ---- tests -----------------------------------------------------------------------------------------------

  it('a control switched to the message: a chip, named in the summary, checked at run time, previewed with a value to try', async function () {
    await open('eqV', {
      entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo' },
      keyFilters: [
        {
          key: { type: 'TIME_SERIES', key: 'temperature' },
          valueType: 'NUMERIC',
          predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 0 } },
        },
      ],
      entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
      latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
      pageLink: { page: 0, pageSize: 10 },
    });
    await bind('entityFilter.entityNameFilter', 'msg', 'payload');
    await bind('keyFilters.0.predicate.value.defaultValue', 'flow', 'limit');
    await bind('pageLink.pageSize', 'msg', 'size');
    const q = await dialogQuery();
    assert.equal(q.entityFilter.entityNameFilter, '{{msg.payload}}');
    assert.equal(q.keyFilters[0].predicate.value.defaultValue, '{{flow.limit}}');
    assert.equal(q.pageLink.pageSize, '{{msg.size}}');
    // The chip holds the source and the path; no braces anywhere a person reads.
    assert.equal(await hook('data-tb-bind-source', 'pageLink.pageSize').inputValue(), 'msg');
    assert.equal(await hook('data-tb-bind-path', 'pageLink.pageSize').inputValue(), 'size');
    assert.equal(await hook('data-tb-field', 'pageLink.pageSize').count(), 0, 'the fixed control gave way to the chip');
    assert.ok(!(await tray().innerText()).includes('{{'), 'no raw braces shown');

    assert.match(
      await summaryText(),
      /^devices named ‹msg\.payload› where temperature > ‹flow\.limit›, first ‹msg\.size›/,
    );
    // A bound value is checked when a message comes: no dialog error, and the chip says what it must be.
    assert.equal(await errorText(), '');
    assert.match(await hook('data-tb-bound-needs', 'pageLink.pageSize').innerText(), /must be a positive integer/);
    assert.match(
      await hook('data-tb-bound-needs', 'keyFilters.0.predicate.value.defaultValue').innerText(),
      /must be a finite number/,
    );
    // The node's own check (its validate) agrees.
    assert.equal(
      await page.evaluate(() =>
        (window as any).TbBuilder.validateText('entityData', $('#node-input-query').typedInput('value')),
      ),
      true,
    );

    // Preview: one "try with" box per binding; a missing one sends nothing.
    const sent = previews.length;
    for (const ref of ['msg.payload', 'flow.limit', 'msg.size'])
      await hook('data-tb-try', ref).waitFor({ state: 'visible', timeout: WAIT });
    assert.equal(await hook('data-tb-try-type', 'msg.size').inputValue(), 'num');
    await hook('data-tb-try-value', 'msg.payload').fill('Thermo');
    let p = await preview();
    assert.equal(p.state, 'error');
    assert.match(p.text, /Give a value to try flow\.limit with/);
    assert.equal(previews.length, sent, 'nothing sent');

    await hook('data-tb-try-type', 'flow.limit').selectOption('num');
    await hook('data-tb-try-value', 'flow.limit').fill('20');
    await hook('data-tb-try-value', 'msg.size').fill('2');
    p = await preview();
    assert.equal(p.state, 'rows', p.text);
    assert.match(p.text, /First 2 of 2 on this page/);
    assert.equal(previews.length, sent + 1);
    const body = JSON.parse(previews[previews.length - 1]);
    assert.ok(!previews[previews.length - 1].includes('{{'), 'no placeholder sent');
    assert.equal(body.query.entityFilter.entityNameFilter, 'Thermo');
    assert.equal(body.query.pageLink.pageSize, 2);
    assert.equal(body.query.keyFilters[0].predicate.value.defaultValue, 20);

    await tray().screenshot({ path: path.join(screenshotDir(), 'builder-values-from-message.png') });

    // Back to a fixed value: the one it had before.
    await hook('data-tb-binding', 'pageLink.pageSize').locator('[data-tb-action="unbind"]').click();
    await hook('data-tb-field', 'pageLink.pageSize').waitFor({ state: 'visible', timeout: WAIT });
    assert.equal((await dialogQuery()).pageLink.pageSize, 10);
    assert.doesNotMatch(await summaryText(), /msg\.size/);
  });

  it('JSON round trip: a query with placeholders typed in the JSON view comes back from the builder byte for byte', async function () {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      [
        'eqV',
        {
          entityFilter: {
            type: 'deviceType',
            deviceTypes: ['{{msg.profile}}', 'thermostat'],
            deviceNameFilter: 'Thermo {{msg.site}}%',
          },
          keyFilters: [
            {
              key: { type: 'TIME_SERIES', key: 'temperature' },
              valueType: 'NUMERIC',
              predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: '{{ flow.limit }}' } },
            },
          ],
          entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          latestValues: [],
          pageLink: {
            page: '{{env.PAGE}}',
            pageSize: '{{msg.size}}',
            textSearch: '{{foo}} stays text',
            sortOrder: { key: { type: 'ENTITY_FIELD', key: '{{global.sortKey}}' }, direction: 'ASC' },
          },
        },
        [
          'keyFilters.0.predicate.value.defaultValue',
          'pageLink.page',
          'pageLink.pageSize',
          'pageLink.sortOrder.key.key',
        ],
      ],
      [
        'aqV',
        {
          entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: '{{msg.deviceId}}' } },
          keyFilters: [],
          alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
          pageLink: {
            page: 0,
            pageSize: 10,
            statusList: '{{msg.statuses}}',
            severityList: ['CRITICAL', '{{msg.severity}}'],
            typeList: '{{msg.types}}',
            assigneeId: { entityType: 'USER', id: '{{msg.user}}' },
            timeWindow: '{{flow.window}}',
          },
        },
        [
          'entityFilter.singleEntity.id',
          'pageLink.statusList',
          'pageLink.typeList',
          'pageLink.assigneeId.id',
          'pageLink.timeWindow',
        ],
      ],
    ];
    for (const [id, query, chips] of cases) {
      await open(id);
      const text = JSON.stringify(query, null, 2);
      await tray().locator('[data-tb-view="json"]').click();
      await tray().locator('[data-tb-json] .red-ui-editor-text-container').waitFor({ state: 'visible', timeout: WAIT });
      await page.evaluate((t) => $('[data-tb-json]').data('tb-editor').setValue(t), text);
      await page.waitForFunction(
        (t) => $('#node-input-query').typedInput('value') === JSON.stringify(JSON.parse(t)),
        text,
        { timeout: WAIT },
      );
      // The editor's own JSON checking takes the placeholders (a value from the message is no typing error). Asked
      // of its worker for the text now in the editor: the answer its marks are made from.
      const marks: string[] = await page.evaluate(async () => {
        const model = $('[data-tb-json]').data('tb-editor').getModel();
        const worker = await (await (window as any).monaco.languages.json.getWorker())(model.uri);
        const found: Array<{ range: { start: { line: number } }; message: string }> = await worker.doValidation(
          model.uri.toString(),
        );
        return found.map((d) => `${d.range.start.line + 1}: ${d.message}`);
      });
      assert.deepEqual(marks, [], `${id}: no schema warning`);
      await tray().locator('[data-tb-view="builder"]').click();
      for (const f of chips) assert.equal(await hook('data-tb-binding', f).count(), 1, `chip ${f}`);
      assert.ok(
        !(await tray().locator('[data-tb-builder]').innerText()).includes('{{msg.'),
        'no raw placeholder in the builder',
      );
      await tray().locator('[data-tb-view="json"]').click();
      const back = await page.evaluate(() => $('[data-tb-json]').data('tb-editor').getValue());
      assert.equal(back, text, `${id}: the JSON view shows the query as typed`);
      assert.equal(await page.evaluate(() => $('#node-input-query').typedInput('value')), JSON.stringify(query));
      await closeAll(page);
    }
  });
});
