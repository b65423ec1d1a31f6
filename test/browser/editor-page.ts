/**
 * What the browser tests do in the Node-RED editor page again and again: opening a node's edit dialog, the
 * top-most edit tray, closing every tray (waiting until each has slid out), and picking a suggestion of Node-RED's
 * autoComplete menu.
 */
import type { Locator, Page } from 'playwright-core';

declare const $: (s: string) => { length: number };
// the editor's own global, in page.evaluate() callbacks
declare const RED: any;

export const WAIT = 15000;

/** The top-most edit tray (a config tray stacks over the node tray). */
export function topTray(page: Page): Locator {
  return page.locator('.red-ui-tray').last();
}

export interface OpenOptions {
  /** The view the query dialog opens in ('builder' or 'json'), as if chosen for this node before (views.ts). */
  view?: string;
  /** Node properties set before the dialog opens (e.g. a query). */
  props?: Record<string, unknown>;
  /** What else must be visible before the dialog counts as ready (a selector in the dialog). */
  ready?: string;
}

/**
 * Opens the edit dialog of node `id` (a config node through editConfig, as the sidebar does) and waits until it is
 * ready: its Done button is there once oneditprepare has run.
 */
export async function openDialog(page: Page, id: string, opts: OpenOptions = {}): Promise<void> {
  if (opts.view) await chooseView(page, id, opts.view);
  const config = await page.evaluate(
    ([nodeId, props]) => {
      const n = RED.nodes.node(nodeId);
      Object.assign(n, props);
      if (n._def.category === 'config') RED.editor.editConfig('', n.type, n.id);
      else RED.editor.edit(n);
      return n._def.category === 'config';
    },
    [id, opts.props ?? {}] as const,
  );
  if (opts.ready) await topTray(page).locator(opts.ready).waitFor({ state: 'visible', timeout: WAIT });
  await topTray(page)
    .locator(config ? '#node-config-dialog-ok' : '#node-dialog-ok')
    .waitFor({ state: 'visible', timeout: WAIT });
}

/** Makes node `id`'s query dialog open in `view` ('builder' or 'json'), as if a person had chosen it there before. */
export async function chooseView(page: Page, id: string, view: string): Promise<void> {
  await page.evaluate(
    ([nodeId, v]) => {
      // The editor's own record of the choices (src/editor/builder/views.ts).
      const views = JSON.parse(window.localStorage.getItem('tb-query-builder-views') ?? '{}');
      window.localStorage.setItem('tb-query-builder-views', JSON.stringify({ ...views, [nodeId]: v }));
    },
    [id, view] as const,
  );
}

/** Cancels every open tray, top first, waiting until each is gone. */
export async function closeTrays(page: Page): Promise<void> {
  for (let open = await page.locator('.red-ui-tray').count(); open > 0; open--) {
    await topTray(page).locator('#node-config-dialog-cancel, #node-dialog-cancel').first().click();
    await page.waitForFunction((n) => $('.red-ui-tray').length < n, open, { timeout: WAIT });
  }
}

/**
 * Types into a box and picks the suggestion whose text contains `option`; returns once the menu is gone and the
 * box has taken it (the builder's boxes mark a pending choice with data-tb-pending).
 */
export async function pickSuggestion(page: Page, input: Locator, typed: string, option: string): Promise<void> {
  await input.click();
  await input.fill('');
  await input.pressSequentially(typed, { delay: 5 });
  const item = page.locator('.red-ui-autoComplete-container li a', { hasText: option }).first();
  await item.waitFor({ state: 'visible', timeout: WAIT });
  await item.click();
  await page.waitForFunction(
    () => $('.red-ui-autoComplete-container:visible').length === 0 && $('[data-tb-pending]').length === 0,
    undefined,
    { timeout: WAIT },
  );
}

/**
 * The editor page's RED and jQuery, inside a function passed to page.evaluate (they are the page's globals, typed
 * loosely on purpose: this file declares `$` narrowly for its own use).
 */
type PageGlobals = { RED: any; $: any };

/**
 * Sets a device-action dialog's entity to one picked by name: the picker type, the entity type, then the suggestion.
 */
export async function pickEntity(page: Page, entityType: string, typed: string, name: string): Promise<void> {
  await page.evaluate(() =>
    ($('#node-input-target') as unknown as { typedInput(m: string, t: string): void }).typedInput('type', 'entity'),
  );
  await topTray(page).locator('[data-tb-field="target.entityType"]').selectOption(entityType);
  await pickSuggestion(page, topTray(page).locator('[data-tb-field="target.id"]'), typed, name);
}

