/**
 * In a real editor (Debian chromium, the shared embedded Node-RED, the simulator): tb-rpc's Params setting (the
 * select, the fixed JSON checked as the runtime does, the summary line for each choice, saved and reloaded), and the
 * fixed entity of tb-telemetry, tb-attributes and tb-rpc as a TypedInput type of its own ("… picked by name"):
 * picked by name it is kept as JSON as before, and an entity kept as JSON by an older flow opens on the picker;
 * with no entity picked yet its placeholder fits the name box and the name box (not the type box) is marked; and
 * tb-rpc's device line says which device, as configured.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import { closeTrays, openDialog, pickSuggestion, saveDialog, topTray, verdict as verdictIn, WAIT } from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-rpc Params, and the entity picked by name (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  const idOf = (name: string) => sim.data.mustFindByName('DEVICE' as never, name).id;

  const editor = useEditor({
    dir: 'tb-browser-rpc-params-',
    ready: 'rpcList',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabP', x, y, wires: [] as string[][] });
      const a102 = JSON.stringify({ entityType: 'DEVICE', id: idOf('Thermo A-102') });
      return [
        { id: 'tabP', type: 'tab', label: 'params' },
        simConnection('connP', sim.url),
        // Saved before the Params setting and the picker's own type: no paramsFrom, no params.
        {
          id: 'rpcP',
          type: 'tb-rpc',
          connection: 'connP',
          method: 'setGpio',
          methodType: 'str',
          version: 1,
          ...at(400, 60),
        },
        { id: 'telP', type: 'tb-telemetry', connection: 'connP', version: 1, ...at(400, 140) },
        { id: 'attrP', type: 'tb-attributes', connection: 'connP', version: 1, ...at(400, 220) },
        // An entity kept as JSON by an older flow, in each dialog; and a list, which stays JSON.
        {
          id: 'rpcOld',
          type: 'tb-rpc',
          connection: 'connP',
          target: a102,
          targetType: 'json',
          version: 1,
          ...at(700, 60),
        },
        {
          id: 'telOld',
          type: 'tb-telemetry',
          connection: 'connP',
          target: a102,
          targetType: 'json',
          version: 1,
          ...at(700, 140),
        },
        {
          id: 'attrOld',
          type: 'tb-attributes',
          connection: 'connP',
          target: a102,
          targetType: 'json',
          version: 1,
          ...at(700, 220),
        },
        {
          id: 'rpcList',
          type: 'tb-rpc',
          connection: 'connP',
          target: `[${a102}]`,
          targetType: 'json',
          version: 1,
          ...at(700, 300),
        },
        // Fresh, for the empty picker of each dialog that shares the device target, and for tb-rpc's device line.
        { id: 'telE', type: 'tb-telemetry', connection: 'connP', version: 1, ...at(1000, 60) },
        { id: 'attrE', type: 'tb-attributes', connection: 'connP', version: 1, ...at(1000, 140) },
        { id: 'rpcE', type: 'tb-rpc', connection: 'connP', version: 1, ...at(1000, 220) },
        { id: 'waitE', type: 'tb-wait-until', connection: 'connP', version: 1, ...at(1000, 300) },
        {
          id: 'rpcT',
          type: 'tb-rpc',
          connection: 'connP',
          method: 'setGpio',
          methodType: 'str',
          version: 1,
          ...at(1000, 380),
        },
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);
  const summaryText = () => page.evaluate(() => $('[data-tb-summary]').text() as string);

  const save = () => saveDialog(page);
  const verdict = (id: string, prop: string) => verdictIn(page, id, prop);

  /** Types fixed params into the JSON box as a person would. */
  async function typeParams(text: string): Promise<void> {
    const box = tray()
      .locator('#node-input-params')
      .locator('xpath=following-sibling::div[contains(@class,"red-ui-typedInput-container")]')
      .locator('input.red-ui-typedInput-input');
    await box.fill(text);
    await box.press('Tab');
  }

  /** Chooses a type of the target TypedInput with the mouse, from its menu; returns the menu item's label and icon. */
  async function chooseTargetType(type: string): Promise<{ label: string; icon: boolean }> {
    await tray()
      .locator('#node-input-target + .red-ui-typedInput-container button.red-ui-typedInput-type-select')
      .click();
    const item = page.locator(`.red-ui-typedInput-options:visible a[value="${type}"]`);
    await item.waitFor({ state: 'visible', timeout: WAIT });
    const shown = {
      label: (await item.textContent())!.trim(),
      icon: (await item.locator('i.fa-crosshairs').count()) === 1,
    };
    await item.click();
    await page.waitForFunction((t) => $('#node-input-target').typedInput('type') === t, type, { timeout: WAIT });
    return shown;
  }

  const targetState = () =>
    page.evaluate(() => ({
      type: $('#node-input-target').typedInput('type') as string,
      kept: $('#node-input-targetType').val() as string,
      label: $('#node-input-target + .red-ui-typedInput-container .red-ui-typedInput-type-label').text() as string,
      picker: $('.tb-b-entity-json').is(':visible') as boolean,
    }));

  it('tb-rpc Params: the select and fixed JSON, checked as the runtime does; the summary line says where params come from; saved and reloaded', async function () {
    await openDialog(page, 'rpcP');
    // A node saved before the setting reads msg.payload, as it did.
    assert.equal(await tray().locator('[data-tb-params-from]').inputValue(), 'payload');
    assert.equal(await visible('.tb-row-params'), false);
    assert.equal(await summaryText(), 'Sends "setGpio"; params from msg.payload.');

    await tray().locator('[data-tb-params-from]').selectOption('json');
    assert.equal(await visible('.tb-row-params'), true);
    assert.equal(await page.evaluate(() => $('[data-tb-params]').typedInput('type')), 'json', 'a JSON editor');
    await typeParams('{"pin": 7,');
    assert.match(
      String(await verdict('rpcP', 'params')),
      /^params is not valid JSON \(e\.g\. \{"pin": 7, "value": 1\}\): /,
    );
    assert.equal(await summaryText(), 'Sends "setGpio"; params: (not valid JSON yet).');
    await typeParams('{"pin": 7, "value": 1}');
    assert.equal(await verdict('rpcP', 'params'), true);
    assert.equal(await summaryText(), 'Sends "setGpio"; params: {"pin":7,"value":1}.');
    await chooseTargetType('entity');
    await tray().screenshot({ path: path.join(screenshotDir(), 'rpc-params.png') });
    await chooseTargetType('auto');

    await tray().locator('[data-tb-params-from]').selectOption('none');
    assert.equal(await visible('.tb-row-params'), false);
    assert.equal(await summaryText(), 'Sends "setGpio"; no params.');
    assert.equal(await verdict('rpcP', 'params'), true, 'the JSON is not used: not checked');

    // The method's source shows too.
    await page.evaluate(() => $('#node-input-method').typedInput('type', 'auto'));
    assert.equal(await summaryText(), 'Sends the method in msg.method, else msg.topic; no params.');
    await page.evaluate(() => $('#node-input-method').typedInput('type', 'str'));
    await page.evaluate(() => $('#node-input-method').typedInput('value', 'setGpio'));

    await tray().locator('[data-tb-params-from]').selectOption('json');
    await save();
    const saved = await page.evaluate(() => {
      const n = RED.nodes.node('rpcP');
      return { paramsFrom: n.paramsFrom, params: n.params, valid: n.valid };
    });
    assert.deepEqual(saved, { paramsFrom: 'json', params: '{"pin": 7, "value": 1}', valid: true });

    await openDialog(page, 'rpcP');
    assert.equal(await tray().locator('[data-tb-params-from]').inputValue(), 'json');
    assert.equal(await visible('.tb-row-params'), true);
    assert.equal(await page.evaluate(() => $('[data-tb-params]').typedInput('value')), '{"pin": 7, "value": 1}');
    assert.equal(await summaryText(), 'Sends "setGpio"; params: {"pin":7,"value":1}.');
    await tray().locator('[data-tb-params-from]').selectOption('none');
    await save();
    assert.equal(await page.evaluate(() => RED.nodes.node('rpcP').paramsFrom), 'none');
    await openDialog(page, 'rpcP');
    assert.equal(await summaryText(), 'Sends "setGpio"; no params.');
  });

  for (const [id, oldId, label] of [
    ['telP', 'telOld', 'entity picked by name'],
    ['attrP', 'attrOld', 'entity picked by name'],
    ['rpcP', 'rpcOld', 'device picked by name'],
  ] as const) {
    it(`${id.replace(/P$/, '')}: "${label}" is a type of its own; picking by name keeps the entity as JSON; an older JSON entity opens on it`, async function () {
      await openDialog(page, id);
      const before = await targetState();
      assert.deepEqual([before.type, before.kept, before.picker], ['auto', 'auto', false]);
      assert.deepEqual(await chooseTargetType('entity'), { label, icon: true });
      assert.deepEqual(await targetState(), { type: 'entity', kept: 'json', label, picker: true });
      await tray().locator('[data-tb-field="target.entityType"]').selectOption('DEVICE');
      await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'A-101', 'Thermo A-101');
      const a101 = JSON.stringify({ entityType: 'DEVICE', id: idOf('Thermo A-101') });
      assert.equal(await page.evaluate(() => $('#node-input-target').typedInput('value')), a101);
      assert.equal(await verdict(id, 'target'), true);

      // JSON is there for the rest: it gets the entity picked, to edit by hand; back on the picker, it is shown.
      await chooseTargetType('json');
      const json = await targetState();
      assert.deepEqual([json.type, json.kept, json.picker], ['json', 'json', false]);
      assert.equal(await page.evaluate(() => $('#node-input-target').typedInput('value')), a101);
      await chooseTargetType('entity');
      await page.waitForFunction(() => $('[data-tb-field="target.id"]').val() === 'Thermo A-101', undefined, {
        timeout: WAIT,
      });

      await save();
      assert.deepEqual(
        await page.evaluate((nodeId) => {
          const n = RED.nodes.node(nodeId);
          return { target: n.target, targetType: n.targetType, valid: n.valid };
        }, id),
        { target: a101, targetType: 'json', valid: true },
        'kept as the runtime reads it',
      );
      await openDialog(page, id);
      assert.deepEqual(await targetState(), { type: 'entity', kept: 'json', label, picker: true });
      await page.waitForFunction(() => $('[data-tb-field="target.id"]').val() === 'Thermo A-101', undefined, {
        timeout: WAIT,
      });
      await closeTrays(page);

      // Kept as JSON by an older flow: opens on the picker, the device named.
      await openDialog(page, oldId);
      assert.deepEqual(await targetState(), { type: 'entity', kept: 'json', label, picker: true });
      await page.waitForFunction(() => $('[data-tb-field="target.id"]').val() === 'Thermo A-102', undefined, {
        timeout: WAIT,
      });
      await save();
      assert.deepEqual(
        await page.evaluate((nodeId) => {
          const n = RED.nodes.node(nodeId);
          return { targetType: n.targetType, target: JSON.parse(n.target) };
        }, oldId),
        { targetType: 'json', target: { entityType: 'DEVICE', id: idOf('Thermo A-102') } },
        'unchanged by opening and saving',
      );
    });
  }

  /**
   * The picker's name box as the eye sees it: does its placeholder fit (text width, measured in the box's own font,
   * against the box's inner width), and which of it and the TypedInput's box carries the invalid mark's colour.
   */
  const pickerLook = () =>
    page.evaluate(() => {
      const name = $('[data-tb-field="target.id"]')[0] as HTMLInputElement;
      const box = $('#node-input-target').next('.red-ui-typedInput-container')[0] as HTMLElement;
      const style = getComputedStyle(name);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = style.font;
      const room = name.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const probe = $('<div>')
        .css({ border: '1px solid var(--red-ui-form-input-border-error-color)' })
        .appendTo('.red-ui-editor');
      const red = getComputedStyle(probe[0]).borderTopColor;
      probe.remove();
      return {
        placeholder: name.placeholder,
        fits: ctx.measureText(name.placeholder).width <= room,
        nameMarked: getComputedStyle(name).borderTopColor === red,
        typeMarked: getComputedStyle(box).borderTopColor === red,
      };
    });

  for (const id of ['telE', 'attrE', 'rpcE', 'waitE']) {
    it(`${id.replace(/E$/, '')}: picked by name with no entity yet, the placeholder fits the name box, which (not the type box) is marked`, async function () {
      await openDialog(page, id);
      await chooseTargetType('entity');
      await page.waitForFunction(() => $('#node-input-target').hasClass('input-error'), undefined, { timeout: WAIT });
      const empty = await pickerLook();
      assert.deepEqual(
        empty,
        { placeholder: empty.placeholder, fits: true, nameMarked: true, typeMarked: false },
        `placeholder "${empty.placeholder}"`,
      );
      assert.match(empty.placeholder, /name.*id/, 'says what to type');
      if (id === 'rpcE') await tray().screenshot({ path: path.join(screenshotDir(), 'rpc-picked-empty.png') });
      await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'A-101', 'Thermo A-101');
      await page.waitForFunction(() => !$('#node-input-target').hasClass('input-error'), undefined, { timeout: WAIT });
      assert.deepEqual(await pickerLook(), { ...empty, nameMarked: false });
      // Another type has a value of its own: the mark is the TypedInput's again.
      await chooseTargetType('msg');
      await page.evaluate(() => $('#node-input-target').typedInput('value', ''));
      await page.waitForFunction(() => $('#node-input-target').hasClass('input-error'), undefined, { timeout: WAIT });
      assert.equal((await pickerLook()).typeMarked, true);
      await closeTrays(page);
    });
  }

  it('tb-rpc: the device line says which device, as configured (the message, picked by name, JSON, msg., JSONata)', async function () {
    const line = () => page.evaluate(() => $('[data-tb-target-tip]').text() as string);
    const lineIs = (re: RegExp) =>
      page.waitForFunction((src) => new RegExp(src).test($('[data-tb-target-tip]').text()), re.source, {
        timeout: WAIT,
      });
    await openDialog(page, 'rpcT');
    assert.match(
      await line(),
      /^The device is msg\.entity, else msg\.topic \(its id\); a list gets one command per device\.$/,
    );
    await chooseTargetType('entity');
    assert.match(await line(), /^No device picked yet/);
    assert.doesNotMatch(await line(), /msg\.entity/);
    await pickSuggestion(page, tray().locator('[data-tb-field="target.id"]'), 'B-201', 'Thermo B-201');
    await lineIs(/^The device is Thermo B-201, picked by name\./);
    await tray().screenshot({ path: path.join(screenshotDir(), 'rpc-device-line.png') });
    await chooseTargetType('json');
    assert.match(await line(), /^The device is the JSON given; /);
    await chooseTargetType('msg');
    await page.evaluate(() => $('#node-input-target').typedInput('value', 'payload.device'));
    assert.match(await line(), /^The device is msg\.payload\.device; /);
    await chooseTargetType('jsonata');
    assert.match(await line(), /^The device is what the JSONata expression gives; /);
    await chooseTargetType('auto');
    assert.match(await line(), /^The device is msg\.entity, else msg\.topic \(its id\); /);
    await closeTrays(page);

    // A device kept as JSON by an older flow: named once its name is looked up.
    await openDialog(page, 'rpcOld');
    await lineIs(/^The device is Thermo A-102, picked by name\./);
    await closeTrays(page);
  });

  it('a list of entities stays JSON (the picker takes one)', async function () {
    await openDialog(page, 'rpcList');
    const s = await targetState();
    assert.deepEqual([s.type, s.kept, s.picker], ['json', 'json', false]);
  });
});
