/**
 * `npm start`: the demo. Starts the ThingsBoard simulator and Node-RED (embedded, with this package loaded
 * from the working copy) and deploys every flow in examples/ against the simulator, with demo credentials,
 * in a git-ignored `.demo/` user directory. Ctrl-C stops both.
 *
 * Options (environment): PORT (Node-RED port, default 1880), SIM_PORT (simulator port, default 0 = any).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Simulator } from '../test/sim';
import { REPO_ROOT, startNodeRed } from './embedded';
import { startDemoActivity } from './demo-activity';

type FlowNode = Record<string, unknown> & { id: string; type: string; z?: string };

const DEMO_CONNECTION = 'tb-demo-connection';

/** All examples as one deployable flow: a tab per example, one shared connection with demo credentials. */
export function demoFlows(simUrl: string): FlowNode[] {
  const dir = path.join(REPO_ROOT, 'examples');
  const out: FlowNode[] = [];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  out.push({
    id: DEMO_CONNECTION,
    type: 'tb-connection',
    name: 'Demo (simulator)',
    url: simUrl,
    authMode: 'password',
    timeout: 30,
    analyticsUrl: `${simUrl}/apiTrendz/`,
    analyticsAuth: 'same',
    reportConcurrency: 2,
    reportTimeout: 300,
    version: 1,
    credentials: { username: 'tenant@thingsboard.org', password: 'tenant' },
  });
  for (const file of files) {
    const nodes = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as FlowNode[];
    const connIds = new Set(nodes.filter((n) => n.type === 'tb-connection').map((n) => n.id));
    const tabs = new Set(nodes.map((n) => n.z).filter((z): z is string => typeof z === 'string'));
    for (const tab of tabs) out.push({ id: tab, type: 'tab', label: file.replace(/\.json$/, ''), disabled: false, info: '' });
    for (const n of nodes) {
      if (n.type === 'tb-connection') continue;
      const copy: FlowNode = { ...n };
      if (typeof copy.connection === 'string' && connIds.has(copy.connection)) copy.connection = DEMO_CONNECTION;
      out.push(copy);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const userDir = path.join(REPO_ROOT, '.demo');
  fs.mkdirSync(userDir, { recursive: true });
  const sim = new Simulator({ port: Number(process.env.SIM_PORT ?? 0) });
  const simUrl = await sim.start();
  const stopActivity = startDemoActivity(sim);
  const nr = await startNodeRed({
    userDir,
    port: Number(process.env.PORT ?? 1880),
    logLevel: 'info',
    credentialSecret: false, // demo only: credentials are stored in plain text in .demo/
  });
  const res = await fetch(`${nr.url}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(demoFlows(simUrl)),
  });
  if (!res.ok) throw new Error(`deploying the demo flows failed: HTTP ${res.status} ${await res.text()}`);
  process.stdout.write(
    `\nThingsBoard simulator: ${simUrl} (tenant@thingsboard.org / tenant)\nNode-RED editor:       ${nr.url}/\n` +
      'Every example flow is deployed on its own tab; the simulator changes telemetry every 3 s and raises,\n' +
      'acknowledges and clears an alarm every 15 s. Press Ctrl-C to stop.\n\n',
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    stopActivity();
    await nr.stop().catch(() => undefined);
    await sim.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
