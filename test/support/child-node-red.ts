/**
 * Node-RED with its own settings (e.g. adminAuth) in a child process (test/support/embedded-child.ts), for tests
 * that need the real editor API with those settings: a separate process keeps the runtime's module state away
 * from the test helper's and from the shared browser-test Node-RED. It loads the build in dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

// bcryptjs ships with node-red (its password hashes); typed loosely here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const bcrypt = require('bcryptjs') as { hashSync(pw: string, rounds: number): string };

export interface ChildNodeRed {
  url: string;
  /** A token of the editor's password grant for a user, with a scope ('*' or 'read'). */
  token(username: string, password: string, scope: string): Promise<string>;
  stop(): Promise<void>;
}

/** adminAuth with an "admin" user (all permissions, password admin-pw) and a "reader" (read only, reader-pw). */
export function adminAuthSettings(): Record<string, unknown> {
  return {
    adminAuth: {
      type: 'credentials',
      users: [
        { username: 'admin', password: bcrypt.hashSync('admin-pw', 8), permissions: '*' },
        { username: 'reader', password: bcrypt.hashSync('reader-pw', 8), permissions: 'read' },
      ],
    },
  };
}

export async function startChildNodeRed(settings: Record<string, unknown>): Promise<ChildNodeRed> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'nodes', 'tb-connection', 'index.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  }
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-child-nr-'));
  const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
  const proc: ChildProcess = spawn(tsx, [path.join(ROOT, 'test', 'support', 'embedded-child.ts')], {
    cwd: ROOT,
    env: { ...process.env, TB_EMBEDDED_OPTIONS: JSON.stringify({ userDir, port: 0, logLevel: 'error', settings }) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    proc.on('exit', (code) => reject(new Error(`embedded Node-RED exited with ${code}: ${err.slice(-2000)}`)));
  });
  return {
    url,
    async token(username, password, scope) {
      const res = await fetch(`${url}/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_id: 'node-red-editor', grant_type: 'password', scope, username, password }),
      });
      if (res.status !== 200) throw new Error(`token for ${username}: HTTP ${res.status}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        proc.stdin?.end();
        await exited;
      }
      fs.rmSync(userDir, { recursive: true, force: true });
    },
  };
}
