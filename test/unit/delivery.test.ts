/**
 * The HTTP client's delivery modes against a plain local server, and the bulk runner: an at-most-once request (an
 * RPC) is never resent after it may have gone out — not even on a kept-alive socket the server closed — and is
 * retried when the connection was refused before it went out; an idempotent one (a stamped save) is resent once
 * after a lost connection; a bulk keeps input order and its bound on requests in flight.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TbNetworkError } from '../../src/errors';
import { Gate, runBulk, allFailedError, bulkFailedError, errorEntry, forEachBulk } from '../../src/platform/bulk';
import { HttpClient, type RetryPolicy } from '../../src/platform/http';
import { fakeTimers } from '../support/wait';

const FAST: RetryPolicy = { retries: 3, initialMs: 20, maxMs: 50, jitter: 0 };

/**
 * Runs `work` on sinon's fake timers, moving the clock until no timer is left: the work of each item lasts its own
 * number of (fake) milliseconds, so the items finish in an order of the test's choosing, the same on any machine.
 */
async function onFakeTimers<T>(work: () => Promise<T>): Promise<T> {
  const clock = fakeTimers();
  try {
    const done = work();
    await clock.runAllAsync();
    return await done;
  } finally {
    clock.restore();
  }
}

/** A server that counts requests per path; `destroy(path)` says whether to drop the socket after reading a request. */
async function server(
  destroy: (path: string, n: number) => boolean,
  port = 0,
): Promise<{ srv: http.Server; url: string; count: Map<string, number> }> {
  const count = new Map<string, number>();
  const srv = http.createServer((req, res) => {
    const path = req.url ?? '';
    const n = (count.get(path) ?? 0) + 1;
    count.set(path, n);
    req.resume();
    req.on('end', () => {
      if (destroy(path, n)) req.socket.destroy();
      else {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ ok: true, n }));
      }
    });
  });
  srv.keepAliveTimeout = 60000;
  await new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { srv, url, count };
}

function close(srv: http.Server): Promise<void> {
  srv.closeAllConnections();
  return new Promise((resolve) => srv.close(() => resolve()));
}

async function rejection(p: Promise<unknown>): Promise<TbNetworkError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TbNetworkError, `a TbNetworkError, got ${String(err)}`);
    return err;
  }
  return assert.fail('no error');
}

