/**
 * src/query/value-rows: the rows of a save set in the dialog, checked at deploy (keys, types, fixed values) and
 * turned into the values of one message (placeholders, sources, JSONata results), and the save requests built from
 * them (never the {ts, values} form of msg.payload).
 */
import assert from 'node:assert/strict';
import { TbConfigError } from '../../src/errors';
import { prepareAttributeRequest } from '../../src/nodes/tb-attributes/logic';
import { prepareTelemetryRequest } from '../../src/nodes/tb-telemetry/logic';
import { TB_TELEMETRY } from '../../src/nodes/tb-telemetry/settings';
import type { BindingRef } from '../../src/protocol/bindings';
import { OptionReader } from '../../src/settings/options';
import { readSettings } from '../../src/settings/read';
import { prepareValueRows, rowValues } from '../../src/settings/value-rows';
import { throwsInput } from './helpers';

function refused(rows: unknown, re: RegExp): void {
  assert.throws(
    () => prepareValueRows(rows),
    (e: unknown) => e instanceof TbConfigError && e.code === 'TB_CONFIG' && re.test(e.message),
  );
}

const msgOf =
  (values: Record<string, unknown>) =>
  (ref: BindingRef): unknown =>
    values[ref.text];

describe('value rows (src/query/value-rows)', () => {
  it('valuesFrom: payload when unset, rows, anything else refused', () => {
    // Declared with the node's settings: read by its declaration.
    const valuesFrom = (v: unknown) => readSettings(TB_TELEMETRY, { valuesFrom: v });
    assert.equal(valuesFrom(undefined).values.valuesFrom, 'payload');
    assert.equal(valuesFrom('').values.valuesFrom, 'payload');
    assert.equal(valuesFrom('rows').values.valuesFrom, 'rows');
    assert.match(
      valuesFrom('msg')
        .problems.map((p) => p.message)
        .join(),
      /valuesFrom must be one of payload, rows \(got "msg"\)/,
    );
  });

  it('fixed values read as their TypedInput type, in the order of the rows; a key trimmed', () => {
    const rows = prepareValueRows([
      { key: ' t ', type: 'num', value: '21.5' },
      { key: 'on', type: 'bool', value: 'false' },
      { key: 'cfg', type: 'json', value: '{"a":[1]}' },
      { key: 'mode', type: 'str', value: 'eco' },
      { key: 'note', value: '' },
    ]);
    const v = rowValues(rows, () => undefined);
    assert.deepEqual(v, { t: 21.5, on: false, cfg: { a: [1] }, mode: 'eco', note: '' });
    assert.deepEqual(Object.keys(v), ['t', 'on', 'cfg', 'mode', 'note']);
    (v.cfg as { a: number[] }).a.push(2);
    assert.deepEqual(rowValues(rows, () => undefined).cfg, { a: [1] }, "a message never shares the node's objects");
  });

  it('sources and placeholders: type kept for a whole one, text among text; JSONata results given by the caller', () => {
    const rows = prepareValueRows([
      { key: 'sp', type: 'msg', value: 'payload.sp' },
      { key: 'site', type: 'flow', value: '#:(file)::site' },
      { key: 'tz', type: 'env', value: 'TZ' },
      { key: 'who', type: 'str', value: '{{msg.user}}' },
      { key: 'label', type: 'str', value: 'room {{msg.room}} of {{global.site}}' },
      { key: 'twice', type: 'jsonata', value: 'payload.sp * 2' },
    ]);
    assert.deepEqual(
      rows.bindings?.refs.map((r) => r.text),
      ['msg.payload.sp', 'flow.#:(file)::site', 'env.TZ', 'msg.user', 'msg.room', 'global.site'],
    );
    const read = msgOf({
      'msg.payload.sp': 19,
      'flow.#:(file)::site': 'A',
      'env.TZ': 'UTC',
      'msg.user': { n: 1 },
      'msg.room': 4,
      'global.site': 'B',
    });
    assert.deepEqual(rowValues(rows, read, { twice: 38 }), {
      sp: 19,
      site: 'A',
      tz: 'UTC',
      who: { n: 1 },
      label: 'room 4 of B',
      twice: 38,
    });
    throwsInput(
      () => rowValues(rows, msgOf({}), { twice: 38 }),
      'values.sp',
      'values.sp is bound to msg.payload.sp, which is undefined: the message must give it a value',
    );
    throwsInput(() => rowValues(rows, read, {}), 'values.twice', 'its JSONata expression gave nothing');
    throwsInput(
      () => rowValues(rows, (r) => (r.text === 'msg.room' ? { x: 1 } : read(r)), { twice: 1 }),
      'values.label',
      'puts msg.room into text',
    );
  });

  it('refused at deploy, naming the row: not a list, no rows, a blank, long or repeated key, a bad type or value, an empty source', () => {
    refused('x', /values must be a list of rows/);
    refused([], /values has no row/);
    refused([{ key: '  ', value: 'x' }], /values row 1 has no key/);
    refused([{ key: 'k'.repeat(256), value: 'x' }], /values row 1 has a key of 256 characters/);
    refused(
      [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
        { key: 'a ', value: '3' },
      ],
      /values has the key "a" twice \(rows 1 and 3\): each key once/,
    );
    refused([{ key: 'a', type: 'date', value: '' }], /values\.a has the type "date": one of str, num/);
    refused([{ key: 'a', type: 'num', value: 'ten' }], /values\.a is "ten", which is not a number/);
    refused([{ key: 'a', type: 'num', value: '' }], /values\.a is "", which is not a number/);
    refused([{ key: 'a', type: 'bool', value: 'yes' }], /values\.a must be true or false/);
    refused([{ key: 'a', type: 'json', value: '{' }], /values\.a is not valid JSON/);
    refused([{ key: 'a', type: 'json', value: 'null' }], /values\.a is null: ThingsBoard cannot store null/);
    refused([{ key: 'a', type: 'msg', value: ' ' }], /values\.a: name the msg property/);
    refused([{ key: 'a', type: 'env', value: '' }], /values\.a: name the env variable/);
    refused([{ key: 'a', type: 'jsonata', value: '' }], /values\.a: write the JSONata expression/);
  });

  it('the save requests: the rows as one point at now (a key named ts is a key), checked as values.<key>', () => {
    const r = new OptionReader({}, {});
    assert.deepEqual(prepareTelemetryRequest('save', r, { ts: 5, t: 1 }, 1000, true), {
      operation: 'save',
      records: [{ ts: 1000, values: { ts: 5, t: 1 } }],
    });
    assert.deepEqual(prepareAttributeRequest('save', 'SERVER_SCOPE', r, { t: 1 }, true), {
      operation: 'save',
      scope: 'SERVER_SCOPE',
      values: { t: 1 },
    });
    throwsInput(
      () => prepareTelemetryRequest('save', r, { t: Number.NaN }, 1000, true),
      'values.t',
      'only finite numbers',
    );
    throwsInput(() => prepareAttributeRequest('save', 'SERVER_SCOPE', r, { t: null }, true), 'values.t', 'is null');
  });
});
