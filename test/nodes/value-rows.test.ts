/**
 * The values of a save set in the dialog (issue 18), tb-attributes and tb-telemetry in the real Node-RED runtime
 * against the simulator: rows of key, type and value (fixed, from the message, a placeholder, flow context, JSONata)
 * saved on every entity of a list whatever msg.payload holds, read once per message; msg.payload still the values by
 * default; a blank or repeated key refused at deploy; a value missing from a message refused naming its key, nothing
 * sent, the next message saved.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import { errorsLogged, helper, key, statuses } from '../support/runtime';
import { useTelemetryTests, type Rec } from './device-support';

const NODES = [tbConnection, tbAttributes, tbTelemetry];
const T = '/api/plugins/telemetry';

function node(type: 'tb-attributes' | 'tb-telemetry', id: string, values: unknown, props: Rec = {}): Rec {
  return { id, type, connection: 'c1', valuesFrom: 'rows', values, wires: [['out']], ...props };
}

const FIXED = [
  { key: 'targetTemp', type: 'num', value: '21' },
  { key: 'mode', type: 'str', value: 'eco' },
  { key: 'heating', type: 'bool', value: 'true' },
  { key: 'schedule', type: 'json', value: '{"from":"06:00","to":"22:00"}' },
];
const WANT = { targetTemp: 21, mode: 'eco', heating: true, schedule: { from: '06:00', to: '22:00' } };

/** A stored attribute's value, a JSON one parsed (the simulator keeps it as the server does: text of type JSON). */
function valueOf(kv: { type?: string; value?: unknown } | undefined): unknown {
  return kv?.type === 'JSON' ? JSON.parse(String(kv.value)) : kv?.value;
}