/** Waits until the line under a device action's target box ([data-tb-target-tip]) matches `re`; fails showing it. */
export async function targetLineIs(page: Page, re: RegExp): Promise<void> {
  const line = () => page.evaluate(() => ($('[data-tb-target-tip]') as unknown as { text(): string }).text());
  try {
    await page.waitForFunction(
      (src) => new RegExp(src).test(($('[data-tb-target-tip]') as unknown as { text(): string }).text()),
      re.source,
      { timeout: WAIT },
    );
  } catch {
    throw new Error(`the target line: wanted ${re}, shows ${JSON.stringify(await line())}`);
  }
}

/**
 * In an open device-action dialog whose target is the message (a fresh node), the line under the target box
 * follows the target as a person sets it: each text opens with `lead` ("The entity is"); the entity picked by name
 * (`pick`) is named once picked (then `shot`, a screenshot of the tray, is taken), a msg. property is named, and
 * back to the message it says msg.entity.
 */
export async function checkTargetLine(
  page: Page,
  lead: string,
  pick: { entityType: string; typed: string; name: string },
  shot: string,
): Promise<void> {
  const auto = new RegExp(`^${lead} msg\\.entity, else msg\\.topic \\(its id\\); `);
  await targetLineIs(page, auto);
  await chooseTypedType(page, topTray(page), '#node-input-target', 'entity');
  await targetLineIs(page, /^No entity picked yet/);
  await pickEntity(page, pick.entityType, pick.typed, pick.name);
  await targetLineIs(page, new RegExp(`^${lead} ${pick.name}, picked by name\\.$`));
  await topTray(page).screenshot({ path: shot });
  await chooseTypedType(page, topTray(page), '#node-input-target', 'msg');
  await typeTyped(topTray(page), '#node-input-target', 'payload.device');
  await targetLineIs(page, new RegExp(`^${lead} msg\\.payload\\.device; `));
  await chooseTypedType(page, topTray(page), '#node-input-target', 'auto');
  await targetLineIs(page, auto);
}

/** Opens a node's dialog in the query builder's builder view, with `query` (an object, or text as stored). */
export async function openBuilder(page: Page, id: string, query?: unknown): Promise<void> {
  await chooseView(page, id, 'builder');
  await page.evaluate(
    ([nodeId, q]) => {
      const { RED } = window as unknown as PageGlobals;
      const n = RED.nodes.node(nodeId);
      if (q !== undefined) n.query = typeof q === 'string' ? q : JSON.stringify(q);
      RED.editor.edit(n);
    },
    [id, query] as const,
  );
  await topTray(page).locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: WAIT });
}

/** The query the open dialog holds now (its query TypedInput's text, parsed). */
export async function builderQuery(page: Page): Promise<unknown> {
  return JSON.parse(
    await page.evaluate(() => (window as unknown as PageGlobals).$('#node-input-query').typedInput('value') as string),
  );
}

/** Clicks the builder's Preview and waits for its answer: the state (rows, count, empty, keys, error) and the text. */
export async function runPreview(page: Page): Promise<{ state: string; text: string }> {
  await topTray(page).locator('[data-tb-action="preview"]').click();
  await page.waitForFunction(
    () =>
      !['running', 'idle'].includes((window as unknown as PageGlobals).$('[data-tb-preview]').attr('data-tb-preview')),
    undefined,
    { timeout: WAIT },
  );
  return page.evaluate(() => {
    const { $ } = window as unknown as PageGlobals;
    return {
      state: $('[data-tb-preview]').attr('data-tb-preview') as string,
      text: $('[data-tb-preview]').text() as string,
    };
  });
}

// ---- a node dialog's fields (the device-action dialogs' tests and later ones) ------------------------------

/** Clicks Done and waits until every tray is gone. */
export async function saveDialog(page: Page): Promise<void> {
  await topTray(page).locator('#node-dialog-ok').click();
  await page.waitForFunction(() => $('.red-ui-tray').length === 0, undefined, { timeout: WAIT });
}

/** What node `id`'s validator of `prop` says about the open dialog as it is now (true, or the message). */
export function verdict(page: Page, id: string, prop: string): Promise<unknown> {
  return page.evaluate(
    ([nodeId, p]) => {
      const { RED: red, $: jq } = window as unknown as PageGlobals;
      const n = red.nodes.node(nodeId);
      return n._def.defaults[p].validate.call(n, jq(`#node-input-${p}`).val(), {});
    },
    [id, prop] as const,
  );
}

