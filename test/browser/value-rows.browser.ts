/**
 * The values of a save set in the dialog (issue 18) in a real editor (Debian chromium, the shared embedded Node-RED):
 * tb-attributes and tb-telemetry offer Values "msg.payload" or "set here"; set here, an editable list of rows (a key,
 * a TypedInput for the value and its type), shown only for a save; rows added are saved as the runtime reads them
 * and come back when the dialog is opened again; a repeated key is flagged in the runtime's words.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import { openDialog, topTray, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('values set in the dialog: tb-attributes, tb-telemetry (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-values-',
    ready: 'telV',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabV', x, y, wires: [] as string[][] });
      return [
        { id: 'tabV', type: 'tab', label: 'values' },
        simConnection('connV', sim.url),
        // Saved before rows existed: no valuesFrom, no values.
        { id: 'attrV', type: 'tb-attributes', connection: 'connV', version: 1, ...at(300, 60) },
        { id: 'telV', type: 'tb-telemetry', connection: 'connV', version: 1, ...at(300, 140) },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);
  const shown = async () => ({
    from: await visible('[data-tb-values-from]'),
    rows: await visible('[data-tb-value-rows]'),
  });

  async function save(): Promise<void> {
    await tray().locator('#node-dialog-ok').click();
    await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
  }

  /** Adds a row as a person would: the list's add button, the key typed, the value's type chosen, the value typed. */
  async function addRow(key: string, type: string, value: string): Promise<void> {
    const before = await tray().locator('[data-tb-value-row]').count();
    await tray().locator('[data-tb-value-rows] .red-ui-editableList-addButton').click();
    const row = tray().locator('[data-tb-value-row]').nth(before);
    await row.waitFor({ state: 'visible', timeout: WAIT });
    await row.locator('input[data-tb-value-key]').fill(key);
    await row.locator('input[data-tb-value-key]').press('Tab');
    if (type !== 'str') {
      await row.locator('.red-ui-typedInput-type-select').click();
      await page.locator(`.red-ui-typedInput-options:visible [value="${type}"]`).click();
    }
    // The TypedInput's own text box (the input it was made from is hidden).
    const box = row.locator('.red-ui-typedInput-container input.red-ui-typedInput-input');
    await box.fill(value);
    await box.press('Tab');
  }

  /** The rows the open dialog shows. */
  const rowsShown = () =>
    page.evaluate(() =>
      $('[data-tb-value-row]')
        .map((_: number, el: HTMLElement) => {
          const v = $(el).find('input[data-tb-value-value]');
          return {
            key: $(el).find('input[data-tb-value-key]').val(),
            type: v.typedInput('type'),
            value: v.typedInput('value'),
          };
        })
        .get(),
    );

  it('tb-attributes: two rows added, saved as the runtime reads them, kept on reopening; hidden for msg.payload and for a read', async function () {
    await openDialog(page, 'attrV');
    assert.deepEqual(await shown(), { from: true, rows: false }, 'msg.payload by default: no rows');
    assert.equal(await page.evaluate(() => $('#node-input-valuesFrom').val()), 'payload');
    await tray().locator('#node-input-valuesFrom').selectOption('rows');
    assert.deepEqual(await shown(), { from: true, rows: true });
    assert.equal(await visible('.tb-tip-rows'), true);
    assert.equal(await visible('.tb-tip-save'), false, 'the msg.payload tip is for msg.payload');
    await addRow('targetTemp', 'num', '21');
    await addRow('mode', 'str', '{{msg.mode}}');
    await tray().screenshot({ path: path.join(screenshotDir(), 'attributes-value-rows.png') });
    await save();
    const want = [
      { key: 'targetTemp', type: 'num', value: '21' },
      { key: 'mode', type: 'str', value: '{{msg.mode}}' },
    ];
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('attrV');
      return { valuesFrom: x.valuesFrom, values: x.values, valid: x.valid, changed: x.changed };
    });
    assert.deepEqual(n, { valuesFrom: 'rows', values: want, valid: true, changed: true });

    await openDialog(page, 'attrV');
    assert.deepEqual(await shown(), { from: true, rows: true });
    assert.deepEqual(await rowsShown(), want, 'the rows come back');
    await tray().locator('#node-input-valuesFrom').selectOption('payload');
    assert.deepEqual(await shown(), { from: true, rows: false });
    assert.equal(await visible('.tb-tip-save'), true);
    await tray().locator('#node-input-valuesFrom').selectOption('rows');
    await tray().locator('#node-input-operation').selectOption('read');
    assert.deepEqual(await shown(), { from: false, rows: false }, 'a read has no values');
    await tray().locator('#node-input-operation').selectOption('msg');
    assert.deepEqual(await shown(), { from: true, rows: true }, 'an operation set by the message may save');
  });

  it('tb-telemetry: the same list; a repeated key is marked and the node invalid in the runtime words; removing a row fixes it', async function () {
    await openDialog(page, 'telV');
    await tray().locator('#node-input-valuesFrom').selectOption('rows');
    await addRow('level', 'num', '3');
    await addRow('level', 'str', 'high');
    await page.waitForFunction(() => $('input[data-tb-value-key].input-error').length === 2, undefined, {
      timeout: WAIT,
    });
    const verdict = await page.evaluate(() => {
      const n = RED.nodes.node('telV');
      return n._def.defaults.values.validate.call(n, $('#node-input-values').val(), {});
    });
    assert.match(String(verdict), /values has the key "level" twice \(rows 1 and 2\): each key once/);
    await tray()
      .locator('[data-tb-value-row]')
      .nth(1)
      .locator('xpath=..')
      .locator('.red-ui-editableList-item-remove')
      .click();
    await page.waitForFunction(
      () => $('[data-tb-value-row]').length === 1 && $('input[data-tb-value-key].input-error').length === 0,
      undefined,
      { timeout: WAIT },
    );
    await save();
    const n = await page.evaluate(() => {
      const x = RED.nodes.node('telV');
      return { valuesFrom: x.valuesFrom, values: x.values, valid: x.valid };
    });
    assert.deepEqual(n, { valuesFrom: 'rows', values: [{ key: 'level', type: 'num', value: '3' }], valid: true });
    await openDialog(page, 'telV');
    await tray().locator('#node-input-operation').selectOption('latest');
    assert.deepEqual(await shown(), { from: false, rows: false });
  });
});
