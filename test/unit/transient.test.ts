/**
 * The HTTP client's retry policy for transient answers against a plain local server: 502/503/504 are retried for
 * reads and idempotent writes (Retry-After honoured, the retry budget respected), never for a `once` or
 * `atMostOnce` request; a refused connection is retried for every request; an answer over the size limit is
 * dropped while it streams in.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TbApiError, TbError } from '../../src/errors';
import { HttpClient, type Delivery, type RetryPolicy } from '../../src/platform/http';
import { fakeTimers } from '../support/wait';

const FAST: RetryPolicy = { retries: 3, initialMs: 20, maxMs: 5000, jitter: 0, maxTotalMs: 30000 };

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'stream';

/** A server answering each request with the next of `answers` (then 200 {"ok":true}); `hits` counts requests. */
async function server(
  answers: Answer[],
  port = 0,
): Promise<{ srv: http.Server; url: string; hits: () => number; streamed: () => number; closed: () => Promise<void> }> {
  let hits = 0;
  let streamed = 0;
  let streamClosed!: () => void;
  const closed = new Promise<void>((resolve) => (streamClosed = resolve));
  const srv = http.createServer((req, res) => {
    const a = answers[hits++];
    req.resume();
    if (a === 'stream') {
      // 64 MB in 64 KB chunks, as fast as the client reads; stops when the client goes
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      res.write('{"filler":"');
      const pump = (): void => {
        while (streamed < 64 * 1024 * 1024) {
          streamed += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      res.on('close', streamClosed);
      pump();
      return;
    }
    const { status, headers, body } = a ?? { status: 200 };
    res.writeHead(status, { 'Content-Type': 'application/json', ...(headers ?? {}) });
    res.end(
      body ?? JSON.stringify(status === 200 ? { ok: true } : { status, message: `status ${status}`, errorCode: 2 }),
    );
  });
  await new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', resolve));
  return {
    srv,
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    hits: () => hits,
    streamed: () => streamed,
    /** Resolves when the streamed answer's connection closed (the client went away, or the whole body was written). */
    closed: () => closed,
  };
}

function close(srv: http.Server): Promise<void> {
  srv.closeAllConnections();
  return new Promise((resolve) => srv.close(() => resolve()));
}

async function rejected(p: Promise<unknown>): Promise<TbError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TbError, `a TbError, got ${String(err)}`);
    return err;
  }
  return assert.fail('no error');
}

