/**
 * The query through a change of kind in the builder (src/editor/builder/mode-switch.ts): each kind that pages keeps
 * its own page, so a subscription switched from alarms to entities is a valid entity query (no alarm sort, no alarm
 * filter in its page) and switched back finds its alarm page as it was.
 */
import assert from 'node:assert/strict';
import { switchMode } from '../../src/editor/builder/mode-switch';
import { check } from '../../src/query-model/check';
import { defaultQuery } from '../../src/query-model/schema';

type Query = Record<string, unknown>;

describe('switching the kind of a query (builder)', () => {
  it('alarms → entities: an entity page of the alarm page size, valid; back: the alarm page as it was', () => {
    const q = defaultQuery('alarmData') as Query;
    const page = q.pageLink as Record<string, unknown>;
    page.pageSize = 25;
    page.severityList = ['CRITICAL'];
    const alarmPage = structuredClone(page);
    assert.equal(check('alarmData', q, 'query', { live: true }).ok, true, 'the alarm query starts valid');
    const left: Query = {};
    switchMode(q, 'alarmData', 'entityData', left);
    const r = check('entityData', q, 'query', { live: true });
    assert.equal(r.ok, true, r.ok ? '' : r.message);
    const entityPage = q.pageLink as Record<string, unknown>;
    assert.equal(entityPage.pageSize, 25, 'the page size the user had');
    assert.equal(entityPage.severityList, undefined, 'no alarm filter in an entity page');
    assert.deepEqual(entityPage.sortOrder, (defaultQuery('entityData').pageLink as Record<string, unknown>).sortOrder);
    switchMode(q, 'entityData', 'alarmData', left);
    assert.deepEqual(q.pageLink, alarmPage, 'the alarm page comes back, its filter and sort with it');
    assert.equal(check('alarmData', q, 'query', { live: true }).ok, true);
  });

  it('entities → alarms → entities: the entity page as the user left it', () => {
    const q = defaultQuery('entityData') as Query;
    (q.pageLink as Record<string, unknown>).pageSize = 7;
    const entityPage = structuredClone(q.pageLink);
    const left: Query = {};
    switchMode(q, 'entityData', 'alarmData', left);
    assert.equal(check('alarmData', q, 'query', { live: true }).ok, true);
    assert.equal((q.pageLink as Record<string, unknown>).pageSize, 7);
    switchMode(q, 'alarmData', 'entityData', left);
    assert.deepEqual(q.pageLink, entityPage);
  });

  it('alarm data ↔ alarm count still moves the alarm filter between the page and the top level', () => {
    const q = defaultQuery('alarmData') as Query;
    (q.pageLink as Record<string, unknown>).severityList = ['MAJOR'];
    const left: Query = {};
    switchMode(q, 'alarmData', 'alarmCount', left);
    assert.deepEqual(q.severityList, ['MAJOR']);
    assert.equal('pageLink' in q, false, 'a count has no page');
    switchMode(q, 'alarmCount', 'alarmData', left);
    assert.deepEqual((q.pageLink as Record<string, unknown>).severityList, ['MAJOR']);
  });
});
