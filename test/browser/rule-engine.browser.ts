/**
 * In a real editor (Debian chromium, the shared embedded Node-RED, the simulator): tb-rule-engine's dialog. A new
 * node sends as the connection's user (the entity rows hidden) and says so in its summary line; as an entity, the
 * entity is picked by name and named in the line under it; fixed data, the queue and the timeout are checked as the
 * runtime checks them (a timeout over 29 s, JSON that is not valid); saved and reloaded; then deployed, an inject's
 * press brings the rule chain's answer to the debug sidebar.
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
  pressInject,
  recordDebug,
  saveDialog,
  targetLineIs,
  topTray,
  typeInto,
  typeTyped,
  verdict,
  waitForDebug,
  waitForStatus,
} from './editor-page';
import { useEditor } from './editor-session';
import { simConnection } from './flows';

declare const RED: any;
declare const $: any;

describe('tb-rule-engine dialog (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;
  const idOf = (name: string) => sim.data.mustFindByName('DEVICE' as never, name).id;

  const editor = useEditor({
    dir: 'tb-browser-rule-engine-',
    ready: 're',
    flows: () => {
      const at = (x: number, y: number) => ({ z: 'tabR', x, y });
      return [
        { id: 'tabR', type: 'tab', label: 'rule engine' },
        simConnection('connR', sim.url),
        {
          id: 'inj',
          type: 'inject',
          name: 'ask',
          props: [{ p: 'payload' }],
          payload: '{"question":"status"}',
          payloadType: 'json',
          repeat: '',
          once: false,
          ...at(140, 80),
          wires: [['re']],
        },
        { id: 're', type: 'tb-rule-engine', connection: 'connR', version: 1, ...at(380, 80), wires: [['dbg']] },
        {
          id: 'dbg',
          type: 'debug',
          name: 'answer',
          active: true,
          tosidebar: true,
          complete: 'payload',
          targetType: 'msg',
          ...at(600, 80),
          wires: [],
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

  it('as the user by default; as an entity picked by name; data, queue and timeout checked as the runtime does; saved, deployed, answered', async function () {
    await openDialog(page, 're');
    assert.equal(await tray().locator('#node-input-originator').inputValue(), 'user');
    assert.equal(await visible('[data-tb-row="target"]'), false, 'no entity row as the user');
    assert.equal(await visible('[data-tb-row="concurrency"]'), false);
    assert.equal(await visible('[data-tb-row="body"]'), false);
    assert.equal(
      await summaryText(),
      "Sends msg.payload as the connection's user into its usual queue; waits the server's 10 s for the reply.",
    );
    assert.match(await tray().locator('[data-tb-tip="reply"]').innerText(), /"rest call reply" node/);

    // As an entity: picked by name, and named under the box.
    await tray().locator('#node-input-originator').selectOption('entity');
    assert.equal(await visible('[data-tb-row="target"]'), true);
    assert.equal(await visible('[data-tb-row="concurrency"]'), true);
    await targetLineIs(page, /^The entity is msg\.entity, else msg\.topic/);
    assert.match(await summaryText(), /^Sends msg\.payload as the entity into/, 'the message names the entity');
    await pickEntity(page, 'DEVICE', 'A-101', 'Thermo A-101');
    await targetLineIs(page, /^The entity is Thermo A-101, picked by name\.$/);
    assert.match(await summaryText(), /^Sends msg\.payload as Thermo A-101 into/, 'the summary names the picked one');
    assert.equal(await verdict(page, 're', 'target'), true);

    // Fixed data: JSON checked as the runtime does.
    await tray().locator('#node-input-bodyFrom').selectOption('json');
    assert.equal(await visible('[data-tb-row="body"]'), true);
    await typeTyped(tray(), '#node-input-body', '{"question": ');
    assert.match(
      String(await verdict(page, 're', 'body')),
      /^body is not valid JSON \(e\.g\. \{"temperature": 21\}\): /,
    );
    assert.match(await summaryText(), /\(data not valid JSON yet\)/);
    await typeTyped(tray(), '#node-input-body', '{"question": "temperature"}');
    assert.equal(await verdict(page, 're', 'body'), true);

    // A timeout over 29 s is refused (ThingsBoard would cut it at 30 s); the queue is a name.
    await typeInto(page, 'timeout', '45s');
    await marked(page, 'timeout', true);
    assert.match(String(await verdict(page, 're', 'timeout')), /^timeout is 45 s: make it 29 s or less/);
    await typeInto(page, 'timeout', '5s');
    await marked(page, 'timeout', false);
    await typeInto(page, 'queue', 'High/Priority');
    await marked(page, 'queue', true);
    await typeInto(page, 'queue', 'HighPriority');
    await marked(page, 'queue', false);
    assert.equal(
      await summaryText(),
      'Sends {"question":"temperature"} as Thermo A-101 into the queue HighPriority; waits 5 s for the reply.',
    );
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await tray().screenshot({ path: path.join(screenshotDir(), 'rule-engine-dialog.png') });

    await saveDialog(page);
    const a101 = JSON.stringify({ entityType: 'DEVICE', id: idOf('Thermo A-101') });
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('re');
        return {
          originator: n.originator,
          target: n.target,
          targetType: n.targetType,
          bodyFrom: n.bodyFrom,
          body: n.body,
          queue: n.queue,
          timeout: n.timeout,
          valid: n.valid,
          label: RED.utils.getNodeLabel(n),
        };
      }),
      {
        originator: 'entity',
        target: a101,
        targetType: 'json',
        bodyFrom: 'json',
        body: '{"question": "temperature"}',
        queue: 'HighPriority',
        timeout: '5s',
        valid: true,
        label: 'rule engine, HighPriority',
      },
    );
    await openDialog(page, 're');
    assert.equal(await tray().locator('#node-input-originator').inputValue(), 'entity');
    await targetLineIs(page, /^The entity is Thermo A-101, picked by name\.$/);
    assert.equal(await visible('[data-tb-row="body"]'), true);
    await saveDialog(page);

    // Deployed: the press sends the fixed data as Thermo A-101, and the demo root chain's answer reaches the sidebar.
    await recordDebug(page);
    await deployButton(page);
    await pressInject(page, 'inj');
    const [answer] = await waitForDebug(page, 'dbg');
    assert.deepEqual(answer, {
      question: 'temperature',
      originator: { entityType: 'DEVICE', id: idOf('Thermo A-101'), name: 'Thermo A-101' },
    });
    await waitForStatus(page, 're', /^replied$/);
    const m = sim.ruleEngine.calls().at(-1)!;
    assert.deepEqual([m.queue, Number(m.metadata.expirationTime) - m.receivedAt], ['HighPriority', 5000]);
  });
});