describe('unit: transient answers and the size limit (HttpClient)', () => {
  let client: HttpClient | undefined;
  const servers: http.Server[] = [];
  afterEach(async () => {
    client?.close();
    client = undefined;
    for (const s of servers.splice(0)) await close(s);
  });
  const start = async (answers: Answer[], policy: RetryPolicy = FAST, maxResponseBytes?: number) => {
    const s = await server(answers);
    servers.push(s.srv);
    client = new HttpClient({ baseUrl: s.url, timeoutMs: 5000, retry: policy, maxResponseBytes });
    return s;
  };

  for (const delivery of ['default', 'idempotent'] as Delivery[]) {
    it(`${delivery}: 502, 503 and 504 are retried, then the answer`, async () => {
      const s = await start([{ status: 502 }, { status: 503 }, { status: 504 }]);
      const tries: number[] = [];
      const res = await client!.send('GET', '/x', undefined, undefined, { delivery, onRetry: (n) => tries.push(n) });
      assert.equal(res.status, 200);
      assert.equal(s.hits(), 4);
      assert.deepEqual(tries, [1, 2, 3]);
    });
  }

  it("honours a 503's Retry-After (seconds), within the budget", async () => {
    const s = await start([{ status: 503, headers: { 'Retry-After': '1' } }]);
    const waits: number[] = [];
    const clock = fakeTimers();
    try {
      let retrying!: () => void;
      const retry = new Promise<void>((resolve) => (retrying = resolve));
      const sent = client!.send('GET', '/x', undefined, undefined, {
        onRetry: (_n, ms) => {
          waits.push(ms);
          retrying();
        },
      });
      await retry; // the 503 is in, and the client's wait has begun
      await clock.tickAsync(999);
      assert.equal(clock.countTimers(), 1, 'its wait is still running after 999 ms');
      assert.equal(s.hits(), 1, 'not sent again before the second is over');
      await clock.tickAsync(1);
      assert.equal((await sent).status, 200);
    } finally {
      clock.restore();
    }
    assert.deepEqual(waits, [1000]);
    assert.equal(s.hits(), 2);
  });

  it('stops when the next wait would pass the retry budget: TB_UNAVAILABLE with the tries and the wait so far', async () => {
    const s = await start([{ status: 503 }, { status: 503, headers: { 'Retry-After': '3' } }], {
      ...FAST,
      maxTotalMs: 1000,
    });
    const clock = fakeTimers();
    let err: TbError;
    try {
      let retrying!: () => void;
      const retry = new Promise<void>((resolve) => (retrying = resolve));
      const failed = rejected(client!.send('GET', '/x', undefined, undefined, { onRetry: () => retrying() }));
      await retry;
      // The first 503 has no Retry-After: its backoff is 20 ms. The clock moves no further, so had the client
      // waited the second answer's 3 s, this would never settle.
      await clock.tickAsync(20);
      err = await failed;
    } finally {
      clock.restore();
    }
    assert.ok(err instanceof TbApiError);
    assert.equal(err.code, 'TB_UNAVAILABLE');
    assert.equal(err.status, 503);
    assert.match(
      err.message,
      /HTTP 503, errorCode 2: status 503 \(GET \/x\) \(gave up after 1 retry, 2 tries, 0 s of waiting\)/,
    );
    assert.equal(s.hits(), 2);
  });

  it('never more than retries + 1 requests', async () => {
    const s = await start(
      Array.from({ length: 10 }, () => ({ status: 504 })),
      { ...FAST, retries: 2 },
    );
    const err = await rejected(client!.send('POST', '/x', {}, undefined, { delivery: 'idempotent' }));
    assert.equal(err.code, 'TB_UNAVAILABLE');
    assert.equal(s.hits(), 3);
  });

  for (const delivery of ['once', 'atMostOnce'] as Delivery[]) {
    it(`${delivery}: a 502, 503 or 504 is not sent again; 502/504 say the server may or may not have applied it`, async () => {
      for (const status of [502, 503, 504]) {
        const s = await start([{ status }]);
        const err = await rejected(client!.send('POST', '/x', {}, undefined, { delivery }));
        assert.equal(err.code, 'TB_UNAVAILABLE');
        assert.equal(s.hits(), 1, `${status}: one request`);
        if (status === 503) assert.match(err.message, /not sent again: a resend could do it twice/);
        else assert.match(err.message, /not sent again: the server may or may not have applied it/);
        client!.close();
      }
    });

    it(`${delivery}: a 429 is still retried (the server refused it before doing anything)`, async () => {
      const s = await start([{ status: 429, headers: { 'Retry-After': '0' } }]);
      assert.equal((await client!.send('POST', '/x', {}, undefined, { delivery })).status, 200);
      assert.equal(s.hits(), 2);
    });
  }

  it('default: a refused connection is retried (the server restarting), then the answer', async () => {
    const first = await server([]);
    const port = (first.srv.address() as AddressInfo).port;
    await close(first.srv);
    client = new HttpClient({ baseUrl: first.url, timeoutMs: 5000, retry: FAST });
    const res = await client.send('GET', '/x', undefined, undefined, {
      onRetry: (n) => {
        if (n === 1) void server([], port).then((s) => servers.push(s.srv));
      },
    });
    assert.equal(res.status, 200);
  });

  it('an answer over the limit is dropped while it streams in: TB_RESPONSE_TOO_LARGE, the rest never read', async () => {
    const s = await start(['stream'], FAST, 1024 * 1024);
    const err = await rejected(client!.send('GET', '/big', undefined, undefined));
    assert.equal(err.code, 'TB_RESPONSE_TOO_LARGE');
    assert.match(err.message, /GET \/big with more than 1 MB, the connection's limit/);
    await s.closed(); // the client went away: the server's answer is over
    assert.ok(s.streamed() < 16 * 1024 * 1024, `the server stopped early (${s.streamed()} bytes of 64 MB written)`);
    assert.equal(s.hits(), 1, 'not retried');
  });
});