/** Waits until the field is marked invalid (its input, or its TypedInput's box), or not, as `expected` says. */
export async function marked(page: Page, prop: string, expected: boolean): Promise<void> {
  await page.waitForFunction(
    ([p, e]) => {
      const input = (window as unknown as PageGlobals).$(`#node-input-${p}`);
      const box = input.next('.red-ui-typedInput-container');
      return (input.hasClass('input-error') || box.hasClass('input-error')) === e;
    },
    [prop, expected] as const,
    { timeout: WAIT },
  );
}

/** Sets a text input of the dialog as a person would (typing fires the dialog's validation). */
export async function typeInto(page: Page, prop: string, text: string): Promise<void> {
  const input = topTray(page).locator(`#node-input-${prop}`);
  await input.fill(text);
  await input.press('Tab');
}

/** The chips of a key box (`data-tb-chips="<field>"`), in their order. */
export function chipsShown(page: Page, field: string): Promise<string[]> {
  return page.evaluate(
    (f) =>
      (window as unknown as PageGlobals)
        .$(`[data-tb-chips="${f}"] [data-tb-chip]`)
        .map((_: number, el: HTMLElement) => el.getAttribute('data-tb-chip'))
        .get() as string[],
    field,
  );
}

/** The suggestion menu's items for a key box with `typed` in it, sorted (then closes the menu). */
export async function keySuggestions(page: Page, field: string, typed = ''): Promise<string[]> {
  const entry = topTray(page).locator(`[data-tb-chips="${field}"] input[data-tb-field="${field}"]`);
  await entry.click();
  await entry.fill('');
  // An empty box lists every suggestion on a neutral key (the arrow down), as when it gets the focus.
  if (typed) await entry.pressSequentially(typed, { delay: 5 });
  else await entry.press('ArrowDown');
  await page.locator('.red-ui-autoComplete-container li').first().waitFor({ state: 'visible', timeout: WAIT });
  const items = await page.locator('.red-ui-autoComplete-container li').allTextContents();
  // Escape closes the menu, and it stays closed (the box gets its focus back from the menu).
  await entry.fill('');
  await entry.press('Escape');
  await page.waitForFunction(() => $('.red-ui-autoComplete-container:visible').length === 0, undefined, {
    timeout: WAIT,
  });
  return items.map((s) => s.trim()).sort();
}

// ---- a flow built and run in the editor (the acceptance walk, acceptance-walk.browser.ts) -------------------

/** A node as the palette gives it: its type, where it goes, and its wires (its settings are the type's defaults). */
export interface BareNode {
  id: string;
  type: string;
  z: string;
  x: number;
  y: number;
  wires?: string[][];
}

/**
 * Puts nodes on the canvas as a drop from the palette does: every setting is the type's default (the settings are
 * then made in the dialogs), the node's onadd runs (ours pick the only connection), and the flow is marked changed.
 */
export async function addNodes(page: Page, nodes: BareNode[]): Promise<void> {
  await page.evaluate((list) => {
    const { RED: red } = window as unknown as PageGlobals;
    const full = list.map((n) => {
      const defaults = red.nodes.getType(n.type).defaults as Record<string, { value?: unknown }>;
      const node: Record<string, unknown> = { wires: [], ...n };
      for (const [k, d] of Object.entries(defaults))
        if (!(k in node) && d.value !== undefined) node[k] = JSON.parse(JSON.stringify(d.value));
      return node;
    });
    red.view.importNodes(full, { generateIds: false, touchImport: true, notify: false, applyNodeDefaults: true });
    // Where they were asked for: Node-RED 3.1 moves imported nodes to the view's corner (a node's left side, with
    // an inject's button, then sits under the palette).
    for (const n of list) {
      const placed = red.nodes.node(n.id) as unknown as { x: number; y: number; dirty: boolean } | null;
      if (placed && typeof n.x === 'number' && typeof n.y === 'number')
        Object.assign(placed, { x: n.x, y: n.y, dirty: true });
    }
    red.view.select({ nodes: [] });
    red.view.redraw(true);
  }, nodes);
  for (const n of nodes) await page.locator(`[id="${n.id}"]`).waitFor({ state: 'visible', timeout: WAIT });
}

/** Presses Deploy and waits until the editor has no undeployed change. */
export async function deployButton(page: Page): Promise<void> {
  const deployed = page.waitForResponse(
    (r) => new URL(r.url()).pathname.endsWith('/flows') && r.request().method() === 'POST',
    { timeout: WAIT },
  );
  await page.locator('#red-ui-header-button-deploy').click();
  const res = await deployed;
  if (res.status() !== 200) throw new Error(`deploy: HTTP ${res.status()}`);
  await page.waitForFunction(() => (window as unknown as PageGlobals).RED.nodes.dirty() === false, undefined, {
    timeout: WAIT,
  });
}

