/**
 * One embedded Node-RED (scripts/embedded.ts) for all the browser tests of a run: the runtime can be started
 * only once per process, and the browser tests run in the same mocha process as the other tests. Each test
 * file deploys its own flows (a full deploy replaces the previous file's). Stopped when mocha ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNodeRed, type Embedded } from '../../scripts/embedded';

let shared: Promise<{ nr: Embedded; userDir: string }> | undefined;

/** The shared Node-RED (started on first use, on port 0, with a temporary user directory). */
export function sharedNodeRed(): Promise<{ nr: Embedded; userDir: string }> {
  if (!shared) {
    shared = (async () => {
      const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-nr-'));
      const nr = await startNodeRed({ userDir, port: 0, logLevel: 'off' });
      return { nr, userDir };
    })();
  }
  return shared;
}

/** Stops the shared Node-RED, if it was started (a root hook calls this once, after every test). */
export async function stopSharedNodeRed(): Promise<void> {
  if (!shared) return;
  const { nr, userDir } = await shared.catch(() => ({ nr: undefined, userDir: '' }));
  shared = undefined;
  await nr?.stop().catch(() => undefined);
  if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
}

/** Deploys a full set of flows (replacing what the previous test file deployed). */
export async function deployFlows(nr: Embedded, flows: unknown[]): Promise<void> {
  const res = await fetch(`${nr.url}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flows),
  });
  if (!res.ok) throw new Error(`deploy: HTTP ${res.status} ${await res.text()}`);
}

// A root-level hook: runs once after all the tests of the run, in whichever file mocha loaded this from.
after(async function () {
  await stopSharedNodeRed();
});
