/**
 * Agent tasks for the REST scenarios: a closed loop of N requests with K in flight, through a Node-RED
 * contender (entry node -> ... -> sink) or a raw axios client; and one large allPages query (scenario 4).
 */
import http from 'node:http';
import axios, { AxiosInstance } from 'axios';
import { summarize } from '../lib/stats';
import { ctx, deadline, hooks, now, sim } from './context';

export interface LoadResult {
  n: number;
  errors: number;
  firstError?: string;
  elapsedMs: number;
  perSec: number;
  p50: number;
  p99: number;
  max: number;
  /** Client (agent process) CPU, ms. */
  cpuMs: number;
  /** Simulator CPU during the run, ms. */
  simCpuMs: number;
  /** Items in the last answer (sanity check). */
  items: number;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** How many items an answer carries, whatever the contender's output shape. */
export function itemsOf(payload: unknown): number {
  if (Array.isArray(payload)) return payload.length;
  if (payload && typeof payload === 'object' && Array.isArray((payload as { data?: unknown[] }).data))
    return (payload as { data: unknown[] }).data.length;
  return -1;
}

export interface NodeLoadArgs {
  entry: string;
  sink: string;
  errSink: string;
  n: number;
  inflight: number;
  timeoutMs: number;
  /** Properties every message carries (the values a bound query reads). */
  msg?: Record<string, unknown>;
}

/** N messages into `entry`, K in flight; latency = receive() into the entry node -> arrival at the sink. */
export async function nodeLoad(a: NodeLoadArgs): Promise<LoadResult> {
  const entry = ctx.getNode(a.entry);
  const t0 = new Float64Array(a.n);
  const lat = new Float64Array(a.n);
  let sent = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | undefined;
  let items = -1;
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  let start = 0;
  const result = new Promise<void>((resolve) => {
    const sendOne = (): void => {
      const i = sent++;
      t0[i] = now();
      entry.receive(a.msg ? { ...a.msg, _benchI: i } : { _benchI: i });
    };
    hooks.sink = (id, msg) => {
      if (id !== a.sink && id !== a.errSink) return;
      const i = msg._benchI as number;
      if (typeof i !== 'number') return;
      lat[i] = now() - t0[i];
      const status = msg.statusCode as number | undefined;
      if (id === a.errSink || (status !== undefined && status !== 200)) {
        errors++;
        if (!firstError)
          firstError = id === a.errSink ? String((msg.error as { message?: string })?.message) : `HTTP ${status}`;
      } else items = itemsOf(msg.payload);
      completed++;
      if (sent < a.n) sendOne();
      else if (completed === a.n) resolve();
    };
    start = now();
    for (let k = 0; k < Math.min(a.inflight, a.n); k++) sendOne();
  });
  try {
    await deadline(result, a.timeoutMs, `load through ${a.entry}`);
  } finally {
    hooks.sink = () => undefined;
  }
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  const simCpu = (await sim().cpuMs()) - simStart;
  const s = summarize(lat);
  return {
    n: a.n,
    errors,
    firstError,
    elapsedMs,
    perSec: (a.n / elapsedMs) * 1000,
    p50: s.p50,
    p99: s.p99,
    max: s.max,
    cpuMs: cpu,
    simCpuMs: simCpu,
    items,
  };
}

const axiosClients = new Map<string, AxiosInstance>();

export interface AxiosLoadArgs {
  url: string;
  token: string;
  query: unknown;
  n: number;
  inflight: number;
  /** 'default' = axios defaults (follow-redirects) with a keep-alive agent; 'noRedirect' = maxRedirects: 0. */
  variant: 'default' | 'noRedirect';
  timeoutMs: number;
}

export function axiosFor(variant: string, token: string): AxiosInstance {
  const key = `${variant}:${token}`;
  let ax = axiosClients.get(key);
  if (!ax) {
    ax = axios.create({
      httpAgent: new http.Agent({ keepAlive: true }),
      headers: { 'X-Authorization': `Bearer ${token}` },
      ...(variant === 'noRedirect' ? { maxRedirects: 0 } : {}),
    });
    axiosClients.set(key, ax);
  }
  return ax;
}

/** The raw client: axios with keep-alive, N requests with K in flight. */
export async function axiosLoad(a: AxiosLoadArgs): Promise<LoadResult> {
  const ax = axiosFor(a.variant, a.token);
  const lat = new Float64Array(a.n);
  let sent = 0;
  let errors = 0;
  let firstError: string | undefined;
  let items = -1;
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  const start = now();
  const worker = async (): Promise<void> => {
    while (sent < a.n) {
      const i = sent++;
      const t = now();
      try {
        const res = await ax.post(a.url, a.query);
        items = itemsOf(res.data);
      } catch (err) {
        errors++;
        if (!firstError) firstError = (err as Error).message;
      }
      lat[i] = now() - t;
    }
  };
  await deadline(Promise.all(Array.from({ length: Math.min(a.inflight, a.n) }, worker)), a.timeoutMs, 'axios load');
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  const simCpu = (await sim().cpuMs()) - simStart;
  const s = summarize(lat);
  return {
    n: a.n,
    errors,
    firstError,
    elapsedMs,
    perSec: (a.n / elapsedMs) * 1000,
    p50: s.p50,
    p99: s.p99,
    max: s.max,
    cpuMs: cpu,
    simCpuMs: simCpu,
    items,
  };
}

export interface LargeResult {
  elapsedMs: number;
  items: number;
  messages: number;
  errors: number;
  firstError?: string;
  cpuMs: number;
  simCpuMs: number;
}

/**
 * One big query through a Node-RED contender: counts the items reaching the sink (one message holding them
 * all, or one message per item) until `expect` items have arrived.
 */
export async function nodeLarge(a: {
  entry: string;
  sink: string;
  errSink: string;
  expect: number;
  timeoutMs: number;
}): Promise<LargeResult> {
  const entry = ctx.getNode(a.entry);
  let items = 0;
  let messages = 0;
  let errors = 0;
  let firstError: string | undefined;
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  const start = now();
  const result = new Promise<void>((resolve) => {
    hooks.sink = (id, msg) => {
      if (id === a.errSink) {
        errors++;
        firstError ??= String((msg.error as { message?: string })?.message);
        resolve();
        return;
      }
      if (id !== a.sink) return;
      messages++;
      const p = msg.payload;
      items += Array.isArray(p) ? p.length : 1;
      if (items >= a.expect) resolve();
    };
    entry.receive({ _benchI: 0 });
  });
  try {
    await deadline(result, a.timeoutMs, `large query through ${a.entry}`);
  } finally {
    hooks.sink = () => undefined;
  }
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  return { elapsedMs, items, messages, errors, firstError, cpuMs: cpu, simCpuMs: (await sim().cpuMs()) - simStart };
}

/** The raw client over every page: holds all items (split = false) or hands each to a callback (split = true). */
export async function axiosLarge(a: {
  url: string;
  token: string;
  query: { pageLink: Record<string, unknown> };
  split: boolean;
  timeoutMs: number;
}): Promise<LargeResult> {
  const ax = axiosFor('default', a.token);
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  const start = now();
  let messages = 0;
  const all: unknown[] = [];
  let seen = 0;
  const run = async (): Promise<void> => {
    for (let p = 0; ; p++) {
      const res = await ax.post(a.url, { ...a.query, pageLink: { ...a.query.pageLink, page: p } });
      const page = res.data as { data: unknown[]; hasNext: boolean };
      if (a.split) {
        for (const item of page.data) {
          if (item) seen++;
          messages++;
        }
      } else for (const item of page.data) all.push(item);
      if (!page.hasNext) break;
    }
    if (!a.split) {
      messages = 1;
      seen = all.length;
    }
  };
  await deadline(run(), a.timeoutMs, 'axios allPages');
  const elapsedMs = now() - start;
  return {
    elapsedMs,
    items: seen,
    messages,
    errors: 0,
    cpuMs: cpuMs(cpuStart),
    simCpuMs: (await sim().cpuMs()) - simStart,
  };
}
