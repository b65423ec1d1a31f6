/**
 * The bound on what a connection's answers hold while they are read (src/platform/answer-limit.ts), through the
 * real HttpClient against a plain local server: an answer declaring a length over the limit is refused before it
 * is read; answers read at the same time share the limit (the oldest reads on, the others wait), so three answers
 * over the limit at once hold about one limit, and answers under it are all delivered whole.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TbError } from '../../src/errors';
import { HttpClient } from '../../src/platform/http';

const MB = 1024 * 1024;
const LIMIT = 1 * MB;

/** `/declared/<bytes>` answers with a Content-Length; `/chunked/<bytes>` without; `written` counts body bytes sent. */
async function server(): Promise<{ srv: http.Server; url: string; written: () => number }> {
  let written = 0;
  const srv = http.createServer((req, res) => {
    req.resume();
    const [, kind, n] = (req.url ?? '').split('/');
    const size = Number(n);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      ...(kind === 'declared' ? { 'Content-Length': String(size) } : {}),
    });
    const head = '{"filler":"';
    const chunk = Buffer.alloc(16 * 1024, 0x78);
    let left = size - head.length - 2;
    res.write(head);
    const pump = (): void => {
      while (left > 0) {
        const k = Math.min(left, chunk.length);
        left -= k;
        written += k;
        if (!res.write(k === chunk.length ? chunk : chunk.subarray(0, k))) return void res.once('drain', pump);
      }
      res.end('"}');
    };
    res.on('error', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { srv, url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, written: () => written };
}

describe('unit: answers read at once share the Largest answer (AnswerLimit)', () => {
  let s: Awaited<ReturnType<typeof server>>;
  let client: HttpClient;
  beforeEach(async () => {
    s = await server();
    client = new HttpClient({ baseUrl: s.url, timeoutMs: 10000, maxResponseBytes: LIMIT });
  });
  afterEach(async () => {
    client.close();
    s.srv.closeAllConnections();
    await new Promise((r) => s.srv.close(r));
  });

  const code = async (p: Promise<unknown>): Promise<string> => {
    try {
      await p;
      return 'delivered';
    } catch (err) {
      assert.ok(err instanceof TbError, String(err));
      return err.code;
    }
  };

  it('an answer declaring a length over the limit is refused before a byte of it is held', async () => {
    const got = await Promise.all(
      [1, 2, 3].map(() => code(client.send('GET', `/declared/${20 * MB}`, undefined, undefined))),
    );
    assert.deepEqual(got, ['TB_RESPONSE_TOO_LARGE', 'TB_RESPONSE_TOO_LARGE', 'TB_RESPONSE_TOO_LARGE']);
    assert.equal(client.answers.peakBytes, 0, 'nothing was held');
    assert.ok(s.written() < 3 * 4 * MB, `the server stopped early (${s.written()} bytes of 60 MB)`);
    assert.equal(client.answers.heldBytes, 0);
  });

  it('a declared length at the limit is read and delivered', async () => {
    assert.equal(await code(client.send('GET', `/declared/${LIMIT}`, undefined, undefined)), 'delivered');
  });

  it('three chunked answers over the limit at once hold about one limit together, not three', async () => {
    const got = await Promise.all(
      [1, 2, 3].map(() => code(client.send('GET', `/chunked/${20 * MB}`, undefined, undefined))),
    );
    assert.deepEqual(got, ['TB_RESPONSE_TOO_LARGE', 'TB_RESPONSE_TOO_LARGE', 'TB_RESPONSE_TOO_LARGE']);
    // the oldest up to the limit, the others a quarter of it together, plus what was in flight when they paused
    assert.ok(
      client.answers.peakBytes < 1.25 * LIMIT + 3 * 64 * 1024,
      `held at most ${client.answers.peakBytes} bytes`,
    );
    assert.ok(client.answers.peakBytes > LIMIT, 'the oldest read up to the limit');
    assert.equal(client.answers.heldBytes, 0, 'all released');
  });

  it('answers under the limit read at once all arrive whole, one after the other when they would hold more than it', async () => {
    const sizes = [700 * 1024, 600 * 1024, 500 * 1024, 400 * 1024];
    const results = await Promise.all(sizes.map((n) => client.send('GET', `/chunked/${n}`, undefined, undefined)));
    results.forEach((r, i) =>
      assert.equal((r.data as { filler: string }).filler.length, sizes[i] - 13, `answer ${i} whole`),
    );
    assert.ok(
      client.answers.peakBytes <= 1.25 * LIMIT + 4 * 64 * 1024,
      `held at most ${client.answers.peakBytes} bytes together`,
    );
    assert.equal(client.answers.heldBytes, 0);
    // and the connection reads the next answer as before
    assert.equal(await code(client.send('GET', `/chunked/${200 * 1024}`, undefined, undefined)), 'delivered');
  });

  it('an answer lost half-way releases its share: the one waiting behind it is read', async () => {
    const first = code(client.send('GET', `/chunked/${20 * MB}`, undefined, undefined));
    const second = code(client.send('GET', `/chunked/${800 * 1024}`, undefined, undefined));
    assert.equal(await first, 'TB_RESPONSE_TOO_LARGE');
    assert.equal(await second, 'delivered');
    assert.equal(client.answers.heldBytes, 0);
  });
});
