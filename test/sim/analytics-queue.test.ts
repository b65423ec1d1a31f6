import assert from 'node:assert/strict';
import { once } from 'node:events';
import { VIEW_ENERGY_PER_BUILDING_PER_DAY } from '../../sim/analytics';
import { setupAnalytics, type ACtx, type Res } from '../../sim/analytics/testkit';
import { fakeTimers } from '../support/wait';

const REPORT = { viewConfigId: VIEW_ENERGY_PER_BUILDING_PER_DAY };

function statuses(rs: Res[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of rs) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

describe('simulator: analytics report queue', function () {
  let c: ACtx;
  let token: string;
  afterEach(async () => {
    await c.a.stop();
  });

  it('defaults: 10 running + 10 waiting; the 21st concurrent report gets 429 (no Retry-After by default)', async () => {
    c = await setupAnalytics({ reportDelayMs: 250 });
    token = (await c.login()).token;
    const rs = await Promise.all(Array.from({ length: 21 }, () => c.report(token, REPORT)));
    assert.deepEqual(statuses(rs), { 200: 20, 429: 1 });
    const busy = rs.find((r) => r.status === 429) as Res;
    assert.deepEqual(busy.body, {
      status: 429,
      message: 'Too many requests: the report queue is full, try again later',
    });
    assert.equal(busy.headers.get('retry-after'), null);
    const s = c.a.service.stats;
    assert.deepEqual(
      [
        s.maxRunningSeen,
        s.maxWaitingSeen,
        s.maxConcurrentSeen,
        s.admitted,
        s.rejected,
        s.completed,
        s.inFlight,
        s.running,
        s.waiting,
      ],
      [10, 10, 21, 20, 1, 20, 0, 0, 0],
    );
    assert.ok(rs.filter((r) => r.status === 200).every((r) => r.body.dataTable.length === 3));
  });

  it('deterministic with pauseReports: concurrency 2 + queue 1, the 4th is rejected; resume answers the rest', async () => {
    c = await setupAnalytics({ concurrency: 2, queueCapacity: 1, retryAfterSec: 7 });
    token = (await c.login()).token;
    const svc = c.a.service;
    svc.pauseReports();
    const rejected = once(svc, 'rejected');
    const pending = Array.from({ length: 4 }, () => c.report(token, REPORT));
    await rejected;
    assert.deepEqual([svc.stats.running, svc.stats.waiting, svc.inFlight], [2, 1, 3]);
    svc.resumeReports();
    const rs = await Promise.all(pending);
    assert.deepEqual(statuses(rs), { 200: 3, 429: 1 });
    assert.equal(rs.find((r) => r.status === 429)?.headers.get('retry-after'), '7', 'retryAfterSec adds Retry-After');
    assert.deepEqual([svc.stats.running, svc.stats.waiting, svc.stats.completed], [0, 0, 3]);
  });

  it('queueCapacity 0: only the workers; setQueue at run time starts waiting reports', async () => {
    c = await setupAnalytics({ concurrency: 1, queueCapacity: 0 });
    token = (await c.login()).token;
    const svc = c.a.service;
    svc.pauseReports();
    const first = c.report(token, REPORT);
    await once(svc, 'started');
    assert.equal((await c.report(token, REPORT)).status, 429);
    svc.setQueue({ queueCapacity: 1 });
    const second = c.report(token, REPORT);
    await once(svc, 'queued');
    assert.equal(svc.stats.waiting, 1);
    const started = once(svc, 'started');
    svc.setQueue({ concurrency: 2 });
    await started;
    assert.deepEqual([svc.stats.running, svc.stats.waiting], [2, 0]);
    svc.resumeReports();
    assert.deepEqual([(await first).status, (await second).status], [200, 200]);
  });

  it('never more than `concurrency` reports compute at once; the rest wait their turn', async () => {
    c = await setupAnalytics({ concurrency: 2, reportDelayMs: 40 });
    token = (await c.login()).token;
    const svc = c.a.service;
    let arrived = 0;
    let allIn!: () => void;
    const admitted = new Promise<void>((resolve) => (allIn = resolve));
    const count = () => ++arrived === 6 && allIn();
    svc.on('started', count).on('queued', count);
    const clock = fakeTimers(); // each report computes for 40 ms of the fake clock
    let rs: Res[];
    try {
      const all = Promise.all(Array.from({ length: 6 }, () => c.report(token, REPORT)));
      await admitted;
      assert.deepEqual([svc.stats.running, svc.stats.waiting], [2, 4]);
      // three rounds of 40 ms: two reports end at each
      for (const completed of [2, 4, 6]) {
        await clock.tickAsync(39);
        assert.equal(svc.stats.completed, completed - 2, `${completed - 2} done before the round's 40 ms`);
        await clock.tickAsync(1);
        assert.equal(svc.stats.completed, completed, `${completed} done after it`);
      }
      rs = await all;
    } finally {
      clock.restore();
      svc.off('started', count).off('queued', count);
    }
    assert.deepEqual(statuses(rs), { 200: 6 });
    const s = svc.stats;
    assert.deepEqual([s.maxRunningSeen, s.maxWaitingSeen, s.maxConcurrentSeen], [2, 4, 6]);
  });

  it('maxConcurrentSeen tells whether a client kept to its own limit', async () => {
    c = await setupAnalytics({ reportDelayMs: 50 });
    token = (await c.login()).token;
    const svc = c.a.service;
    // a client with at most 3 reports at once
    let next = 0;
    const results: Res[] = [];
    const worker = async (): Promise<void> => {
      while (next < 12) {
        next++;
        results.push(await c.report(token, REPORT));
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    assert.equal(results.length, 12);
    assert.equal(svc.maxConcurrentSeen, 3);
    assert.equal(svc.inFlight, 0);
    // a client without a limit is caught
    svc.resetStats();
    assert.equal(svc.maxConcurrentSeen, 0);
    await Promise.all(Array.from({ length: 8 }, () => c.report(token, REPORT)));
    assert.equal(svc.maxConcurrentSeen, 8);
  });

  it('bad requests are answered before the queue and take no slot', async () => {
    c = await setupAnalytics({ concurrency: 1, queueCapacity: 0 });
    token = (await c.login()).token;
    const svc = c.a.service;
    svc.pauseReports();
    const running = c.report(token, REPORT);
    await once(svc, 'started');
    assert.equal((await c.report(token, { viewConfigId: '00000000-0000-4000-8000-000000000000' })).status, 400);
    assert.equal((await c.report('bad', REPORT)).status, 401);
    assert.equal((await c.report(token, REPORT)).status, 429);
    svc.resumeReports();
    assert.equal((await running).status, 200);
    assert.deepEqual([svc.stats.admitted, svc.stats.rejected], [1, 1]);
  });
});