/** A node's status as the editor shows it under the node: its text and its colour (fill) and shape. */
export function nodeStatus(page: Page, id: string): Promise<{ text: string; fill: string; shape: string }> {
  return page.evaluate((nodeId) => {
    const s = (window as unknown as PageGlobals).RED.nodes.node(nodeId)?.status ?? {};
    return { text: String(s.text ?? ''), fill: String(s.fill ?? ''), shape: String(s.shape ?? '') };
  }, id);
}

/**
 * Waits until node `id`'s status text matches `text` (at most `timeout` ms: longer for a status that comes after a
 * real hold); fails with the status it shows.
 */
export async function waitForStatus(
  page: Page,
  id: string,
  text: RegExp,
  timeout = WAIT,
): Promise<{ text: string; fill: string; shape: string }> {
  try {
    await page.waitForFunction(
      ([nodeId, src, flags]) =>
        new RegExp(src, flags).test(
          String((window as unknown as PageGlobals).RED.nodes.node(nodeId)?.status?.text ?? ''),
        ),
      [id, text.source, text.flags] as const,
      { timeout },
    );
  } catch {
    throw new Error(`status of ${id}: wanted ${text}, shows ${JSON.stringify(await nodeStatus(page, id))}`);
  }
  return nodeStatus(page, id);
}

/** The text box of a TypedInput made from `input` (a selector of the element it was made from). */
export function typedBox(scope: Locator, input: string): Locator {
  return scope.locator(`${input} + .red-ui-typedInput-container input.red-ui-typedInput-input`);
}

/** Chooses a type of a TypedInput with the mouse, from its menu. */
export async function chooseTypedType(page: Page, scope: Locator, input: string, type: string): Promise<void> {
  await scope.locator(`${input} + .red-ui-typedInput-container button.red-ui-typedInput-type-select`).click();
  const item = page.locator(`.red-ui-typedInput-options:visible a[value="${type}"]`);
  await item.waitFor({ state: 'visible', timeout: WAIT });
  await item.click();
  await page.locator('.red-ui-typedInput-options:visible').waitFor({ state: 'hidden', timeout: WAIT });
}

/** Types into a TypedInput's box as a person does (the dialog's checks run on leaving it). */
export async function typeTyped(scope: Locator, input: string, text: string): Promise<void> {
  const box = typedBox(scope, input);
  await box.fill(text);
  await box.press('Tab');
}

/** Starts recording what the debug nodes send to the sidebar (call once the editor page is loaded). */
export async function recordDebug(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as PageGlobals & { tbDebugLog?: unknown[] };
    if (w.tbDebugLog) return;
    w.tbDebugLog = [];
    w.RED.comms.subscribe('debug', (_topic: string, msg: unknown) => w.tbDebugLog!.push(msg));
  });
}

/**
 * What debug node `id` has sent to the sidebar since the recording started, decoded: objects and arrays parsed,
 * numbers as numbers, text as it is.
 */
export async function debugValues(page: Page, id: string): Promise<unknown[]> {
  const raw: Array<{ msg: string; format: string }> = await page.evaluate(
    (nodeId) =>
      ((window as unknown as { tbDebugLog: Array<{ id: string; msg: string; format: string }> }).tbDebugLog ?? [])
        .filter((m) => m.id === nodeId)
        .map((m) => ({ msg: m.msg, format: m.format })),
    id,
  );
  return raw.map(({ msg, format }) => {
    if (/^(array|Object)/.test(format) || format === 'boolean' || format === 'null') return JSON.parse(msg);
    if (format === 'number') return Number(msg);
    return msg;
  });
}

/** Waits until debug node `id` has sent at least `n` messages; returns them all (decoded as debugValues does). */
export async function waitForDebug(page: Page, id: string, n = 1): Promise<unknown[]> {
  await page
    .waitForFunction(
      ([nodeId, count]) =>
        ((window as unknown as { tbDebugLog: Array<{ id: string }> }).tbDebugLog ?? []).filter((m) => m.id === nodeId)
          .length >= count,
      [id, n] as const,
      {
        timeout: WAIT,
      },
    )
    .catch(() => undefined);
  const got = await debugValues(page, id);
  if (got.length < n)
    throw new Error(`debug ${id}: wanted ${n} message(s), got ${got.length}: ${JSON.stringify(got).slice(0, 500)}`);
  return got;
}

/** Presses an inject node's button on the canvas. */
export async function pressInject(page: Page, id: string): Promise<void> {
  await page.locator(`[id="${id}"] .red-ui-flow-node-button-button`).click();
}
