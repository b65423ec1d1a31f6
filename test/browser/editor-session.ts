/**
 * One browser on the shared embedded Node-RED for a describe block of dialog tests: `useEditor()` registers the
 * hooks every such file needs (chromium launched on a profile of its own, the block's flows deployed first, the
 * editor loaded until a given node is there and nothing is dirty; after each test the trays are closed and no page
 * error is allowed; after the block the browser closed, the flows removed, the profile deleted).
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Embedded } from '../../scripts/embedded';
import { launchChromium, requireChromium } from './chromium';
import { closeTrays } from './editor-page';
import { deployFlows, sharedNodeRed } from './nodered';

declare const RED: { nodes: { node(id: string): unknown; dirty(): boolean } } | undefined;

export interface EditorOptions {
  /** The temporary directory's name prefix, e.g. `tb-browser-rpc-params-`. */
  dir: string;
  /** The block's flows (called once the simulator and Node-RED run). */
  flows: () => unknown[] | Promise<unknown[]>;
  /** The id of a node of those flows: the editor is ready when it is loaded. */
  ready: string;
  viewport?: { width: number; height: number };
}

export interface EditorSession {
  readonly nr: Embedded;
  readonly page: Page;
  readonly userDir: string;
}

export function useEditor(opts: EditorOptions): EditorSession {
  let nr: Embedded | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let userDir: string | undefined;
  const pageErrors: string[] = [];

  before(async function () {
    requireChromium();
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.dir));
    ({ nr } = await sharedNodeRed());
    await deployFlows(nr, await opts.flows());
    ({ context, page } = await launchChromium(path.join(userDir, 'profile')));
    await page.setViewportSize(opts.viewport ?? { width: 1500, height: 1400 });
    page.on('pageerror', (err) => {
      if (!/ResizeObserver loop/.test(err.message)) pageErrors.push(err.stack || err.message);
    });
    await page.goto(nr.url);
    await page.waitForFunction(
      (id) => typeof RED !== 'undefined' && !!RED.nodes && !!RED.nodes.node(id) && RED.nodes.dirty() === false,
      opts.ready,
      { timeout: 30000 },
    );
  });

  afterEach(async function () {
    if (page) await closeTrays(page).catch(() => undefined);
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await deployFlows(nr, []).catch(() => undefined);
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the editor session has no ${what} yet (used before its before hook ran)`);
    return v;
  };
  return {
    get nr() {
      return need(nr, 'Node-RED');
    },
    get page() {
      return need(page, 'page');
    },
    get userDir() {
      return need(userDir, 'directory');
    },
  };
}
