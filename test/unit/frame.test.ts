/**
 * The quick reader of latest-value frames (src/live/frame.ts) must give exactly what JSON.parse gives, or decline:
 * JSON.parse is the oracle throughout. A frame it reads wrongly would change live data silently, so besides the
 * frames it must read, this covers what it must decline, every cut and every single-byte change of real frames, and a
 * seeded random sweep of frames built the way the server builds them.
 */
import assert from 'node:assert/strict';
import { readLatestUpdate } from '../../src/live/frame';

type Obj = Record<string, unknown>;

/** An update frame as ThingsBoard writes it (Jackson: the creator's properties first, no white space). */
function frame(entities: Obj[], cmdId = 1, allowedEntities = 10000): Obj {
  return {
    cmdId,
    data: null,
    update: entities,
    errorCode: 0,
    errorMsg: null,
    allowedEntities,
    cmdUpdateType: 'ENTITY_DATA',
  };
}

/** The same with the fields in the classes' declaration order (protocol reference §6.6). */
function declared(f: Obj): Obj {
  const { cmdId, errorCode, errorMsg, data, update, allowedEntities, cmdUpdateType } = f;
  return { cmdId, errorCode, errorMsg, data, update, allowedEntities, cmdUpdateType };
}

function entity(latest: Obj | null, id = 'be4c0000-0000-4000-8000-000000000005', entityType = 'DEVICE'): Obj {
  return { entityId: { entityType, id }, latest, timeseries: null, aggLatest: null };
}

const bytesOf = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));

/** JSON.parse's reading of the bytes, or undefined when it throws. */
function oracle(b: Buffer): unknown {
  try {
    return JSON.parse(b.toString());
  } catch {
    return undefined;
  }
}

/** The reader either declines or agrees with JSON.parse, properties in the same order. True when it read the frame. */
function agrees(b: Buffer): boolean {
  const quick = readLatestUpdate(b);
  if (quick === undefined) return false;
  const want = oracle(b);
  assert.notEqual(want, undefined, `read a frame JSON.parse rejects: ${b.toString('latin1')}`);
  assert.deepStrictEqual(quick, want);
  assert.equal(JSON.stringify(quick), JSON.stringify(want), 'same property order');
  return true;
}

const SENT_AT = { ts: 1795748543971, value: '1.7957485439710396E12' };
const SIM_FRAME = frame([entity({ TIME_SERIES: { sentAt: SENT_AT, seq: { ts: 1795748543971, value: '6' } } })]);

