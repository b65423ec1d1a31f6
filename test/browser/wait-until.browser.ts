/**
 * tb-wait-until's dialog in a real editor (Debian chromium, the shared embedded Node-RED, the simulator): a value
 * wait built with the entity picker, a key chip from the entity's own keys, a condition and a value, read back as a
 * sentence, saved and shown again as saved; the line under the target box says which entity is watched; an alarm
 * wait shows its own fields and hides the value's; a timeout of 0 warns, and a timeout that is not a duration is
 * flagged.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  checkTargetLine,
  chipsShown,
  closeTrays,
  keySuggestions,
  marked,
  openDialog,
  pickEntity,
  pickSuggestion,
  saveDialog,
  topTray,
  typeInto,
  verdict,
  WAIT,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-wait-until (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  const idOf = (name: string) => sim.data.mustFindByName('DEVICE' as never, name).id;

  const editor = useEditor({
    dir: 'tb-browser-wait-',
    ready: 'waitT',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabW', x, y, wires: [[], []] as string[][] });
      // As a node dropped from the palette is saved: the defaults of its html.
      const fresh = {
        connection: 'connW',
        target: '',
        targetType: 'auto',
        targetEntityType: 'DEVICE',
        waitFor: 'value',
        keyType: 'TIME_SERIES',
        key: '',
        operator: 'eq',
        value: '',
        valueType: 'str',
        alarmState: 'acknowledged',
        alarmType: '',
        listMode: 'all',
        checkCurrent: true,
        timeout: '30s',
        maxWaits: 1000,
        version: 1,
      };
      return [
        { id: 'tabW', type: 'tab', label: 'wait until' },
        simConnection('connW', sim.url),
        { id: 'waitV', type: 'tb-wait-until', ...fresh, ...at(400, 60) },
        { id: 'waitA', type: 'tb-wait-until', ...fresh, ...at(400, 140) },
        { id: 'waitL', type: 'tb-wait-until', ...fresh, ...at(700, 60) },
        // Saved by version 1 before most settings existed: the dialog shows what the migration gives them.
        { id: 'waitOld', type: 'tb-wait-until', connection: 'connW', key: 'humidity', version: 1, ...at(700, 140) },
        // Written by hand: only what it needs; the rest is what the runtime reads when a setting is missing.
        {
          id: 'waitT',
          type: 'tb-wait-until',
          connection: 'connW',
          key: 'temperature',
          operator: 'changes',
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
  /** Waits until the sentence reads `text`. */
  async function says(text: string): Promise<void> {
    try {
      await page.waitForFunction((s) => $('[data-tb-sentence]').text() === s, text, { timeout: WAIT });
    } catch {
      assert.equal(await page.evaluate(() => String($('[data-tb-sentence]').text())), text, 'the sentence');
    }
  }

  /** Types into the value's TypedInput box as a person would, after choosing its type. */
  async function typeValue(valueType: string, text: string): Promise<void> {
    await page.evaluate((ty) => $('#node-input-value').typedInput('type', ty), valueType);
    const box = tray().locator('[data-tb-row="value"] input.red-ui-typedInput-input');
    await box.fill(text);
    await box.press('Tab');
  }

  const keyEntry = () => tray().locator('[data-tb-chips="key"] input[data-tb-field="key"]');
  /** Which groups of rows show: the value's, its comparison value, the alarm's. */
  const rows = async () => ({
    keyType: await visible('[data-tb-row="keyType"]'),
    key: await visible('[data-tb-row="key"]'),
    operator: await visible('[data-tb-row="operator"]'),
    value: await visible('[data-tb-row="value"]'),
    alarmState: await visible('[data-tb-row="alarmState"]'),
    alarmType: await visible('[data-tb-row="alarmType"]'),
  });

  it('a value wait: entity by name, a key chip of its own keys, a condition, read as a sentence, saved and shown again', async function () {
    await openDialog(page, 'waitV');
    // A new node: a key and a value to fill in, within the default 30 s, the current value checked.
    await says('until (key) = (value) within 30 s');
    await marked(page, 'key', true);
    assert.match(String(await verdict(page, 'waitV', 'key')), /^Key: name the one time series/);
    await marked(page, 'value', true);
    assert.equal(await page.evaluate(() => $('#node-input-checkCurrent').prop('checked')), true);
    assert.equal(await page.evaluate(() => $('#node-input-maxWaits').val()), '1000');
    await tray().locator('#node-input-operator').selectOption('changes');
    assert.equal(await visible('[data-tb-row="value"]'), false, '"changes" compares with nothing');
    await marked(page, 'value', false);

    await pickEntity(page, 'DEVICE', 'A-101', 'Thermo A-101');
    await page.waitForFunction(() => $('[data-tb-keys-source]').attr('data-tb-keys-source') === 'entity', undefined, {
      timeout: WAIT,
    });
    // The entity's own time series; then its own client attributes when the key type says so.
    assert.deepEqual(await keySuggestions(page, 'key'), ['humidity', 'temperature']);
    await tray().locator('#node-input-keyType').selectOption('CLIENT_ATTRIBUTE');
    assert.deepEqual(await keySuggestions(page, 'key'), ['fw', 'note', 'serial']);
    await tray().locator('#node-input-keyType').selectOption('TIME_SERIES');
    await pickSuggestion(page, keyEntry(), 'hum', 'humidity');
    await says('until humidity changes within 30 s');
    await marked(page, 'key', false);
    // One key: a second chip replaces the first.
    await pickSuggestion(page, keyEntry(), 'temp', 'temperature');
    assert.deepEqual(await chipsShown(page, 'key'), ['temperature']);
    assert.equal(await page.evaluate(() => $('#node-input-key').val()), 'temperature');

    await tray().locator('#node-input-operator').selectOption('gte');
    assert.equal(await visible('[data-tb-row="value"]'), true);
    await typeValue('str', '21');
    // Numeric text compares as the number it stands for.
    await says('until temperature ≥ 21 within 30 s');
    await marked(page, 'value', false);
    await typeValue('num', '21');
    await typeInto(page, 'timeout', '30m');
    await says('until temperature ≥ 21 within 30 min');
    // A number compared with a text that is not one: the dialog says so.
    await typeValue('str', 'warm');
    await marked(page, 'value', true);
    assert.match(String(await verdict(page, 'waitV', 'value')), /compare numbers/);
    await typeValue('num', '21');
    await marked(page, 'value', false);
    // A JSONata condition takes an expression.
    await tray().locator('#node-input-operator').selectOption('jsonata');
    assert.equal(await page.evaluate(() => $('#node-input-value').typedInput('type')), 'jsonata');
    await tray().locator('#node-input-operator').selectOption('gte');
    await typeValue('num', '21');
    await says('until temperature ≥ 21 within 30 min');
    await tray().screenshot({ path: path.join(screenshotDir(), 'wait-until-value.png') });
    await saveDialog(page);

    const saved = () =>
      page.evaluate(() => {
        const x = RED.nodes.node('waitV');
        return {
          target: x.target,
          targetType: x.targetType,
          waitFor: x.waitFor,
          keyType: x.keyType,
          key: x.key,
          operator: x.operator,
          value: x.value,
          valueType: x.valueType,
          listMode: x.listMode,
          checkCurrent: x.checkCurrent,
          timeout: x.timeout,
          maxWaits: x.maxWaits,
          valid: x.valid,
          label: document.getElementById('waitV')?.querySelector('.red-ui-flow-node-label')?.textContent,
        };
      });
    const expected = {
      target: JSON.stringify({ entityType: 'DEVICE', id: idOf('Thermo A-101') }),
      targetType: 'json',
      waitFor: 'value',
      keyType: 'TIME_SERIES',
      key: 'temperature',
      operator: 'gte',
      value: '21',
      valueType: 'num',
      listMode: 'all',
      checkCurrent: true,
      timeout: '30m',
      maxWaits: 1000,
      valid: true,
      label: 'until temperature ≥ 21',
    };
    assert.deepEqual(await saved(), expected);

    // Opened again: the dialog shows what was saved, and saving it again changes nothing.
    await openDialog(page, 'waitV');
    await says('until temperature ≥ 21 within 30 min');
    await page.waitForFunction(() => $('[data-tb-field="target.id"]').val() === 'Thermo A-101', undefined, {
      timeout: WAIT,
    });
    assert.deepEqual(await chipsShown(page, 'key'), ['temperature']);
    assert.equal(await page.evaluate(() => $('#node-input-operator').val()), 'gte');
    assert.deepEqual(
      await page.evaluate(() => [
        $('#node-input-value').typedInput('type'),
        $('#node-input-value').typedInput('value'),
      ]),
      ['num', '21'],
    );
    assert.equal(await page.evaluate(() => $('#node-input-timeout').val()), '30m');
    await saveDialog(page);
    assert.deepEqual(await saved(), expected);
  });

  it('a node saved by version 1: the dialog shows its settings migrated, and saving writes version 3', async function () {
    await openDialog(page, 'waitOld');
    const shown = () =>
      page.evaluate(() => ({
        waitFor: $('#node-input-waitFor').val(),
        keyType: $('#node-input-keyType').val(),
        operator: $('#node-input-operator').val(),
        listMode: $('#node-input-listMode').val(),
        checkCurrent: $('#node-input-checkCurrent').prop('checked'),
        maxWaits: $('#node-input-maxWaits').val(),
        timeout: $('#node-input-timeout').val(),
      }));
    // A timeout version 1 lacked read msg.timeout (else 30 s): the migration leaves it empty, which says so.
    assert.deepEqual(await shown(), {
      waitFor: 'value',
      keyType: 'TIME_SERIES',
      operator: 'eq',
      listMode: 'all',
      checkCurrent: true,
      maxWaits: '1000',
      timeout: '',
    });
    await says('until humidity = (value) within msg.timeout (else 30 s)');
    await tray().locator('#node-input-operator').selectOption('changes');
    await saveDialog(page);
    const saved = await page.evaluate(() => {
      const x = RED.nodes.node('waitOld');
      return {
        version: x.version,
        timeout: x.timeout,
        maxWaits: x.maxWaits,
        checkCurrent: x.checkCurrent,
        valid: x.valid,
      };
    });
    assert.deepEqual(saved, { version: 3, timeout: '', maxWaits: '1000', checkCurrent: true, valid: true });
  });

  it('the entity line says which entity is watched, as configured (picked by name, a msg. property, the message)', async function () {
    await openDialog(page, 'waitL');
    await checkTargetLine(
      page,
      'The entity watched is',
      { entityType: 'DEVICE', typed: 'A-100', name: 'Meter A-100' },
      path.join(screenshotDir(), 'wait-until-entity-line.png'),
    );
    await closeTrays(page);
  });

  it('an alarm wait: its state and type shown, the value fields hidden, and the sentence says which alarm', async function () {
    await openDialog(page, 'waitA');
    assert.deepEqual(await rows(), {
      keyType: true,
      key: true,
      operator: true,
      value: true,
      alarmState: false,
      alarmType: false,
    });
    await tray().locator('#node-input-operator').selectOption('changes');
    assert.deepEqual(await rows(), {
      keyType: true,
      key: true,
      operator: true,
      value: false,
      alarmState: false,
      alarmType: false,
    });

    await tray().locator('#node-input-waitFor').selectOption('alarm');
    assert.deepEqual(await rows(), {
      keyType: false,
      key: false,
      operator: false,
      value: false,
      alarmState: true,
      alarmType: true,
    });
    assert.equal(await visible('[data-tb-tip="alarm"]'), true);
    assert.equal(await visible('[data-tb-tip="value"]'), false);
    await says('until the alarm of the message is acknowledged within 30 s');
    // Without a key, a value wait would be refused; an alarm wait needs none.
    await marked(page, 'key', false);
    await tray().locator('#node-input-alarmState').selectOption('either');
    // The alarm types of the server, suggested.
    await pickSuggestion(page, tray().locator('#node-input-alarmType'), 'High', 'High Temperature');
    await typeInto(page, 'timeout', '10m');
    await says('until the latest active High Temperature alarm is acknowledged or cleared within 10 min');
    // The value's settings are not checked while the node waits for an alarm.
    assert.equal(await verdict(page, 'waitA', 'value'), true);
    await tray().screenshot({ path: path.join(screenshotDir(), 'wait-until-alarm.png') });
    await saveDialog(page);
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('waitA');
      return {
        waitFor: x.waitFor,
        alarmState: x.alarmState,
        alarmType: x.alarmType,
        timeout: x.timeout,
        valid: x.valid,
      };
    });
    assert.deepEqual(n, {
      waitFor: 'alarm',
      alarmState: 'either',
      alarmType: 'High Temperature',
      timeout: '10m',
      valid: true,
    });

    await openDialog(page, 'waitA');
    assert.deepEqual(await rows(), {
      keyType: false,
      key: false,
      operator: false,
      value: false,
      alarmState: true,
      alarmType: true,
    });
    await says('until the latest active High Temperature alarm is acknowledged or cleared within 10 min');
  });

  it('the timeout: 0 warns that there is no limit, a bad duration is flagged, empty reads msg.timeout', async function () {
    await openDialog(page, 'waitT');
    // Missing: msg.timeout, else 30 s, as the runtime reads it.
    await says('until temperature changes within msg.timeout (else 30 s)');
    assert.equal(await visible('label[for="node-input-timeout"] .tb-from-msg'), true);
    assert.equal(await visible('[data-tb-tip="noLimit"]'), false);
    await typeInto(page, 'timeout', '0');
    await page.waitForFunction(() => $('[data-tb-tip="noLimit"]').is(':visible'), undefined, { timeout: WAIT });
    await says('until temperature changes with no time limit');
    await marked(page, 'timeout', false);
    assert.equal(
      await page.evaluate(() => $('[data-tb-tip="noLimit"]').text().trim()),
      'No time limit: a wait that is never met stays until msg.reset or a redeploy.',
    );
    await tray().screenshot({ path: path.join(screenshotDir(), 'wait-until-no-limit.png') });

    await typeInto(page, 'timeout', 'ten minutes');
    await marked(page, 'timeout', true);
    assert.match(String(await verdict(page, 'waitT', 'timeout')), /^Timeout must be a duration such as 90s, 10m or 2h/);
    assert.equal(await visible('[data-tb-tip="noLimit"]'), false);
    await typeInto(page, 'timeout', '90s');
    await marked(page, 'timeout', false);
    await says('until temperature changes within 90 s');
    // A number alone is ms.
    await typeInto(page, 'timeout', '120000');
    await says('until temperature changes within 2 min');
    await typeInto(page, 'timeout', '2h');
    await says('until temperature changes within 2 h');
    // Empty: the message's, marked with the envelope.
    await typeInto(page, 'timeout', '');
    await marked(page, 'timeout', false);
    await says('until temperature changes within msg.timeout (else 30 s)');
    assert.equal(await visible('label[for="node-input-timeout"] .tb-from-msg'), true);
  });
});
