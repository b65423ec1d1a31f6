/**
 * tb-alarm-action in a real editor (Debian chromium, the shared embedded Node-RED, the simulator): the dialog
 * shows what the chosen action needs, its pickers suggest from the deployed connection (users, the entity to
 * raise on, alarm types), it saves the properties of the message contract, and a deployed node acknowledges an
 * alarm from an inject, its status saying so.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import { marked, openDialog, pickSuggestion, saveDialog, topTray, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-alarm-action (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  let alarmId: string;

  const editor = useEditor({
    dir: 'tb-browser-action-',
    ready: 'actA',
    viewport: { width: 1500, height: 1300 },
    flows: () => {
      const simUrl = sim.url;
      // An active, unacknowledged alarm for the deployed node to acknowledge.
      alarmId = sim.data.alarms().find((a) => !a.acknowledged && !a.cleared && a.type === 'Device Offline')!.id;
      const at = (x: number, y: number) => ({ z: 'tabA', x, y });
      return [
        { id: 'tabA', type: 'tab', label: 'alarm action' },
        simConnection('connA', simUrl),
        {
          id: 'injA',
          type: 'inject',
          name: 'the alarm',
          props: [{ p: 'payload' }, { p: 'comment', v: 'seen in the browser test', vt: 'str' }],
          repeat: '',
          once: false,
          payload: alarmId,
          payloadType: 'str',
          ...at(140, 80),
          wires: [['actA']],
        },
        {
          id: 'actA',
          type: 'tb-alarm-action',
          name: '',
          connection: 'connA',
          operation: 'acknowledge',
          alarm: '',
          alarmType: 'auto',
          assignee: '',
          assigneeType: 'auto',
          comment: '',
          commentType: 'auto',
          originator: '',
          originatorType: 'auto',
          originatorEntityType: 'DEVICE',
          alarmName: '',
          severity: '',
          details: '',
          detailsType: 'auto',
          propagate: false,
          propagateToOwner: false,
          propagateToTenant: false,
          propagateRelationTypes: '',
          format: 'flat',
          strict: false,
          version: 1,
          ...at(380, 80),
          wires: [[]],
        },
        // Saved before "entity picked by name": the entity to raise on kept as JSON.
        {
          id: 'actOld',
          type: 'tb-alarm-action',
          connection: 'connA',
          operation: 'raise',
          originator: JSON.stringify({
            entityType: 'DEVICE',
            id: sim.data.mustFindByName('DEVICE' as never, 'Thermo A-102').id,
          }),
          originatorType: 'json',
          originatorEntityType: 'DEVICE',
          alarmName: 'High Temperature',
          severity: 'MAJOR',
          version: 1,
          ...at(380, 160),
          wires: [[]],
        },
        // Saved by version 1 with its connection only (a flow written by hand): the runtime reads the defaults.
        { id: 'actV1', type: 'tb-alarm-action', connection: 'connA', version: 1, ...at(380, 240), wires: [[]] },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);

  const openAction = () => openDialog(page, 'actA');

  const pick = (box: string, typed: string, option: string) => pickSuggestion(page, tray().locator(box), typed, option);

  it('a deployed node acknowledges the alarm an inject sends, with a comment, and says so', async function () {
    await page.evaluate(() => RED.nodes.node('injA') && $.ajax({ url: 'inject/injA', type: 'POST' }));
    await page.waitForFunction(
      () =>
        /acknowledged/.test(
          document.getElementById('actA')?.querySelector('.red-ui-flow-node-status-label')?.textContent || '',
        ),
      undefined,
      { timeout: WAIT },
    );
    const alarm = sim.data.getAlarm(alarmId)!;
    assert.equal(alarm.acknowledged, true);
  });

  it('shows what each action needs', async function () {
    await openAction();
    const rows = async () => ({
      alarm: await visible('.tb-row-alarm'),
      assignee: await visible('.tb-row-assignee'),
      comment: await visible('.tb-row-comment'),
      raise: await visible('.tb-row-raise'),
    });
    assert.deepEqual(await rows(), { alarm: true, assignee: false, comment: true, raise: false });
    await tray().locator('#node-input-operation').selectOption('assign');
    assert.deepEqual(await rows(), { alarm: true, assignee: true, comment: true, raise: false });
    await tray().locator('#node-input-operation').selectOption('delete');
    assert.deepEqual(await rows(), { alarm: true, assignee: false, comment: false, raise: false });
    await tray().locator('#node-input-operation').selectOption('raise');
    assert.deepEqual(await rows(), { alarm: false, assignee: false, comment: false, raise: true });
    await tray().locator('#node-input-operation').selectOption('msg');
    assert.deepEqual(await rows(), { alarm: true, assignee: true, comment: true, raise: true });
  });

  it('assign: suggests the users by e-mail; a fixed alarm must be an alarm id', async function () {
    await openAction();
    await tray().locator('#node-input-operation').selectOption('assign');
    await page.evaluate(() => $('#node-input-assignee').typedInput('type', 'str'));
    await pick(
      '#node-input-assignee + .red-ui-typedInput-container input.red-ui-typedInput-input',
      'tech',
      'tech@thingsboard.org',
    );
    assert.equal(await page.evaluate(() => $('#node-input-assignee').typedInput('value')), 'tech@thingsboard.org');
    await page.evaluate(() => {
      $('#node-input-alarm').typedInput('type', 'str');
      $('#node-input-alarm').typedInput('value', 'not-an-id');
    });
    await marked(page, 'alarm', true);
    await page.evaluate((id) => $('#node-input-alarm').typedInput('value', id), alarmId);
    await marked(page, 'alarm', false);
  });

  /** Chooses a type of the "Raise on" TypedInput with the mouse, from its menu. */
  async function chooseOriginatorType(type: string): Promise<void> {
    await tray()
      .locator('#node-input-originator + .red-ui-typedInput-container button.red-ui-typedInput-type-select')
      .click();
    const item = page.locator(`.red-ui-typedInput-options:visible a[value="${type}"]`);
    await item.waitFor({ state: 'visible', timeout: WAIT });
    await item.click();
    await page.waitForFunction((t) => $('#node-input-originator').typedInput('type') === t, type, { timeout: WAIT });
  }

  /**
   * What "Raise on" shows: its type's label, the TypedInput's own text box (raw JSON) or not, the picker, "Id is a",
   * and where the invalid mark is.
   */
  const originatorShown = () =>
    page.evaluate(() => {
      const box = $('#node-input-originator').next('.red-ui-typedInput-container');
      const name = $('[data-tb-field="originator.id"]');
      const probe = $('<div>')
        .css({ border: '1px solid var(--red-ui-form-input-border-error-color)' })
        .appendTo('.red-ui-editor');
      const red = getComputedStyle(probe[0]).borderTopColor;
      probe.remove();
      // The placeholder, measured in the box's own font, against the box's inner width (null: no name box shown).
      const ctx = document.createElement('canvas').getContext('2d')!;
      const style = name.length ? getComputedStyle(name[0]) : undefined;
      if (style) ctx.font = style.font;
      const fits = !name.is(':visible')
        ? null
        : !!style &&
          ctx.measureText(String(name.attr('placeholder'))).width <=
            name[0].clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return {
        label: box.find('.red-ui-typedInput-type-label').text().trim() as string,
        jsonBox: box.find('input.red-ui-typedInput-input').is(':visible') as boolean,
        picker: $('.tb-b-entity-json').is(':visible') as boolean,
        idIsA: $('.tb-row-raise-id').is(':visible') as boolean,
        nameMarked: name.length > 0 && getComputedStyle(name[0]).borderTopColor === red,
        typeMarked: getComputedStyle(box[0]).borderTopColor === red,
        fits,
      };
    });

  it('raise: the entity is picked by name, the alarm type suggested, and the properties saved as the message contract says', async function () {
    await openAction();
    await tray().locator('#node-input-operation').selectOption('raise');
    // Picked by name, as in the device actions: the picker alone, no raw JSON, no "Id is a"; the empty name box marked.
    await chooseOriginatorType('entity');
    await page.waitForFunction(() => $('#node-input-originator').hasClass('input-error'), undefined, { timeout: WAIT });
    assert.deepEqual(await originatorShown(), {
      label: 'entity picked by name',
      jsonBox: false,
      picker: true,
      idIsA: false,
      nameMarked: true,
      typeMarked: false,
      fits: true,
    });
    await tray().locator('[data-tb-field="originator.entityType"]').selectOption('DEVICE');
    await pick('[data-tb-field="originator.id"]', 'A-101', 'Thermo A-101');
    const thermo = sim.data.mustFindByName('DEVICE' as never, 'Thermo A-101').id;
    assert.deepEqual(JSON.parse(await page.evaluate(() => $('#node-input-originator').typedInput('value'))), {
      entityType: 'DEVICE',
      id: thermo,
    });
    await page.waitForFunction(() => !$('#node-input-originator').hasClass('input-error'), undefined, {
      timeout: WAIT,
    });
    assert.deepEqual(await originatorShown(), {
      label: 'entity picked by name',
      jsonBox: false,
      picker: true,
      idIsA: false,
      nameMarked: false,
      typeMarked: false,
      fits: true,
    });
    // JSON is there for the rest, typed by hand (it gets the entity picked); back on the picker, the entity is named.
    await chooseOriginatorType('json');
    assert.deepEqual(await originatorShown(), {
      label: '',
      jsonBox: true,
      picker: false,
      idIsA: false,
      nameMarked: false,
      typeMarked: false,
      fits: null,
    });
    assert.deepEqual(JSON.parse(await page.evaluate(() => $('#node-input-originator').typedInput('value'))), {
      entityType: 'DEVICE',
      id: thermo,
    });
    await chooseOriginatorType('entity');
    await page.waitForFunction(() => $('[data-tb-field="originator.id"]').val() === 'Thermo A-101', undefined, {
      timeout: WAIT,
    });
    await chooseOriginatorType('msg');
    assert.equal((await originatorShown()).idIsA, true, 'a bare id needs its type');
    await chooseOriginatorType('entity');
    await pick('#node-input-alarmName', 'High', 'High Temperature');
    await tray().locator('#node-input-severity').selectOption('MAJOR');
    await page.evaluate(() => {
      $('#node-input-details').typedInput('type', 'json');
      $('#node-input-details').typedInput('value', '{"temperature":31}');
    });
    await tray().locator('#node-input-propagateToOwner').check();
    await tray().screenshot({ path: path.join(screenshotDir(), 'alarm-action-raise.png') });
    await saveDialog(page);
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('actA');
      return {
        operation: x.operation,
        originator: x.originator,
        originatorType: x.originatorType,
        alarmName: x.alarmName,
        severity: x.severity,
        details: x.details,
        detailsType: x.detailsType,
        propagateToOwner: x.propagateToOwner,
        valid: x.valid,
      };
    });
    assert.deepEqual(n, {
      operation: 'raise',
      originator: JSON.stringify({ entityType: 'DEVICE', id: thermo }),
      originatorType: 'json',
      alarmName: 'High Temperature',
      severity: 'MAJOR',
      details: '{"temperature":31}',
      detailsType: 'json',
      propagateToOwner: true,
      valid: true,
    });
    await openAction();
    assert.equal((await originatorShown()).label, 'entity picked by name');
    await page.waitForFunction(() => $('[data-tb-field="originator.id"]').val() === 'Thermo A-101', undefined, {
      timeout: WAIT,
    });
  });

  it('raise saved before "entity picked by name": opens on the picker, the entity named, and is saved as it was', async function () {
    const props = () =>
      page.evaluate(() => {
        const x = RED.nodes.node('actOld');
        return {
          originator: x.originator,
          originatorType: x.originatorType,
          originatorEntityType: x.originatorEntityType,
          valid: x.valid,
        };
      });
    const before = await props();
    await openDialog(page, 'actOld');
    await page.waitForFunction(() => $('[data-tb-field="originator.id"]').val() === 'Thermo A-102', undefined, {
      timeout: WAIT,
    });
    assert.deepEqual(await originatorShown(), {
      label: 'entity picked by name',
      jsonBox: false,
      picker: true,
      idIsA: false,
      nameMarked: false,
      typeMarked: false,
      fits: true,
    });
    await tray().screenshot({ path: path.join(screenshotDir(), 'alarm-action-raise-old.png') });
    await saveDialog(page);
    assert.deepEqual(await props(), before);
    assert.equal(before.valid, true);
  });

  it('a node saved by version 1 with its connection only: the dialog shows what the runtime reads; saving writes version 2', async function () {
    await openDialog(page, 'actV1');
    const shown = await page.evaluate(() => ({
      operation: $('#node-input-operation').val(),
      alarmType: $('#node-input-alarmType').val(),
      commentType: $('#node-input-commentType').val(),
      originatorEntityType: $('#node-input-originatorEntityType').val(),
      format: $('#node-input-format').val(),
      strict: $('#node-input-strict').prop('checked'),
    }));
    assert.deepEqual(shown, {
      operation: 'acknowledge',
      alarmType: 'auto',
      commentType: 'auto',
      originatorEntityType: 'DEVICE',
      format: 'flat',
      strict: false,
    });
    await saveDialog(page);
    const saved = await page.evaluate(() => {
      const x = RED.nodes.node('actV1');
      return { version: x.version, operation: x.operation, format: x.format, strict: x.strict, valid: x.valid };
    });
    assert.deepEqual(saved, { version: 2, operation: 'acknowledge', format: 'flat', strict: false, valid: true });
  });
});
