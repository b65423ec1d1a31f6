/**
 * The builder's pure half of values from the message (src/editor/builder/bound.ts): the dialog's check of a query
 * with bound leaves, and the preview's "try with" values.
 */
import assert from 'node:assert/strict';
import {
  allowPlaceholders,
  checkBound,
  placeholder,
  tryQuery,
  tryRefs,
  tryValue,
  wholeBinding,
  type TryValue,
} from '../../src/editor/builder/bound';
import { jsonSchema } from '../../src/query-model/schema';
import { summarize } from '../../src/query-model/summary';

const U = '784f394c-42b6-435a-983c-b7beff2784f9';
const names = (filter: string) => ({
  entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: filter },
  keyFilters: [
    {
      key: { type: 'TIME_SERIES', key: 'temperature' },
      valueType: 'NUMERIC',
      predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: '{{flow.limit}}' } },
    },
  ],
  pageLink: { page: 0, pageSize: '{{msg.size}}' },
});
const typed = (entries: Record<string, TryValue>) => new Map(Object.entries(entries));

describe('editor/builder/bound: values from the message in the builder', () => {
  it('writes and reads placeholders', () => {
    assert.equal(placeholder('msg', 'payload.name'), '{{msg.payload.name}}');
    assert.equal(placeholder('env', 'SITE'), '{{env.SITE}}');
    assert.deepEqual(wholeBinding('{{ flow.limit }}'), { source: 'flow', path: 'limit', text: 'flow.limit' });
    assert.equal(wholeBinding('Thermo {{msg.site}}'), undefined, 'text with a placeholder in it is text');
    assert.equal(wholeBinding('{{foo}}'), undefined);
    assert.equal(wholeBinding(12), undefined);
  });

  describe('checkBound: a bound leaf is checked at run time', () => {
    it('a query whose only refusals are at bound leaves passes, and each leaf says what it must get', () => {
      const r = checkBound('entityData', names('{{msg.payload}}'));
      assert.equal(r.verdict.ok, true);
      assert.deepEqual(r.bound, [
        'entityFilter.entityNameFilter',
        'keyFilters.0.predicate.value.defaultValue',
        'pageLink.pageSize',
      ]);
      assert.equal(r.needs.get('pageLink.pageSize'), 'must be a positive integer');
      assert.match(r.needs.get('keyFilters.0.predicate.value.defaultValue') ?? '', /^must be a finite number/);
      // Text takes a placeholder as it is: nothing to say.
      assert.equal(r.needs.has('entityFilter.entityNameFilter'), false);
    });

    it("an error elsewhere is still the dialog's, after the bound leaves before it", () => {
      const q = { ...names('x'), pageLink: { page: -1, pageSize: '{{msg.size}}' } };
      const r = checkBound('entityData', q);
      assert.equal(r.verdict.ok, false);
      assert.equal(!r.verdict.ok && r.verdict.path, 'pageLink.page');
      assert.match(!r.verdict.ok ? r.verdict.message : '', /query\.pageLink\.page must be an integer >= 0/);
    });

    it('lists: a whole list, an item of an enum list, ids and entity types', () => {
      const r = checkBound('alarmData', {
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: '{{msg.id}}' } },
        pageLink: {
          pageSize: 10,
          statusList: '{{msg.statuses}}',
          severityList: ['{{msg.sev}}'],
          typeList: ['{{msg.type}}'],
          timeWindow: '{{flow.window}}',
          assigneeId: { entityType: 'USER', id: '{{msg.user}}' },
        },
      });
      assert.equal(r.verdict.ok, true);
      assert.match(r.needs.get('entityFilter.singleEntity.id') ?? '', /^must be a UUID/);
      assert.match(r.needs.get('pageLink.statusList') ?? '', /ACTIVE/);
      assert.match(r.needs.get('pageLink.severityList.0') ?? '', /^must be one of CRITICAL/);
      assert.match(r.needs.get('pageLink.timeWindow') ?? '', /integer/);
      assert.equal(
        checkBound('entityCount', { entityFilter: { type: 'entityType', entityType: '{{msg.type}}' } }).verdict.ok,
        true,
      );
      // The error after an unresolvable bound leaf is not invented.
      const root = checkBound('entityCount', {
        entityFilter: {
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: '{{msg.site}}' },
          direction: 'FROM',
          maxLevel: '{{msg.depth}}',
          filters: [],
        },
      });
      assert.equal(root.verdict.ok, true, JSON.stringify(root.verdict));
    });

    it("without bindings it is the runtime's check, unchanged", () => {
      const r = checkBound('entityCount', { entityFilter: { type: 'entityType', entityType: 'DEVIC' } });
      assert.equal(r.verdict.ok, false);
      assert.deepEqual(r.bound, []);
      assert.equal(
        checkBound('entityCount', {
          entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: U } },
        }).verdict.ok,
        true,
      );
    });

    it('never changes the query it checks', () => {
      const q = names('{{msg.payload}}');
      const before = JSON.stringify(q);
      checkBound('entityData', q);
      assert.equal(JSON.stringify(q), before);
    });
  });

  describe("try with: the preview's values", () => {
    it('one box per binding, a number box where the query wants a number, JSON for a whole list', () => {
      const refs = tryRefs({
        ...names('Thermo {{msg.site}}%'),
        pageLink: { pageSize: '{{msg.size}}', statusList: '{{msg.statuses}}' },
      });
      assert.deepEqual(
        refs.map((r) => [r.ref.text, r.type]),
        [
          ['msg.site', 'str'],
          ['flow.limit', 'str'],
          ['msg.size', 'num'],
          ['msg.statuses', 'json'],
        ],
      );
      assert.deepEqual(tryRefs({ a: 1 }), []);
    });

    it('typed values keep their type and are never guessed', () => {
      assert.deepEqual(tryValue({ type: 'str', text: '12' }), { ok: true, value: '12' });
      assert.deepEqual(tryValue({ type: 'num', text: ' 12 ' }), { ok: true, value: 12 });
      assert.deepEqual(tryValue({ type: 'json', text: '["ACTIVE"]' }), { ok: true, value: ['ACTIVE'] });
      assert.deepEqual(tryValue({ type: 'num', text: 'ten' }), { ok: false, kind: 'number' });
      assert.equal(tryValue({ type: 'json', text: '[' }).ok, false);
      assert.deepEqual(tryValue({ type: 'str', text: '' }), { ok: false, kind: 'missing' });
    });

    it("resolves the query with the runtime's resolveBindings: no placeholder left, a single value in a list becomes a list", () => {
      const q = { ...names('{{msg.payload}}'), pageLink: { pageSize: '{{msg.size}}', statusList: '{{msg.statuses}}' } };
      const r = tryQuery(
        q,
        typed({
          'msg.payload': { type: 'str', text: 'Thermo' },
          'flow.limit': { type: 'num', text: '20' },
          'msg.size': { type: 'num', text: '5' },
          'msg.statuses': { type: 'str', text: 'ACTIVE' },
        }),
      );
      assert.equal(r.ok, true);
      const out = r.ok ? (r.query as any) : undefined;
      assert.equal(out.entityFilter.entityNameFilter, 'Thermo');
      assert.equal(out.keyFilters[0].predicate.value.defaultValue, 20);
      assert.deepEqual(out.pageLink, { pageSize: 5, statusList: ['ACTIVE'] });
      assert.ok(!JSON.stringify(out).includes('{{'));
      assert.equal(q.pageLink.pageSize, '{{msg.size}}', 'the query itself is unchanged');
    });

    it('a binding without a value is a problem, never an empty value', () => {
      const r = tryQuery(
        names('{{msg.payload}}'),
        typed({ 'msg.payload': { type: 'str', text: 'x' }, 'msg.size': { type: 'num', text: '1' } }),
      );
      assert.deepEqual(r, { ok: false, problem: { kind: 'missing', ref: 'flow.limit' } });
      const bad = tryQuery(
        { entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'T {{msg.o}}' } },
        typed({ 'msg.o': { type: 'json', text: '{"a":1}' } }),
      );
      assert.equal(bad.ok, false);
      assert.match(!bad.ok && bad.problem.kind === 'refused' ? bad.problem.message : '', /puts msg\.o into text/);
      assert.deepEqual(tryQuery({ a: 1 }, new Map()), { ok: true, query: { a: 1 } });
    });
  });

  describe('the summary names each binding (src/query/summary.ts)', () => {
    it('names, key filter values and the page', () => {
      assert.equal(
        summarize('entityData', names('{{msg.payload}}')),
        'devices named ‹msg.payload› where temperature > ‹flow.limit›, first ‹msg.size›',
      );
    });

    it('lists, items, ids, levels, times, and text with a placeholder in it; literal braces stay', () => {
      assert.equal(
        summarize('entityCount', {
          entityFilter: {
            type: 'deviceType',
            deviceTypes: ['{{msg.profile}}', 'thermostat'],
            deviceNameFilter: 'Thermo {{msg.site}}%',
          },
        }),
        "count of devices of profile ‹msg.profile› or thermostat named starting with 'Thermo ‹msg.site›'",
      );
      assert.equal(
        summarize('entityCount', {
          entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: '{{msg.ids}}' },
        }),
        'count of devices ‹msg.ids›',
      );
      assert.equal(
        summarize('alarmCount', {
          entityFilter: {
            type: 'relationsQuery',
            rootEntity: { entityType: 'ASSET', id: '{{msg.site}}' },
            direction: 'FROM',
            maxLevel: '{{msg.depth}}',
          },
          statusList: ['ACTIVE'],
          startTs: '{{msg.from}}',
        }),
        'count of active alarms of any severity on entities that asset ‹msg.site› relates to (up to ‹msg.depth› ' +
          'levels), since ‹msg.from›',
      );
      assert.equal(
        summarize('alarmData', {
          entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: '{{msg.id}}' } },
          pageLink: {
            pageSize: 10,
            statusList: '{{msg.statuses}}',
            severityList: ['CRITICAL'],
            timeWindow: '{{flow.window}}',
          },
        }),
        'alarms of status ‹msg.statuses›, CRITICAL, on device ‹msg.id›, last ‹flow.window› ms, first 10',
      );
      assert.equal(
        summarize('entityCount', {
          entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: '{{foo}}' },
        }),
        "count of devices named starting with '{{foo}}'",
      );
    });
  });
});

describe("editor/builder/bound: the JSON view's schema takes placeholders", () => {
  it('where a number, a boolean or a list goes, and nowhere else changes', () => {
    const s = allowPlaceholders(jsonSchema('entityData', {})) as any;
    const size = s.properties.pageLink.properties.pageSize;
    assert.equal(size.title, 'Page size');
    assert.equal(size.anyOf.length, 2);
    assert.deepEqual(size.anyOf[0].type, ['integer', 'null']);
    assert.match('{{msg.size}}', new RegExp(size.anyOf[1].pattern));
    assert.doesNotMatch('{{foo}}', new RegExp(size.anyOf[1].pattern));
    // Text is left alone (it takes a placeholder as it is), and so is the original.
    assert.deepEqual(
      s.properties.pageLink.properties.textSearch,
      (jsonSchema('entityData', {}) as any).properties.pageLink.properties.textSearch,
    );
    assert.equal((jsonSchema('entityData', {}) as any).properties.pageLink.properties.pageSize.anyOf, undefined);
  });
});
