/**
 * Agent tasks for scenario 5 (reports): N report requests fired at once through a Node-RED contender, or by a
 * raw axios client that retries 429 answers after Retry-After (or 1 s), until every report has arrived.
 */
import http from 'node:http';
import axios from 'axios';
import { ctx, deadline, hooks, now, sim } from './context';

export interface ReportRun {
  n: number;
  ok: number;
  errors: number;
  firstError?: string;
  elapsedMs: number;
  /** requests the client sent (429 retries included), from the simulator's log */
  requests: number;
  /** 429 answers of the simulator's queue */
  rejected: number;
  maxRunning: number;
  maxWaiting: number;
}

interface AnalyticsStats {
  rejected: number;
  maxRunningSeen: number;
  maxWaitingSeen: number;
}

async function resetCounters(): Promise<void> {
  await sim().call('POST', '/__sim/analytics/stats/reset', {});
  await sim().call('POST', '/__sim/analytics/requests/reset', {});
}

async function counters(): Promise<{ requests: number; stats: AnalyticsStats }> {
  const c = await sim().call<{ count: number }>(
    'GET',
    '/__sim/analytics/requests/count?prefix=publicApi/buildReport&method=POST',
  );
  const s = await sim().call<AnalyticsStats>('GET', '/__sim/analytics/stats');
  return { requests: c.count, stats: s };
}

/** N messages into `entry` at once; done when N reports (or errors) reached the sinks. */
export async function reportLoad(a: {
  entry: string;
  sink: string;
  errSink: string;
  n: number;
  timeoutMs: number;
}): Promise<ReportRun> {
  const entry = ctx.getNode(a.entry);
  await resetCounters();
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  let wake: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    wake = resolve;
  });
  hooks.sink = (id, msg) => {
    if (id === a.errSink) {
      errors++;
      firstError ??= String((msg.error as { message?: string })?.message);
    } else if (id === a.sink) {
      if (msg.statusCode !== undefined && msg.statusCode !== 200) {
        errors++;
        firstError ??= `HTTP ${String(msg.statusCode)}`;
      } else ok++;
    } else return;
    if (ok + errors >= a.n) wake();
  };
  const t0 = now();
  try {
    for (let i = 0; i < a.n; i++) entry.receive({ _benchI: i });
    await deadline(all, a.timeoutMs, `reports (${ok} ok, ${errors} failed of ${a.n})`);
  } finally {
    hooks.sink = () => undefined;
  }
  const elapsedMs = now() - t0;
  const c = await counters();
  return {
    n: a.n,
    ok,
    errors,
    firstError,
    elapsedMs,
    requests: c.requests,
    rejected: c.stats.rejected,
    maxRunning: c.stats.maxRunningSeen,
    maxWaiting: c.stats.maxWaitingSeen,
  };
}

/** The raw client: axios (keep-alive), all N at once, a 429 is retried after Retry-After or 1 s. */
export async function axiosReports(a: {
  baseUrl: string;
  token: string;
  body: unknown;
  n: number;
  timeoutMs: number;
}): Promise<ReportRun> {
  await resetCounters();
  const ax = axios.create({
    baseURL: a.baseUrl,
    httpAgent: new http.Agent({ keepAlive: true }),
    headers: { 'X-Authorization': `Bearer ${a.token}` },
    validateStatus: () => true,
  });
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const one = async (): Promise<void> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const res = await ax.post('publicApi/buildReport', a.body);
      if (res.status === 429) {
        const ra = Number(res.headers['retry-after']);
        await new Promise((r) => setTimeout(r, Number.isFinite(ra) && ra > 0 ? ra * 1000 : 1000));
        continue;
      }
      if (res.status === 200) ok++;
      else {
        errors++;
        firstError ??= `HTTP ${res.status}`;
      }
      return;
    }
    errors++;
    firstError ??= 'gave up after 100 attempts';
  };
  const t0 = now();
  await deadline(Promise.all(Array.from({ length: a.n }, one)), a.timeoutMs, 'axios reports');
  const elapsedMs = now() - t0;
  const c = await counters();
  return {
    n: a.n,
    ok,
    errors,
    firstError,
    elapsedMs,
    requests: c.requests,
    rejected: c.stats.rejected,
    maxRunning: c.stats.maxRunningSeen,
    maxWaiting: c.stats.maxWaitingSeen,
  };
}
