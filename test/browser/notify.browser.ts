/**
 * tb-notify's dialog and tb-subscribe's notifications kind in a real editor (Debian chromium, the shared embedded
 * Node-RED, the simulator), with the mouse and the keyboard: targets picked by name from the server's suggestions
 * (chips), a template picked by name, a subject and a text with placeholders, the delivery methods the server
 * offers (one it does not offer shown struck through), the rows of each action; saved and opened again; deployed, a
 * notification sent with its stats in the debug sidebar; the subscribe dialog's notifications kind (no query, its
 * own setting); and a live inbox forwarded and marked read.
 */
import { strict as assert } from 'node:assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { useSimulator } from '../support/simulator';
import { screenshotDir } from './chromium';
import {
  addNodes,
  chipsShown,
  deployButton,
  marked,
  pickSuggestion,
  pressInject,
  recordDebug,
  saveDialog,
  topTray,
  verdict,
  waitForDebug,
  waitForStatus,
  WAIT,
} from './editor-page';
import { useEditor } from './editor-session';

declare const RED: any;
declare const $: any;

const TAB = 'tabN';
const CONN = 'connN';

describe('tb-notify (browser)', function () {
  this.timeout(90000);

  const sim = useSimulator();
  let page: Page;

  const editor = useEditor({
    dir: 'tb-browser-notify-',
    ready: CONN,
    viewport: { width: 1500, height: 1300 },
    flows: () => [
      { id: TAB, type: 'tab', label: 'notify' },
      {
        id: CONN,
        type: 'tb-connection',
        name: 'sim',
        url: sim.url,
        authMode: 'password',
        timeout: 10,
        version: 1,
        credentials: { username: 'tenant@thingsboard.org', password: 'tenant' },
      },
    ],
  });
  before(async function () {
    ({ page } = editor);
    await page.evaluate((tab) => RED.workspaces.show(tab), TAB);
    await recordDebug(page);
    // Dropped from the palette: every setting its default.
    await addNodes(page, [
      { id: 'go', type: 'inject', z: TAB, x: 120, y: 80, wires: [['send']] },
      { id: 'send', type: 'tb-notify', z: TAB, x: 320, y: 80, wires: [['dbgSend']] },
      { id: 'dbgSend', type: 'debug', z: TAB, x: 540, y: 80 },
      { id: 'go2', type: 'inject', z: TAB, x: 120, y: 160, wires: [['tpl']] },
      { id: 'tpl', type: 'tb-notify', z: TAB, x: 320, y: 160, wires: [['dbgTpl']] },
      { id: 'dbgTpl', type: 'debug', z: TAB, x: 540, y: 160 },
      { id: 'inbox', type: 'tb-subscribe', z: TAB, x: 140, y: 260, wires: [['read']] },
      { id: 'read', type: 'tb-notify', z: TAB, x: 360, y: 260, wires: [['dbgRead']] },
      { id: 'dbgRead', type: 'debug', z: TAB, x: 560, y: 260 },
    ]);
  });

  const tray = () => topTray(page);
  const visible = (sel: string) => page.evaluate((s) => $(s).is(':visible'), sel);

  /** Opens a node's dialog as a person does: a double click on the canvas. */
  async function edit(id: string): Promise<void> {
    await page.locator(`[id="${id}"] .red-ui-flow-node`).first().dblclick();
    await tray().locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: WAIT });
  }

  /** A picture of the open dialog, from its top to the bottom of `last` (a visible element of it). */
  async function shot(name: string, last: string): Promise<void> {
    const top = await tray().boundingBox();
    const end = await tray().locator(last).boundingBox();
    assert.ok(top && end, 'the dialog and its last row are shown');
    await page.screenshot({
      path: path.join(screenshotDir(), name),
      clip: { x: top.x, y: top.y, width: top.width, height: end.y + end.height + 16 - top.y },
    });
  }

  /** The delivery methods shown, and those ticked, in the dialog's order. */
  const methods = () =>
    page.evaluate(() => ({
      shown: $('[data-tb-method]')
        .map((_: number, el: HTMLElement) => el.getAttribute('data-tb-method'))
        .get(),
      ticked: $('[data-tb-method]:checked')
        .map((_: number, el: HTMLElement) => el.getAttribute('data-tb-method'))
        .get(),
      struck: $('[data-tb-not-offered] [data-tb-method]')
        .map((_: number, el: HTMLElement) => el.getAttribute('data-tb-method'))
        .get(),
    }));

  const summary = () => page.evaluate(() => $('[data-tb-notify-summary]').text());

  it('send: targets picked by name, a subject and a text with placeholders, the methods the server offers', async () => {
    await edit('send');
    // a new node: send, a subject and a text (typed here or the message's), the web ticked; the template row hidden
    assert.equal(await tray().locator('#node-input-action').inputValue(), 'send');
    assert.equal(await visible('.tb-row-template'), false);
    assert.equal(await visible('.tb-row-text'), true);
    // the methods the simulator offers: web, e-mail, Teams
    await page.waitForFunction(() => $('[data-tb-method]').length === 3, undefined, { timeout: WAIT });
    assert.deepEqual(await methods(), { shown: ['WEB', 'EMAIL', 'MICROSOFT_TEAMS'], ticked: ['WEB'], struck: [] });
    // the line under the settings reads the send back: nothing typed yet, so the message's topic and payload
    assert.equal(
      await summary(),
      'Sends msg.topic as the subject and msg.payload as the text to the targets named in msg.targets by Web (bell); ' +
        'waits up to 10s for how many were sent.',
    );
    // two targets from the server's suggestions
    const entry = tray().locator('[data-tb-chips="targets"] input[data-tb-field="targets"]');
    await pickSuggestion(page, entry, 'tenant', 'Tenant administrators');
    await page.waitForFunction(() => $('[data-tb-chips="targets"] [data-tb-chip]').length === 1, undefined, {
      timeout: WAIT,
    });
    await pickSuggestion(
      page,
      tray().locator('[data-tb-chips="targets"] input[data-tb-field="targets"]'),
      'night',
      'Night shift',
    );
    await page.waitForFunction(() => $('[data-tb-chips="targets"] [data-tb-chip]').length === 2, undefined, {
      timeout: WAIT,
    });
    assert.deepEqual(await chipsShown(page, 'targets'), ['Tenant administrators', 'Night shift']);
    await tray().locator('#node-input-subject').fill('Hot room: {{msg.payload.room}}');
    await tray()
      .locator('#node-input-text')
      .fill('${recipientFirstName}, {{msg.payload.room}} is at {{msg.payload.temperature}} °C.');
    await tray().locator('[data-tb-method="EMAIL"]').check();
    assert.deepEqual((await methods()).ticked, ['WEB', 'EMAIL']);
    // no method ticked is refused; ticking one again is fine
    await tray().locator('[data-tb-method="WEB"]').uncheck();
    await tray().locator('[data-tb-method="EMAIL"]').uncheck();
    assert.match(String(await verdict(page, 'send', 'methods')), /tick at least one delivery method/);
    await marked(page, 'methods', true);
    await tray().locator('[data-tb-method="WEB"]').check();
    await tray().locator('[data-tb-method="EMAIL"]').check();
    await marked(page, 'methods', false);
    await tray().locator('#node-input-name').fill('hot room');
    assert.equal(
      await summary(),
      'Sends the subject and the text typed here to Tenant administrators, Night shift by Web (bell) and E-mail; ' +
        'waits up to 10s for how many were sent.',
    );
    await tray().locator('#node-input-content').selectOption('template');
    assert.equal(
      await summary(),
      'Sends the template named in msg.template to Tenant administrators, Night shift; waits up to 10s for how many ' +
        'were sent.',
    );
    await tray().locator('#node-input-content').selectOption('text');
    await tray().locator('#node-input-action').selectOption('markRead');
    assert.equal(await visible('[data-tb-notify-summary]'), false, 'only a send is read back');
    await tray().locator('#node-input-action').selectOption('send');
    await shot('notify-dialog.png', '.tb-tip-send');
    await saveDialog(page);
    const saved = await page.evaluate(() => {
      const n = RED.nodes.node('send');
      return { targets: n.targets, subject: n.subject, text: n.text, methods: n.methods, content: n.content };
    });
    assert.deepEqual(saved, {
      targets: 'Tenant administrators, Night shift',
      subject: 'Hot room: {{msg.payload.room}}',
      text: '${recipientFirstName}, {{msg.payload.room}} is at {{msg.payload.temperature}} °C.',
      methods: 'WEB,EMAIL',
      content: 'text',
    });
    // opened again: the chips and the ticks as saved
    await edit('send');
    assert.deepEqual(await chipsShown(page, 'targets'), ['Tenant administrators', 'Night shift']);
    await page.waitForFunction(() => $('[data-tb-method]:checked').length === 2, undefined, { timeout: WAIT });
    // a chip removed with its cross
    await tray().locator('[data-tb-chip="Night shift"] [data-tb-action="remove-chip"]').click();
    assert.deepEqual(await chipsShown(page, 'targets'), ['Tenant administrators']);
    await saveDialog(page);
    assert.equal(await page.evaluate(() => RED.nodes.node('send').targets), 'Tenant administrators');
  });

  it('a method the server does not offer now is shown struck through; a template picked by name hides the text', async () => {
    await page.evaluate(() => Object.assign(RED.nodes.node('tpl'), { methods: 'WEB,SMS' }));
    await edit('tpl');
    await page.waitForFunction(() => $('[data-tb-not-offered]').length === 1, undefined, { timeout: WAIT });
    assert.deepEqual(await methods(), {
      shown: ['WEB', 'EMAIL', 'SMS', 'MICROSOFT_TEAMS'],
      ticked: ['WEB', 'SMS'],
      struck: ['SMS'],
    });
    await tray().locator('#node-input-content').selectOption('template');
    assert.equal(await visible('.tb-row-template'), true);
    assert.equal(await visible('.tb-row-text'), false);
    await pickSuggestion(page, tray().locator('#node-input-template'), 'crit', 'Critical alarm');
    assert.equal(await tray().locator('#node-input-template').inputValue(), 'Critical alarm');
    await pickSuggestion(
      page,
      tray().locator('[data-tb-chips="targets"] input[data-tb-field="targets"]'),
      'tenant',
      'Tenant administrators',
    );
    await page.waitForFunction(() => $('[data-tb-chips="targets"] [data-tb-chip]').length === 1, undefined, {
      timeout: WAIT,
    });
    await shot('notify-template.png', '.tb-tip-send');
    // the mark-read actions need neither targets nor content
    await tray().locator('#node-input-action').selectOption('markRead');
    assert.equal(await visible('.tb-row-send'), false);
    assert.equal(await visible('.tb-tip-markRead'), true);
    await tray().locator('#node-input-action').selectOption('send');
    await saveDialog(page);
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('tpl');
        return [n.content, n.template, n.targets];
      }),
      ['template', 'Critical alarm', 'Tenant administrators'],
    );
  });

  it('subscribe: the current user’s notifications need no query; Latest is checked', async () => {
    await edit('inbox');
    await tray().locator('#node-input-kind').selectOption('notifications');
    assert.equal(await visible('#tb-builder'), false);
    assert.equal(await visible('.tb-row-query'), false);
    assert.equal(await visible('.tb-row-notifications'), true);
    assert.equal(await tray().locator('#node-input-notificationLimit').inputValue(), '10');
    // its events: one check box each
    const events = await page.evaluate(() =>
      $('[data-tb-event]')
        .map((_: number, el: HTMLElement) => el.getAttribute('data-tb-event'))
        .get(),
    );
    assert.deepEqual(events, ['snapshot', 'notification', 'count']);
    await tray().locator('[data-tb-event="snapshot"]').uncheck();
    await tray().locator('[data-tb-event="count"]').uncheck();
    await tray().locator('#node-input-notificationLimit').fill('0');
    await tray().locator('#node-input-notificationLimit').press('Tab');
    await marked(page, 'notificationLimit', true);
    await tray().locator('#node-input-notificationLimit').fill('5');
    await tray().locator('#node-input-notificationLimit').press('Tab');
    await marked(page, 'notificationLimit', false);
    await shot('subscribe-notifications.png', '.tb-row-format');
    await saveDialog(page);
    assert.deepEqual(
      await page.evaluate(() => {
        const n = RED.nodes.node('inbox');
        return [n.kind, n.events, n.notificationLimit, n.valid];
      }),
      ['notifications', 'notification', '5', true],
    );
    await edit('read');
    await tray().locator('#node-input-action').selectOption('markRead');
    await saveDialog(page);
  });

  it('deployed: sends with the stats in the debug sidebar; the inbox forwards the new notification and marks it read', async () => {
    // the inject of "send" carries the room in msg.payload
    await page.evaluate(() =>
      Object.assign(RED.nodes.node('go'), {
        props: [{ p: 'payload' }],
        payload: '{"room":"Thermo A-103","temperature":26.5}',
        payloadType: 'json',
      }),
    );
    await deployButton(page);
    await waitForStatus(page, 'inbox', /unread/);
    await pressInject(page, 'go');
    const [stats] = (await waitForDebug(page, 'dbgSend')) as Array<Record<string, unknown>>;
    assert.equal(stats.status, 'SENT');
    assert.deepEqual((stats.stats as Record<string, unknown>).sent, { WEB: 4, EMAIL: 4 });
    await waitForStatus(page, 'send', /sent: 8/);
    // the tenant administrator (the connection's user) got it live: forwarded to "read", which marks it read
    const [marked_] = (await waitForDebug(page, 'dbgRead')) as Array<Record<string, unknown>>;
    assert.equal(marked_.status, 'READ');
    assert.equal(marked_.unreadCount, 2);
    const id = String(marked_.id);
    assert.equal(sim.notifications.notifications.get(id)?.subject, 'Hot room: Thermo A-103');
    assert.equal(sim.notifications.notifications.get(id)?.text, 'Tenant, Thermo A-103 is at 26.5 °C.');
    assert.equal(sim.notifications.notifications.get(id)?.status, 'READ');
    await waitForStatus(page, 'read', /2 unread/);
    await pressInject(page, 'go2');
    const [tpl] = (await waitForDebug(page, 'dbgTpl')) as Array<Record<string, unknown>>;
    assert.equal(tpl.templateName, 'Critical alarm');
  });
});
