import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import {
  explainBound,
  findBindings,
  parseTemplate,
  pathText,
  resolveBindings,
  type BindingRef,
  type QueryPath,
} from '../../src/protocol/bindings';
import { prepareEntityDataQuery } from '../../src/protocol/validate';

/** A reader over plain objects standing in for msg, flow, global and env (the runtime reads Node-RED's). */
function reader(sources: Partial<Record<BindingRef['source'], Record<string, unknown>>>) {
  const reads: string[] = [];
  const read = (ref: BindingRef): unknown => {
    reads.push(ref.text);
    let v: unknown = sources[ref.source];
    for (const part of ref.path.split('.')) v = v == null ? undefined : (v as Record<string, unknown>)[part];
    return v;
  };
  return { read, reads };
}

const LISTS = new Set(['statusList', 'deviceTypes', 'severityList', 'typeList']);
const isList = (at: QueryPath) => LISTS.has(String(at[at.length - 1]));

function resolve(query: unknown, sources: Parameters<typeof reader>[0]) {
  const b = findBindings(query);
  assert.ok(b, 'the query has bindings');
  return resolveBindings(query, b, reader(sources).read, { field: 'query', isList }).query;
}

describe('query/bindings: values from the message', () => {
  describe('the placeholder form', () => {
    it('reads msg, flow, global and env, with spaces inside the braces', () => {
      assert.deepEqual(parseTemplate('{{msg.payload.name}}'), {
        whole: { source: 'msg', path: 'payload.name', text: 'msg.payload.name' },
      });
      assert.deepEqual(parseTemplate('{{ flow.limit }}')?.whole?.text, 'flow.limit');
      assert.deepEqual(parseTemplate('{{global.site}}')?.whole?.source, 'global');
      assert.deepEqual(parseTemplate('{{env.SITE}}')?.whole?.path, 'SITE');
    });

    it('takes a path as Node-RED reads it: quoted keys and indexes', () => {
      assert.equal(parseTemplate('{{msg.payload["device name"]}}')?.whole?.path, 'payload["device name"]');
      assert.equal(parseTemplate('{{msg.items[0].id}}')?.whole?.path, 'items[0].id');
    });

    it('leaves braces around anything else as literal text', () => {
      for (const literal of ['{{foo}}', '{{ payload }}', '{{msg.}}', '{{ msg }}', 'plain', '{msg.x}', '{{ctx.x}}']) {
        assert.equal(parseTemplate(literal), undefined, literal);
      }
      assert.equal(findBindings({ entityFilter: { type: 'entityName', entityNameFilter: '{{foo}}' } }), undefined);
    });

    it('splits text with placeholders into literal parts and bindings', () => {
      const t = parseTemplate('Thermo {{msg.site}}-%');
      assert.deepEqual(t?.parts, ['Thermo ', { source: 'msg', path: 'site', text: 'msg.site' }, '-%']);
      assert.deepEqual(parseTemplate('{{msg.a}}{{ flow.b }}')?.parts?.length, 2);
    });

    it('finds every bound leaf with its path, and nothing in a query without placeholders', () => {
      const q = {
        entityFilter: { type: 'deviceType', deviceTypes: ['{{msg.profile}}'], deviceNameFilter: 'T{{msg.n}}' },
        pageLink: { pageSize: '{{msg.size}}', page: 0 },
      };
      const b = findBindings(q);
      assert.deepEqual(
        b?.leaves.map((l) => pathText('query', l.at)),
        ['query.entityFilter.deviceTypes[0]', 'query.entityFilter.deviceNameFilter', 'query.pageLink.pageSize'],
      );
      assert.equal(
        findBindings({ entityFilter: { type: 'entityType', entityType: 'DEVICE' }, pageLink: { pageSize: 10 } }),
        undefined,
      );
    });
  });

  describe('resolution', () => {
    it('keeps the type of a whole value: number, boolean, array, object', () => {
      const q = { a: '{{msg.n}}', b: '{{msg.flag}}', c: '{{msg.list}}', d: '{{msg.obj}}' };
      const out = resolve(q, { msg: { n: 20, flag: false, list: [1, 2], obj: { x: 1 } } });
      assert.deepEqual(out, { a: 20, b: false, c: [1, 2], d: { x: 1 } });
    });

    it('interpolates the text of a value among other text', () => {
      const out = resolve({ f: 'Thermo {{msg.site}}-{{flow.n}}%' }, { msg: { site: 'North' }, flow: { n: 7 } });
      assert.deepEqual(out, { f: 'Thermo North-7%' });
    });

    it('binds an item of a list, or a whole list; a single value for a whole list becomes a one-item list', () => {
      assert.deepEqual(resolve({ deviceTypes: ['thermostat', '{{msg.p}}'] }, { msg: { p: 'meter' } }), {
        deviceTypes: ['thermostat', 'meter'],
      });
      assert.deepEqual(resolve({ statusList: '{{msg.s}}' }, { msg: { s: ['ACTIVE', 'ACK'] } }), {
        statusList: ['ACTIVE', 'ACK'],
      });
      assert.deepEqual(resolve({ statusList: '{{msg.s}}' }, { msg: { s: 'ACTIVE' } }), { statusList: ['ACTIVE'] });
    });

    it('never parses a value, and never resolves placeholders inside a value', () => {
      const tricky = 'he said "{{msg.x}}" and {braces} [1]';
      assert.deepEqual(resolve({ name: '{{msg.n}}' }, { msg: { n: tricky, x: 'NO' } }), { name: tricky });
      assert.deepEqual(resolve({ name: '{{msg.n}}' }, { msg: { n: '42' } }), { name: '42' });
    });

    it('reads flow, global and env through the reader it is given', () => {
      const { read, reads } = reader({ flow: { limit: 25 }, global: { site: 'S1' }, env: { UNIT: 'C' } });
      const q = { a: '{{flow.limit}}', b: '{{global.site}}', c: '{{env.UNIT}}' };
      const b = findBindings(q);
      assert.ok(b);
      assert.deepEqual(resolveBindings(q, b, read, { field: 'query' }).query, { a: 25, b: 'S1', c: 'C' });
      assert.deepEqual(reads, ['flow.limit', 'global.site', 'env.UNIT']);
    });

    it('copies only what it changes: the saved query is untouched and unbound branches are shared', () => {
      const keep = { type: 'TIME_SERIES', key: 'temperature' };
      const q = { entityFilter: { type: 'entityName', entityNameFilter: '{{msg.name}}' }, latestValues: [keep] };
      const frozen = JSON.stringify(q);
      const out = resolve(q, { msg: { name: 'Boiler' } }) as typeof q;
      assert.equal(out.entityFilter.entityNameFilter, 'Boiler');
      assert.equal(JSON.stringify(q), frozen);
      assert.equal(out.latestValues, q.latestValues, 'an unbound branch is the same object');
      const again = resolve(q, { msg: { name: 'Pump' } }) as typeof q;
      assert.equal(again.entityFilter.entityNameFilter, 'Pump');
      assert.equal(out.entityFilter.entityNameFilter, 'Boiler', 'each message gets its own copy');
    });

    it('copies a shared container once when two of its leaves are bound', () => {
      const q = { pageLink: { page: '{{msg.p}}', pageSize: '{{msg.s}}', textSearch: 'x' } };
      assert.deepEqual(resolve(q, { msg: { p: 1, s: 5 } }), { pageLink: { page: 1, pageSize: 5, textSearch: 'x' } });
    });
  });

  describe('missing is an error, not "any"', () => {
    for (const [what, value] of [
      ['undefined', undefined],
      ['null', null],
      ['empty', ''],
    ] as const) {
      it(`refuses a whole binding that is ${what}, naming the path and the binding`, () => {
        const q = {
          entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: '{{msg.payload.name}}' },
        };
        assert.throws(
          () => resolve(q, { msg: { payload: { name: value } } }),
          (err: unknown) => {
            assert.ok(err instanceof TbInputError);
            assert.equal(err.code, 'TB_INVALID_INPUT');
            assert.equal(err.field, 'query.entityFilter.entityNameFilter');
            assert.match(
              err.message,
              /^query\.entityFilter\.entityNameFilter is bound to msg\.payload\.name, which is /,
            );
            assert.match(err.message, new RegExp(what));
            return true;
          },
        );
      });
    }

    it('refuses a path through a missing object', () => {
      assert.throws(
        () => resolve({ n: '{{msg.payload.device.name}}' }, { msg: { payload: {} } }),
        /query\.n is bound to msg\.payload\.device\.name, which is undefined/,
      );
    });

    it('refuses a missing value in text, and an object put into text', () => {
      assert.throws(
        () => resolve({ n: 'Thermo {{msg.site}}' }, { msg: {} }),
        /query\.n is bound to msg\.site, which is undefined/,
      );
      assert.throws(
        () => resolve({ n: 'Thermo {{msg.site}}' }, { msg: { site: { a: 1 } } }),
        /puts msg\.site into text, but it is an object/,
      );
    });
  });

  describe('resolved, then checked by the same validation', () => {
    it('names the binding when the resolved value is of the wrong kind', () => {
      const q = { entityFilter: { type: 'entityType', entityType: 'DEVICE' }, pageLink: { pageSize: '{{msg.size}}' } };
      const b = findBindings(q);
      assert.ok(b);
      const resolved = resolveBindings(q, b, reader({ msg: { size: 'ten' } }).read, { field: 'query' });
      let caught: unknown;
      try {
        prepareEntityDataQuery(resolved.query, 'query');
      } catch (err) {
        caught = explainBound(err, resolved, 'query');
      }
      assert.ok(caught instanceof TbInputError);
      assert.equal(caught.field, 'query.pageLink.pageSize');
      assert.match(caught.message, /^query\.pageLink\.pageSize is bound to msg\.size, which is "ten": must be/);
    });

    it('leaves an error about an unbound field as it is', () => {
      const q = { entityFilter: { type: 'entityType', entityType: '{{msg.t}}' }, pageLink: { pageSize: -1 } };
      const b = findBindings(q);
      assert.ok(b);
      const resolved = resolveBindings(q, b, reader({ msg: { t: 'DEVICE' } }).read, { field: 'query' });
      const err = (() => {
        try {
          prepareEntityDataQuery(resolved.query, 'query');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      assert.equal(explainBound(err, resolved, 'query'), err);
    });
  });
});
