/**
 * What the editor walk of issue 18 tripped over in the query dialogs, in a real editor (Debian chromium,
 * playwright-core) against the shared embedded Node-RED and the simulator:
 * - the builder/JSON choice belongs to each node (a node's choice does not carry over to the next one);
 * - an alarm query survives switching between Count and Find (filter, alarm filter and key filters kept; a count
 *   has no page or columns, a find gets its defaults back);
 * - the preview says when only the conditions (key filters) exclude what the filter selects.
 */
import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { openDialog, runPreview, topTray, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

// Globals of the editor page, for the functions passed to page.evaluate / waitForFunction.
declare const RED: any;
declare const $: any;

const THERMOSTATS = { type: 'deviceType', deviceTypes: ['thermostat'] };
/** A condition no thermostat meets (the simulator's temperatures are around 20 °C). */
const TOO_HOT = [
  {
    key: { type: 'TIME_SERIES', key: 'temperature' },
    valueType: 'NUMERIC',
    predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 1000 } },
  },
];

describe('query dialogs after the walk (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-walk-',
    ready: 'aqW',
    viewport: { width: 1500, height: 1200 },
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabW', x, y, wires: [] as string[][] });
      const node = (id: string, type: string, extra: Record<string, unknown>) => ({
        id,
        type,
        connection: 'connW',
        queryType: 'json',
        query: '',
        version: 1,
        ...extra,
      });
      const paged = { format: 'flat', allPages: false, maxItems: 10000, split: false };
      return [
        { id: 'tabW', type: 'tab', label: 'walk' },
        simConnection('connW', sim.url),
        node('eqA', 'tb-entity-query', { name: 'A', operation: 'find', ...paged, ...at(200, 60) }),
        node('eqB', 'tb-entity-query', { name: 'B', operation: 'find', ...paged, ...at(200, 140) }),
        node('ecW', 'tb-entity-count', { name: 'count', ...at(200, 220) }),
        node('aqW', 'tb-alarm-query', { name: 'alarms', operation: 'count', ...paged, ...at(200, 300) }),
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const shown = (sel: string) => page.evaluate((s) => ($(s).is(':visible') ? $(s).text() : ''), sel);
  const errorText = () => shown('[data-tb-error]');
  async function dialogQuery(): Promise<any> {
    return JSON.parse(await page.evaluate(() => $('#node-input-query').typedInput('value')));
  }
  /** Opens a node's dialog as a person would (no view forced), with `query` when given. */
  async function open(id: string, query?: unknown, props: Record<string, unknown> = {}): Promise<void> {
    await openDialog(page, id, {
      props: query === undefined ? props : { ...props, query: JSON.stringify(query) },
      ready: '[data-tb-view="json"]',
    });
  }
  async function done(): Promise<void> {
    await tray().locator('#node-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
  }
  /** The view the open dialog shows: 'builder' or 'json'. */
  const view = () =>
    page.evaluate(() =>
      $('[data-tb-builder]').is(':visible')
        ? 'builder'
        : $('.tb-b-json:visible, [data-tb-json]:visible').length
          ? 'json'
          : 'none',
    );
  const selected = () => page.evaluate(() => $('[data-tb-view].selected').attr('data-tb-view'));
  async function setOperation(op: string): Promise<void> {
    await tray().locator('#node-input-operation').selectOption(op);
  }

  it("the builder/JSON choice is each node's own: A in JSON leaves B in the builder, and A opens in JSON again", async function () {
    await open('eqA');
    assert.equal(await view(), 'builder', 'a new query opens in the builder');
    await tray().locator('[data-tb-view="json"]').click();
    assert.deepEqual([await view(), await selected()], ['json', 'json']);
    await done();
    await open('eqB');
    assert.deepEqual([await view(), await selected()], ['builder', 'builder'], "A's choice does not carry over to B");
    await done();
    await open('eqA');
    assert.deepEqual([await view(), await selected()], ['json', 'json'], 'A keeps its own choice');
    await tray().locator('[data-tb-view="builder"]').click();
    await done();
    await open('eqA');
    assert.equal(await view(), 'builder');
    await done();
    // Nothing chosen yet: a query typed as JSON with a field the builder has no control for opens in JSON.
    const dashboardValue = [
      { ...TOO_HOT[0], predicate: { ...TOO_HOT[0].predicate, value: { defaultValue: 1000, userValue: 900 } } },
    ];
    await open('ecW', { entityFilter: THERMOSTATS, keyFilters: dashboardValue });
    assert.equal(await view(), 'json', 'the builder cannot show userValue');
    await done();
    await open('ecW', { entityFilter: THERMOSTATS, keyFilters: TOO_HOT });
    assert.equal(await view(), 'builder', 'the builder shows all of it');
  });

  it('Count → Find → Count → Find: the alarm query keeps its filter, alarm filter and conditions; a find gets a page', async function () {
    // The walk: a count of every active alarm, one severity ticked, then Find.
    await open('aqW', { keyFilters: [], statusList: ['ACTIVE'] });
    await tray().locator('[data-tb-field="severityList"][data-tb-value="CRITICAL"]').check();
    await setOperation('find');
    let q = await dialogQuery();
    assert.equal(await errorText(), '', 'no error after Count → Find');
    assert.deepEqual(
      q.entityFilter,
      { type: 'entityType', entityType: 'DEVICE' },
      'a find needs an entity filter: the default one',
    );
    assert.equal(await tray().locator('[data-tb-field="entityFilter.type"]').first().inputValue(), 'entityType');
    assert.deepEqual(q.pageLink.statusList, ['ACTIVE']);
    assert.deepEqual(q.pageLink.severityList, ['CRITICAL']);
    assert.equal(q.pageLink.pageSize, 100);
    assert.deepEqual(q.pageLink.sortOrder, { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' });
    assert.ok(Array.isArray(q.alarmFields) && q.alarmFields.length > 0, 'alarm columns');
    await done();

    // A count with its own filter and a condition: both directions keep them.
    const count = { entityFilter: THERMOSTATS, keyFilters: TOO_HOT, statusList: ['ACTIVE'], severityList: ['MAJOR'] };
    await open('aqW', count, { operation: 'count' });
    await setOperation('find');
    q = await dialogQuery();
    assert.equal(await errorText(), '');
    assert.deepEqual(q.entityFilter, THERMOSTATS);
    assert.deepEqual(q.keyFilters, TOO_HOT);
    assert.deepEqual(
      [q.pageLink.statusList, q.pageLink.severityList, q.pageLink.pageSize],
      [['ACTIVE'], ['MAJOR'], 100],
    );
    // The page is changed in Find, then Count drops page and columns, and Find has them back as they were.
    await tray().locator('[data-tb-field="pageLink.pageSize"]').fill('7');
    await tray().locator('[data-tb-field="pageLink.pageSize"]').dispatchEvent('change');
    await setOperation('count');
    q = await dialogQuery();
    assert.equal(await errorText(), '');
    assert.deepEqual(q, count, 'a count has no page or columns');
    await setOperation('find');
    q = await dialogQuery();
    assert.equal(q.pageLink.pageSize, 7, 'the page as it was before the count');
    assert.deepEqual([q.entityFilter, q.keyFilters, q.pageLink.severityList], [THERMOSTATS, TOO_HOT, ['MAJOR']]);
    await done();
    const saved = await page.evaluate(() => ({
      op: RED.nodes.node('aqW').operation,
      valid: RED.nodes.node('aqW').valid,
      errors: RED.nodes.node('aqW').validationErrors ?? [],
    }));
    assert.deepEqual(saved, { op: 'find', valid: true, errors: [] });
  });

  it('preview: "no match for the conditions" says how many the filter selects alone; "no match" when there are none', async function () {
    await open('eqB', { entityFilter: THERMOSTATS, keyFilters: TOO_HOT, pageLink: { page: 0, pageSize: 10 } });
    let p = await runPreview(page);
    assert.equal(p.state, 'empty');
    assert.equal(p.text, 'No match for the conditions (Only where); 20 devices match the filter alone.');
    await done();
    await open('eqB', {
      entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A-101' },
      keyFilters: TOO_HOT,
      pageLink: { page: 0, pageSize: 10 },
    });
    p = await runPreview(page);
    assert.equal(p.text, 'No match for the conditions (Only where); 1 device matches the filter alone.');
    await done();
    await open('eqB', {
      entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Nothing like this' },
      keyFilters: TOO_HOT,
      pageLink: { page: 0, pageSize: 10 },
    });
    p = await runPreview(page);
    assert.equal(p.text, 'No match: nothing the query selects exists on the server.');
    await done();
    await open(
      'aqW',
      { entityFilter: THERMOSTATS, keyFilters: TOO_HOT, statusList: ['ACTIVE'] },
      { operation: 'count' },
    );
    p = await runPreview(page);
    assert.equal(p.state, 'count');
    assert.match(p.text, /^0No match for the conditions \(Only where\); \d+ alarms? match(es)? the filter alone\.$/);
  });

  it("the palette's tooltip of alarm query says it also counts alarms", async function () {
    await page.locator('.red-ui-palette-node[data-palette-type="tb-alarm-query"]').hover();
    const tip = page.locator('.red-ui-popover:visible').last();
    await tip.waitFor({ state: 'visible', timeout: WAIT });
    assert.match(
      (await tip.innerText()).replace(/\s+/g, ' '),
      /^alarm query Finds or counts ThingsBoard alarms .*count alarms/,
    );
    await page.mouse.move(0, 0);
  });
});