describe('quick reader of latest-value frames (live/frame.ts)', function () {
  it('reads the frames the server sends for latest values exactly as JSON.parse does', function () {
    const frames: Obj[] = [
      SIM_FRAME,
      frame([entity({ TIME_SERIES: { temperature: { ts: 1700000000000, value: '23.5' } } })], 0, 0),
      frame(
        [
          entity(
            { ATTRIBUTE: { active: { ts: 1700000000001, value: 'true' } } },
            '784f394c-42b6-435a-983c-b7beff2784f9',
            'ASSET',
          ),
        ],
        123456789012345,
      ),
      frame([
        entity({
          SERVER_ATTRIBUTE: { a: { ts: 1, value: '' } },
          SHARED_ATTRIBUTE: { b: { ts: 2, value: '[1,2]' } },
          CLIENT_ATTRIBUTE: {},
        }),
      ]),
      // a deleted key (ts 0, empty value), several keys, numeric names (ordered first by the object model either way)
      frame([
        entity({
          TIME_SERIES: {
            gone: { ts: 0, value: '' },
            '10': { ts: 5, value: '1' },
            '2': { ts: 5, value: '2' },
            'with space': { ts: 5, value: 'a b' },
          },
        }),
      ]),
      // text beyond ASCII, in values and names (decoded as UTF-8 like the whole frame)
      frame([
        entity({ TIME_SERIES: { température: { ts: 7, value: 'chaud ☀ 東京 🌡' }, note: { ts: 7, value: 'é' } } }),
      ]),
      // several entities in one frame (a Cassandra server's catch-up), and an empty latest
      frame([
        entity({ TIME_SERIES: { t: { ts: 3, value: '1' } } }, 'a'),
        entity({ TIME_SERIES: { t: { ts: 4, value: '2' } } }, 'b', 'CUSTOMER'),
        entity({}, 'c'),
      ]),
      // names the object model treats specially, except __proto__ (below)
      frame([
        entity({
          TIME_SERIES: {
            constructor: { ts: 1, value: 'x' },
            toString: { ts: 1, value: 'y' },
            hasOwnProperty: { ts: 1, value: 'z' },
          },
        }),
      ]),
      // a name longer than those kept for reuse
      frame([entity({ TIME_SERIES: { ['k'.repeat(200)]: { ts: 1, value: 'long' } } })]),
    ];
    for (const f of frames) {
      assert.ok(agrees(bytesOf(f)), `read: ${JSON.stringify(f)}`);
      assert.ok(agrees(bytesOf(declared(f))), `read in declaration order: ${JSON.stringify(declared(f))}`);
    }
  });

  it('gives the same name strings again for names it has seen, and the right ones when names collide in its table', function () {
    // 2,000 different names go through 256 slots: every one must come back as itself, seen before or not
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2000; i++) {
        const k = `key${i}`;
        const got = readLatestUpdate(bytesOf(frame([entity({ TIME_SERIES: { [k]: { ts: i, value: String(i) } } })])));
        assert.ok(got, k);
        const latest = ((got.update as Obj[])[0].latest as Obj).TIME_SERIES as Obj;
        assert.deepEqual(Object.keys(latest), [k]);
      }
    }
  });

  it('declines every other frame, leaving it to JSON.parse', function () {
    const b = (s: string) => Buffer.from(s);
    const sim = JSON.stringify(SIM_FRAME);
    const declined: Array<[string, Buffer]> = [
      ['a value with an escape', bytesOf(frame([entity({ TIME_SERIES: { t: { ts: 1, value: 'say "hi"' } } })]))],
      ['a backslash', bytesOf(frame([entity({ TIME_SERIES: { t: { ts: 1, value: 'C:\\dir' } } })]))],
      ['a name with an escape', bytesOf(frame([entity({ TIME_SERIES: { 'a"b': { ts: 1, value: '1' } } })]))],
      ['a raw control character (invalid JSON)', b(sim.replace('"6"', '"\u0001"'))],
      ['a TsValue with count', bytesOf(frame([entity({ TIME_SERIES: { t: { ts: 1, value: '1', count: 3 } } })]))],
      [
        'latest: null (a time-series update)',
        bytesOf(
          frame([
            {
              entityId: { entityType: 'DEVICE', id: 'x' },
              latest: null,
              timeseries: { t: [{ ts: 1, value: '1' }] },
              aggLatest: null,
            },
          ]),
        ),
      ],
      [
        'timeseries not null',
        bytesOf(frame([{ entityId: { entityType: 'DEVICE', id: 'x' }, latest: {}, timeseries: {}, aggLatest: null }])),
      ],
      ['a snapshot page', b(sim.replace('"data":null,"update":[', '"data":{"data":[]},"update":['))],
      [
        'no update',
        bytesOf({
          cmdId: 1,
          errorCode: 0,
          errorMsg: null,
          data: null,
          update: null,
          allowedEntities: 0,
          cmdUpdateType: 'ENTITY_DATA',
        }),
      ],
      ['an empty update', bytesOf(frame([]))],
      ['an error', b(sim.replace('"errorCode":0,"errorMsg":null', '"errorCode":1,"errorMsg":"Failed"'))],
      ['alarm data', b(sim.replace('"cmdUpdateType":"ENTITY_DATA"', '"cmdUpdateType":"ALARM_DATA"'))],
      ['a count', bytesOf({ cmdId: 2, errorCode: 0, errorMsg: null, cmdUpdateType: 'COUNT_DATA', count: 5 })],
      ['fields in another order', bytesOf({ cmdUpdateType: 'ENTITY_DATA', ...SIM_FRAME })],
      [
        'the two orders mixed',
        b(sim.replace('"data":null,"update":[', '"errorCode":0,"errorMsg":null,"data":null,"update":[')),
      ],
      ['white space', Buffer.from(JSON.stringify(SIM_FRAME, null, 1))],
      ['a negative ts', bytesOf(frame([entity({ TIME_SERIES: { t: { ts: -1, value: '1' } } })]))],
      ['a ts with a fraction', bytesOf(frame([entity({ TIME_SERIES: { t: { ts: 1.5, value: '1' } } })]))],
      ['a ts of 16 digits', bytesOf(frame([entity({ TIME_SERIES: { t: { ts: 1234567890123456, value: '1' } } })]))],
      ['a ts in exponent form', b(sim.replace('"ts":1795748543971,"value":"6"', '"ts":1e3,"value":"6"'))],
      ['a leading zero (invalid JSON)', b(sim.replace('"ts":1795748543971,"value":"6"', '"ts":01,"value":"6"'))],
      ['a value that is not a string', b(sim.replace('"value":"6"', '"value":6'))],
      ['__proto__ as a key', b(sim.replace('"seq":', '"__proto__":'))],
      ['__proto__ as a key type', b(sim.replace('"TIME_SERIES":', '"__proto__":'))],
      ['__proto__ as an entity type', b(sim.replace('"entityType":"DEVICE"', '"entityType":"__proto__"'))],
      ['something after the object', b(sim + ' ')],
      ['two objects', b(sim + sim)],
      ['an empty frame', b('')],
    ];
    for (const [what, f] of declined) assert.equal(readLatestUpdate(f), undefined, what);
  });

  it('never throws, and reads no cut of a frame: every prefix of real frames is declined', function () {
    for (const f of [
      SIM_FRAME,
      declared(SIM_FRAME),
      frame([entity({ TIME_SERIES: { a: { ts: 1, value: 'é☀' } } }), entity({ ATTRIBUTE: {} }, 'b')]),
    ]) {
      const full = bytesOf(f);
      for (let n = 0; n < full.length; n++)
        assert.equal(readLatestUpdate(full.subarray(0, n)), undefined, `prefix of ${n} bytes`);
      assert.ok(agrees(full));
    }
  });

  it('every single-byte change, deletion and repetition of a real frame is either declined or read as JSON.parse reads it', function () {
    const full = bytesOf(
      frame([
        entity({ TIME_SERIES: { sentAt: SENT_AT, seq: { ts: 1795748543971, value: '6' } } }),
        entity({ ATTRIBUTE: { é: { ts: 0, value: '' } } }, 'x', 'ASSET'),
      ]),
    );
    const swaps = [
      0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x30, 0x31, 0x39, 0x61, 0x20, 0x00, 0x1f, 0x2d, 0x2e, 0x65, 0xc3,
      0xff, 0x80,
    ];
    let read = 0;
    let variants = 0;
    for (let i = 0; i < full.length; i++) {
      for (const s of swaps) {
        if (full[i] === s) continue;
        const v = Buffer.from(full);
        v[i] = s;
        variants++;
        if (agrees(v)) read++;
      }
      variants += 2;
      if (agrees(Buffer.concat([full.subarray(0, i), full.subarray(i + 1)]))) read++;
      if (agrees(Buffer.concat([full.subarray(0, i + 1), full.subarray(i)]))) read++;
    }
    // digits changed into digits and letters within strings are still frames of the form: those must be read
    assert.ok(read > 300, `read ${read} of ${variants} changed frames`);
  });

  it('a seeded sweep of 20,000 frames built as the server builds them: each declined or read as JSON.parse reads it', function () {
    let seed = 21;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return Math.floor(((seed >>> 8) / 16777216) * n);
    };
    const CHARS = ['a', 'Z', '0', '9', ' ', '.', '-', 'é', '☀', '🌡', '"', '\\', '\n', '/', '_', '{', '}', ':', ','];
    const str = (max: number): string => {
      let s = '';
      for (let n = rnd(max + 1); n > 0; n--)
        s += rnd(4) === 0 ? CHARS[rnd(CHARS.length)] : String.fromCharCode(97 + rnd(26));
      return s;
    };
    const TS = [0, 1, 9, 10, 1700000000000, 999999999999999, 1000000000000000, -5, 2.5];
    const TYPES = [
      'TIME_SERIES',
      'ATTRIBUTE',
      'SERVER_ATTRIBUTE',
      'SHARED_ATTRIBUTE',
      'CLIENT_ATTRIBUTE',
      'ENTITY_FIELD',
    ];
    let read = 0;
    for (let i = 0; i < 20000; i++) {
      const entities: Obj[] = [];
      for (let e = 1 + rnd(3); e > 0; e--) {
        const latest: Obj = {};
        for (let g = rnd(3); g > 0; g--) {
          const group: Obj = {};
          for (let k = rnd(4); k > 0; k--) {
            const tv: Obj = { ts: TS[rnd(TS.length)], value: rnd(3) === 0 ? String(rnd(1000)) : str(12) };
            if (rnd(20) === 0) tv.count = 1;
            group[rnd(3) === 0 ? str(6) : `k${rnd(8)}`] = tv;
          }
          latest[rnd(10) === 0 ? str(5) : TYPES[rnd(TYPES.length)]] = group;
        }
        entities.push(entity(latest, rnd(5) === 0 ? str(8) : `id-${rnd(1000)}`, rnd(5) === 0 ? str(6) : 'DEVICE'));
      }
      const f = frame(entities, rnd(100000), rnd(2) * 10000);
      if (agrees(bytesOf(rnd(4) === 0 ? declared(f) : f))) read++;
    }
    assert.ok(read > 5000, `read ${read} of 20,000 frames (the rest declined)`);
  });
});
