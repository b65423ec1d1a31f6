/** Full deploys through the Node-RED admin API, waiting until the runtime has started the new flows. */
import { ctx, deadline } from './context';

/** Deploys (full) through the admin API and resolves once the runtime has started that revision. */
export async function deploy(flows: unknown[], timeoutMs = 60000): Promise<void> {
  type Started = { config?: { rev?: string } };
  const events = ctx.RED.events as {
    on(e: string, f: (ev: Started) => void): void;
    removeListener(e: string, f: (ev: Started) => void): void;
  };
  const startedRevs = new Set<string>();
  let wake: () => void = () => undefined;
  const onStarted = (ev: Started): void => {
    if (ev?.config?.rev) startedRevs.add(ev.config.rev);
    wake();
  };
  events.on('flows:started', onStarted);
  try {
    const res = await fetch(`${ctx.nrUrl}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full', 'Node-RED-API-Version': 'v2' },
      body: JSON.stringify({ flows }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`deploy failed: HTTP ${res.status} ${text.slice(0, 300)}`);
    const rev = (JSON.parse(text) as { rev: string }).rev;
    // The runtime answers before it starts the new flows: wait for the start of this revision.
    await deadline(
      new Promise<void>((resolve) => {
        wake = () => {
          if (startedRevs.has(rev)) resolve();
        };
        wake();
      }),
      timeoutMs,
      'deploy (flows:started)',
    );
  } finally {
    events.removeListener('flows:started', onStarted);
  }
}