describe('values set in the dialog (tb-attributes, tb-telemetry: runtime + simulator)', function () {
  const { sim, load, results, probe, last, sent } = useTelemetryTests(NODES, {
    probeName: 'Rows probe',
    probeType: 'thermostat',
  });

  it('attributes: fixed str/num/bool/json rows saved on every entity of a list; msg.payload ignored (one request each)', async () => {
    await load([node('tb-attributes', 'a', FIXED, { scope: 'SHARED_SCOPE' })]);
    const list = [probe(), probe(), probe()];
    const out = await results.ok('a', {
      entity: list.map((p) => ({ entityType: 'DEVICE', id: p.id })),
      payload: 1700000000000,
    });
    assert.deepEqual(
      (out.payload as Rec[]).map((r) => r.ok),
      [true, true, true],
    );
    for (const p of list) {
      for (const [k, v] of Object.entries(WANT))
        assert.deepEqual(valueOf(sim.data.attributeOf(p.id, 'SHARED_SCOPE', k)), v, `${k} on ${p.name}`);
      assert.equal(sim.countRequests(`${T}/DEVICE/${p.id}/attributes/SHARED_SCOPE`, 'POST'), 1);
    }
    assert.equal(sim.data.attributeOf(list[0].id, 'SHARED_SCOPE', 'schedule')?.type, 'JSON');
    assert.deepEqual(last('a'), { fill: 'green', shape: 'dot', text: key('bulkDone') });
  });

  it('telemetry: the rows are one point per message, stamped once, the same ts on every entity; the output is what was written', async () => {
    await load([node('tb-telemetry', 't', FIXED)]);
    const list = [probe(), probe()];
    const before = Date.now();
    const out = await results.ok('t', { entity: list.map((p) => p.id), payload: { ignored: 1 } });
    const written = (out.payload as Rec[]).map((r) => r.payload as Array<{ ts: number; values: Rec }>);
    assert.equal(written[0].length, 1);
    assert.deepEqual(written[0][0].values, WANT);
    assert.ok(written[0][0].ts >= before && written[0][0].ts <= Date.now(), 'stamped when the message arrived');
    assert.equal(written[1][0].ts, written[0][0].ts, 'one ts for the message, not one per entity');
    for (const p of list) {
      assert.equal(sim.data.latestOf(p.id, 'targetTemp')?.value, 21);
      assert.equal(sim.data.latestOf(p.id, 'mode')?.value, 'eco');
      assert.equal(sim.data.latestOf(p.id, 'ignored'), undefined, 'msg.payload is not saved');
    }
  });

  it('from the message: a msg row keeps its type, a placeholder among text or whole, flow context, env, JSONata; read once per message', async () => {
    const rows = [
      { key: 'target', type: 'msg', value: 'setpoint' },
      { key: 'label', type: 'str', value: 'room {{msg.room}}' },
      { key: 'owner', type: 'str', value: '{{msg.who}}' },
      { key: 'site', type: 'flow', value: 'site' },
      { key: 'tz', type: 'env', value: 'TB_ROWS_TEST_TZ' },
      { key: 'doubled', type: 'jsonata', value: 'setpoint * 2' },
      // Another value on each entity would mean the rows were read per entity.
      // (rounded: ThingsBoard keeps a double with more than 16 decimals as text, as the simulator does)
      { key: 'draw', type: 'jsonata', value: '$round($random() * 1000000)' },
    ];
    process.env.TB_ROWS_TEST_TZ = 'Europe/Berlin';
    try {
      await load([node('tb-attributes', 'a', rows)]);
      (helper.getNode('a') as unknown as Node).context().flow.set('site', 'plant 2');
      const list = [probe(), probe()];
      await results.ok('a', { entity: list.map((p) => p.id), setpoint: 19.5, room: 12, who: { name: 'ops' } });
      for (const p of list) {
        const at = (k: string) => valueOf(sim.data.attributeOf(p.id, 'SERVER_SCOPE', k));
        assert.equal(at('target'), 19.5);
        assert.equal(at('label'), 'room 12');
        assert.deepEqual(at('owner'), { name: 'ops' }, 'a whole placeholder keeps the type');
        assert.equal(at('site'), 'plant 2');
        assert.equal(at('tz'), 'Europe/Berlin');
        assert.equal(at('doubled'), 39);
      }
      const draws = list.map((p) => valueOf(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'draw')));
      assert.equal(typeof draws[0], 'number', JSON.stringify(draws));
      assert.equal(draws[1], draws[0], 'the rows are read once for the message, not once per entity');
    } finally {
      delete process.env.TB_ROWS_TEST_TZ;
    }
  });

  it('msg.payload is still the values by default (payload, or no valuesFrom at all); rows are ignored then', async () => {
    await load([
      { id: 'old', type: 'tb-attributes', connection: 'c1', wires: [['out']] },
      node('tb-attributes', 'p', [{ key: 'x', type: 'num', value: '1' }], { valuesFrom: 'payload' }),
    ]);
    const p = probe();
    await results.ok('old', { entity: p.id, payload: { a: 1 } });
    await results.ok('p', { entity: p.id, payload: { b: 2 } });
    assert.equal(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'a')?.value, 1);
    assert.equal(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'b')?.value, 2);
    assert.equal(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'x'), undefined);
  });

  it('a blank or repeated key, no rows, a bad fixed value: refused at deploy (red, logged), each message refused, nothing sent; a read ignores rows', async () => {
    await load([
      node('tb-attributes', 'dup', [
        { key: 'a', type: 'num', value: '1' },
        { key: 'a', type: 'str', value: 'x' },
      ]),
      node('tb-telemetry', 'blank', [{ key: ' ', type: 'num', value: '1' }]),
      node('tb-telemetry', 'none', []),
      node('tb-attributes', 'nan', [{ key: 'level', type: 'num', value: 'ten' }]),
      node('tb-attributes', 'read', [{ key: 'a', type: 'num', value: '1' }, { key: 'a' }], {
        operation: 'read',
        keys: 'model',
      }),
    ]);
    const e = { entity: probe().id, payload: { a: 1 } };
    for (const [id, re] of [
      ['dup', /values has the key "a" twice \(rows 1 and 2\)/],
      ['blank', /values row 1 has no key/],
      ['none', /values has no row/],
      ['nan', /values\.level is "ten", which is not a number/],
    ] as const) {
      assert.ok(
        statuses(id).some((s) => s.fill === 'red' && s.shape === 'dot'),
        `${id}: shown at deploy`,
      );
      assert.ok(
        errorsLogged(id).some((x) => re.test(String(x))),
        `${id}: logged at deploy`,
      );
      await results.fails(id, e, 'TB_CONFIG', re);
    }
    assert.equal(sent(), 0, 'nothing was sent');
    await results.ok('read', { entity: probe().id });
  });

  it('a value missing from a message: the error names the key, nothing is sent; the next message is saved', async () => {
    await load([
      node('tb-telemetry', 't', [{ key: 'level', type: 'msg', value: 'payload.level' }, ...FIXED]),
      node('tb-attributes', 'a', [{ key: 'note', type: 'str', value: 'by {{msg.user}}' }]),
    ]);
    const list = [probe(), probe()];
    const entity = list.map((p) => p.id);
    await results.fails(
      't',
      { entity, payload: {} },
      'TB_INVALID_INPUT',
      /values\.level is bound to msg\.payload\.level, which is undefined: the message must give it a value$/,
    );
    await results.fails('a', { entity }, 'TB_INVALID_INPUT', /values\.note is bound to msg\.user, which is undefined/);
    assert.equal(sent(), 0, 'nothing was sent');
    assert.equal(last('t')?.fill, 'red');
    await results.ok('t', { entity, payload: { level: 3 } });
    for (const p of list) assert.equal(sim.data.latestOf(p.id, 'level')?.value, 3);
    await results.ok('a', { entity, user: 'ann' });
    for (const p of list) assert.equal(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'note')?.value, 'by ann');
  });
});
