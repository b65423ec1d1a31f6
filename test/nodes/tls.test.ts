/**
 * HTTPS with the core tls-config node: the simulator behind a TLS front on loopback with a self-signed
 * certificate (test/fixtures). Trusted through the tls-config node's CA, refused without it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityCount from '../../src/nodes/tb-entity-count/index';
import { connectionNode, flow, helper, inject, message, TENANT, assertCode, useRuntime } from '../support/runtime';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the core tls-config node
const tlsNode = require('@node-red/nodes/core/network/05-tls.js');

const CERT = path.join(__dirname, '..', 'fixtures', 'tls-test.crt');
const KEY = path.join(__dirname, '..', 'fixtures', 'tls-test.key');
const QUERY = JSON.stringify({ entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } });

describe('HTTPS through the core tls-config node', () => {
  const sim = useRuntime();
  let front: https.Server;
  let url: string;

  before(async () => {
    front = https.createServer({ cert: fs.readFileSync(CERT), key: fs.readFileSync(KEY) }, (req, res) => {
      const up = http.request(sim.url + req.url, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  after(async () => {
    front.closeAllConnections();
    await new Promise((r) => front.close(r));
  });

  it("trusts the server through the tls-config node's CA", async () => {
    await helper.load(
      [tlsNode, tbConnection, tbEntityCount],
      flow(
        { id: 'tls1', type: 'tls-config', cert: '', key: '', ca: CERT, verifyservercert: true, servername: '' },
        connectionNode(url, { tls: 'tls1' }),
        {
          id: 'n',
          type: 'tb-entity-count',
          connection: 'c1',
          queryType: 'json',
          query: QUERY,
          wires: [['out']],
        },
      ),
      { c1: TENANT },
    );
    const got = message('out');
    inject('n', { payload: 1 });
    assert.equal((await got).payload, 20);
  });

  it('refuses an untrusted certificate with a clear error', async () => {
    await helper.load(
      [tlsNode, tbConnection, tbEntityCount],
      flow(connectionNode(url), {
        id: 'n',
        type: 'tb-entity-count',
        connection: 'c1',
        queryType: 'json',
        query: QUERY,
        wires: [['out']],
      }),
      {
        c1: TENANT,
      },
    );
    const caught = message('caught');
    inject('n', { payload: 1 });
    const error = (await caught).error as Record<string, string>;
    assertCode(error, 'TB_UNREACHABLE');
    assert.match(error.message, /Cannot reach ThingsBoard at https:\/\/127\.0\.0\.1:\d+ .*SELF_SIGNED/);
  });
});
