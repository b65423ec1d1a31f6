/**
 * In a real editor (Debian chromium, the shared embedded Node-RED, the simulator): tb-relation's dialog. A new node
 * creates: the related entity row shows and the find rows are hidden; the related entity is picked by name; the
 * operation switched to find hides the related entity and shows levels and types; a related type that is not an
 * entity type is flagged as the runtime would; saved and reloaded; then deployed, an inject's press relates the
 * device to the floor, and a find lists the floor's devices in the debug sidebar.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  deployButton,
  marked,
  openDialog,
  pickEntity,
  pickSuggestion,
  pressInject,
  recordDebug,
  saveDialog,
  targetLineIs,
  topTray,
  typeInto,
  verdict,
  waitForDebug,
  waitForStatus,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-relation dialog (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  const floorId = () => sim.data.mustFindByName('ASSET' as never, 'Beta Floor 1').id;
  const spareId = () => sim.data.mustFindByName('DEVICE' as never, 'Spare Sensor').id;

  const editor = useEditor({
    dir: 'tb-browser-relation-',
    ready: 'rel',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabL', x, y });
      const debug = (id: string, name: string, y: number) => ({
        id,
        type: 'debug',
        name,
        active: true,
        tosidebar: true,
        complete: 'payload',
        targetType: 'msg',
        ...at(640, y),
        wires: [],
      });
      return [
        { id: 'tabL', type: 'tab', label: 'relation' },
        simConnection('connL', sim.url),
        {
          id: 'inj',
          type: 'inject',
          name: 'relate',
          props: [{ p: 'payload' }],
          payload: '',
          payloadType: 'date',
          repeat: '',
          once: false,
          ...at(140, 80),
          wires: [['rel']],
        },
        { id: 'rel', type: 'tb-relation', connection: 'connL', version: 1, ...at(380, 80), wires: [['dbg']] },
        debug('dbg', 'created', 80),
      ];
    },
  });
  before(() => {
    ({ page } = editor);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);
  const summary = () => page.evaluate(() => $('[data-tb-relation-summary]').text());
  /** Waits for the summary line to read `text` (a picked entity's name arrives from the server). */
  async function summaryIs(text: string): Promise<void> {
    await page
      .waitForFunction((t) => $('[data-tb-relation-summary]').text() === t, text, { timeout: 10000 })
      .catch(() => undefined);
    assert.equal(await summary(), text);
  }

  it('create by default, the related entity picked by name; find shows levels and types; saved, deployed, related', async function () {
    await openDialog(page, 'rel');
    assert.equal(await tray().locator('#node-input-operation').inputValue(), 'create');
    assert.equal(await tray().locator('#node-input-direction').inputValue(), 'TO');
    assert.equal(await visible('[data-tb-row="related"]'), true);
    assert.equal(await visible('[data-tb-row="maxLevel"]'), false, 'no levels for a create');
    assert.equal(await visible('[data-tb-row="entityTypes"]'), false);
    assert.equal(await visible('.tb-tip-exists'), true);

    // The line under the settings says which way the relation goes: from the message at first.
    assert.equal(await summary(), 'Creates: msg.related Contains msg.entity.');

    // The entity: Spare Sensor, picked by name; the related entity: Beta Floor 1, picked by name.
    await pickEntity(page, 'DEVICE', 'Spare', 'Spare Sensor');
    await targetLineIs(page, /^The entity is Spare Sensor, picked by name\.$/);
    await page.evaluate(() => $('#node-input-related').typedInput('type', 'entity'));
    await tray().locator('[data-tb-field="related.entityType"]').selectOption('ASSET');
    await pickSuggestion(page, tray().locator('[data-tb-field="related.id"]'), 'Beta Floor', 'Beta Floor 1');
    assert.equal(await verdict(page, 'rel', 'related'), true);
    await summaryIs('Creates: Beta Floor 1 Contains Spare Sensor.');

    // Find: the related entity goes, levels and types come; a type that is not an entity type is flagged.
    await tray().locator('#node-input-operation').selectOption('find');
    assert.equal(await visible('[data-tb-row="related"]'), false);
    assert.equal(await visible('[data-tb-row="maxLevel"]'), true);
    assert.equal(await visible('[data-tb-row="entityTypes"]'), true);
    assert.equal(await visible('.tb-tip-find'), true);
    await summaryIs('Finds X where X Contains Spare Sensor, one level up.');
    await tray().locator('#node-input-direction').selectOption('FROM');
    await summaryIs('Finds X where Spare Sensor Contains X, one level down.');
    await tray().locator('#node-input-direction').selectOption('TO');
    await typeInto(page, 'entityTypes', 'ALARM');
    await marked(page, 'entityTypes', true);
    assert.match(String(await verdict(page, 'rel', 'entityTypes')), /ALARM is not one of/);
    await typeInto(page, 'entityTypes', 'DEVICE');
    await marked(page, 'entityTypes', false);
    await tray().locator('#node-input-operation').selectOption('create');
    assert.equal(await visible('[data-tb-row="related"]'), true);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await tray().screenshot({ path: path.join(screenshotDir(), 'relation-dialog.png') });

    await saveDialog(page);
    const related = JSON.stringify({ entityType: 'ASSET', id: floorId() });
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('rel');
        return {
          operation: n.operation,
          related: n.related,
          relatedType: n.relatedType,
          relationType: n.relationType,
          valid: n.valid,
          label: RED.utils.getNodeLabel(n),
        };
      }),
      {
        operation: 'create',
        related,
        relatedType: 'json',
        relationType: 'Contains',
        valid: true,
        label: 'create relation',
      },
    );
    await openDialog(page, 'rel');
    await targetLineIs(page, /^The entity is Spare Sensor, picked by name\.$/);
    assert.equal(await visible('[data-tb-row="related"]'), true);
    await saveDialog(page);

    // Deployed: the press makes Beta Floor 1 contain Spare Sensor.
    await recordDebug(page);
    await deployButton(page);
    await pressInject(page, 'inj');
    const [out] = (await waitForDebug(page, 'dbg')) as Array<Record<string, unknown>>;
    assert.equal(out.created, true);
    await waitForStatus(page, 'rel', /^relation created$/);
    assert.ok(sim.data.relationsFrom(floorId()).some((r) => r.to.id === spareId() && r.type === 'Contains'));
  });
});