describe('unit: delivery modes and bulk', () => {
  describe('HTTP delivery', () => {
    let client: HttpClient | undefined;
    afterEach(() => client?.close());

    it('the default mode resends once when a kept-alive socket is reset as it is reused: fine for a read, a second run for an RPC', async () => {
      const { srv, url, count } = await server((path) => path === '/rpc');
      try {
        client = new HttpClient({ baseUrl: url, timeoutMs: 5000, retry: FAST });
        assert.equal((await client.send('GET', '/warm', undefined, undefined)).status, 200);
        await rejection(client.send('POST', '/rpc', { method: 'x' }, undefined));
        assert.equal(count.get('/rpc'), 2, 'the server got it twice');
      } finally {
        await close(srv);
      }
    });

    it('atMostOnce: a connection lost after the request went out is an error that says it may have run, never a resend', async () => {
      const { srv, url, count } = await server((path) => path === '/rpc');
      try {
        client = new HttpClient({ baseUrl: url, timeoutMs: 5000, retry: FAST });
        assert.equal((await client.send('GET', '/warm', undefined, undefined)).status, 200);
        const err = await rejection(
          client.send('POST', '/rpc', { method: 'x' }, undefined, { delivery: 'atMostOnce' }),
        );
        assert.equal(err.maybeProcessed, true);
        assert.equal(err.code, 'TB_UNREACHABLE');
        assert.match(err.message, /lost before it answered/);
        assert.equal(count.get('/rpc'), 1, 'sent once');
      } finally {
        await close(srv);
      }
    });

    it('atMostOnce goes out on a connection of its own: a kept-alive socket the server closed cannot swallow it', async () => {
      const sockets = new Set<unknown>();
      const { srv, url, count } = await server(() => false);
      srv.on('connection', (s) => sockets.add(s));
      try {
        client = new HttpClient({ baseUrl: url, timeoutMs: 5000, retry: FAST });
        await client.send('GET', '/warm', undefined, undefined);
        await client.send('GET', '/warm', undefined, undefined);
        assert.equal(sockets.size, 1, 'reads share a kept-alive socket');
        await client.send('POST', '/rpc', {}, undefined, { delivery: 'atMostOnce' });
        await client.send('POST', '/rpc', {}, undefined, { delivery: 'atMostOnce' });
        assert.equal(sockets.size, 3, 'each RPC on a new connection');
        assert.equal(count.get('/rpc'), 2);
      } finally {
        await close(srv);
      }
    });

    it('atMostOnce: a connection refused before anything went out is retried (the server restarting)', async () => {
      const first = await server(() => false);
      const port = (first.srv.address() as AddressInfo).port;
      await close(first.srv);
      let second: Awaited<ReturnType<typeof server>> | undefined;
      const retries: number[] = [];
      client = new HttpClient({ baseUrl: first.url, timeoutMs: 5000, retry: FAST });
      try {
        const res = await client.send('POST', '/rpc', {}, undefined, {
          delivery: 'atMostOnce',
          onRetry: (n) => {
            retries.push(n);
            // the server is back before the retry
            if (n === 1) void server(() => false, port).then((s) => (second = s));
          },
        });
        assert.equal(res.status, 200);
        assert.ok(retries.length >= 1);
        assert.equal(second!.count.get('/rpc'), 1);
      } finally {
        if (second) await close(second.srv);
      }
    });

    it('atMostOnce: refused every time is an error that says nothing was run', async () => {
      const first = await server(() => false);
      await close(first.srv);
      client = new HttpClient({ baseUrl: first.url, timeoutMs: 5000, retry: { ...FAST, retries: 1 } });
      const err = await rejection(client.send('POST', '/rpc', {}, undefined, { delivery: 'atMostOnce' }));
      assert.equal(err.maybeProcessed, false);
      assert.match(err.message, /ECONNREFUSED/);
    });

    it('atMostOnce: no answer in time after it went out may have run too', async () => {
      const srv = http.createServer(() => undefined); // never answers
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
      try {
        client = new HttpClient({
          baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
          timeoutMs: 200,
          retry: FAST,
        });
        const err = await rejection(client.send('POST', '/rpc', {}, undefined, { delivery: 'atMostOnce' }));
        assert.equal(err.code, 'TB_TIMEOUT');
        assert.equal(err.maybeProcessed, true);
      } finally {
        await close(srv);
      }
    });

    it('idempotent: resent once after a lost connection (a stamped save writes the same point again)', async () => {
      const { srv, url, count } = await server((path, n) => path === '/save' && n === 1);
      try {
        client = new HttpClient({ baseUrl: url, timeoutMs: 5000, retry: FAST });
        const res = await client.send('POST', '/save', [{ ts: 1, values: { t: 1 } }], undefined, {
          delivery: 'idempotent',
        });
        assert.equal(res.status, 200);
        assert.equal(count.get('/save'), 2);
      } finally {
        await close(srv);
      }
    });
  });

  describe('bulk', () => {
    it('results in input order whatever order they finish in, at most `concurrency` in flight', async () => {
      let inFlight = 0;
      let peak = 0;
      const items = Array.from({ length: 20 }, (_, i) => i);
      const out = await onFakeTimers(() =>
        runBulk(items, 4, async (i) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, (20 - i) % 7));
          inFlight--;
          if (i === 13) throw new Error('thirteen');
          return i * 10;
        }),
      );
      assert.equal(peak, 4);
      assert.deepEqual(
        out.map((o) => (o.ok ? o.value : 'failed')),
        items.map((i) => (i === 13 ? 'failed' : i * 10)),
      );
    });

    it('a stop signal takes no new item', async () => {
      const stop = { stopped: false };
      const seen: number[] = [];
      const out = await runBulk(
        [1, 2, 3, 4],
        1,
        async (i) => {
          seen.push(i);
          if (i === 2) stop.stopped = true;
          return i;
        },
        stop,
      );
      assert.deepEqual(seen, [1, 2]);
      assert.deepEqual(
        out.map((o) => o.ok),
        [true, true, false, false],
      );
      assert.equal(errorEntry((out[2] as { error: unknown }).error).code, 'TB_CLOSED');
    });

    it('the gate bounds calls in flight, first come first served', async () => {
      const gate = new Gate(2);
      let inFlight = 0;
      let peak = 0;
      const order: number[] = [];
      await onFakeTimers(() =>
        Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            gate.run(async () => {
              inFlight++;
              peak = Math.max(peak, inFlight);
              order.push(i);
              await new Promise((r) => setTimeout(r, 5));
              inFlight--;
            }),
          ),
        ),
      );
      assert.equal(peak, 2);
      assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    });

    it('forEachBulk hands each outcome over as it settles, with its index, and keeps no list', async () => {
      let inFlight = 0;
      let peak = 0;
      const seen: Array<[number, unknown]> = [];
      const ret = await onFakeTimers(() =>
        forEachBulk(
          [0, 1, 2, 3, 4, 5, 6, 7],
          3,
          async (i) => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            await new Promise((r) => setTimeout(r, (8 - i) % 4));
            inFlight--;
            if (i === 5) throw new Error('five');
            return i * 2;
          },
          undefined,
          (i, o) => seen.push([i, o.ok ? o.value : (o.error as Error).message]),
        ),
      );
      assert.equal(ret, undefined);
      assert.equal(peak, 3);
      assert.notDeepEqual(
        seen.map(([i]) => i),
        [0, 1, 2, 3, 4, 5, 6, 7],
        'in the order they settle, not input order',
      );
      assert.deepEqual(
        seen.sort((a, b) => a[0] - b[0]),
        [
          [0, 0],
          [1, 2],
          [2, 4],
          [3, 6],
          [4, 8],
          [5, 'five'],
          [6, 12],
          [7, 14],
        ],
      );
    });

    it("bulkFailedError names the entity at the index and takes its error's code", () => {
      const entities = [
        { entityType: 'DEVICE', id: 'a' },
        { entityType: 'DEVICE', id: 'b' },
      ] as const;
      const err = bulkFailedError([...entities], 2, 0, new TbNetworkError('TB_UNREACHABLE', 'no route'));
      assert.equal(err.code, 'TB_UNREACHABLE');
      assert.equal(err.message, 'All 2 entities failed; the first, DEVICE a: no route');
      const one = bulkFailedError([entities[0]], 1, 0, new Error('bare'));
      assert.equal(one.code, 'TB_HTTP_ERROR');
      assert.equal(one.message, 'The entity failed; bare');
    });

    it("all failed: the first failure's code and words", () => {
      const err = allFailedError(
        [
          { entityType: 'DEVICE', id: 'a' },
          { entityType: 'DEVICE', id: 'b' },
        ],
        [
          { ok: false, error: new TbNetworkError('TB_UNREACHABLE', 'no route') },
          { ok: false, error: new Error('x') },
        ],
      );
      assert.equal(err.code, 'TB_UNREACHABLE');
      assert.equal(err.message, 'All 2 entities failed; the first, DEVICE a: no route');
    });
  });
});
