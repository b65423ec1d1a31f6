/**
 * allPages with split in the real Node-RED runtime against the simulator: the items go out as the pages arrive, and
 * the next page is asked for only once the flow has taken the current one (one page in flight, so memory is bounded
 * by the page size, not by the result); the output is the same as without split (same items, same order), with
 * msg.parts as Node-RED's split node makes them (one id, index 0…n-1, the count right on the last message).
 * Both REST finders that page: tb-entity-query and tb-alarm-query.
 */
import assert from 'node:assert/strict';
import { BASE_TIME } from '../../sim';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import { flowsOn, helper, inject, useRuntime, type Msg, type Rec } from '../support/runtime';

const NODES = [tbConnection, tbEntityQuery, tbAlarmQuery];

const PAGE = 3;
const DEVICES = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: PAGE, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
};
const ALARMS = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
  pageLink: {
    page: 0,
    pageSize: PAGE,
    sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
  },
};

describe('allPages + split streams page by page (runtime + simulator)', function () {
  const sim = useRuntime({ now: () => BASE_TIME + 30 * 60000 }, { reset: (s) => s.resetRequests() });
  const { load, results } = flowsOn(sim, NODES);

  const cases = [
    { type: 'tb-entity-query', query: DEVICES, path: '/api/entitiesQuery/find' },
    { type: 'tb-alarm-query', query: ALARMS, path: '/api/alarmsQuery/find' },
  ];

  for (const c of cases) {
    it(`${c.type}: the same items in the same order as one array, each sent before the page after next is asked for`, async () => {
      await load([
        {
          id: 'whole',
          type: c.type,
          connection: 'c1',
          queryType: 'msg',
          query: 'payload',
          format: 'flat',
          allPages: true,
          wires: [['out']],
        },
        {
          id: 'split',
          type: c.type,
          connection: 'c1',
          queryType: 'msg',
          query: 'payload',
          format: 'flat',
          allPages: true,
          split: true,
          wires: [['out']],
        },
      ]);
      const whole = (await results.ok('whole', { payload: c.query })).payload as Rec[];
      assert.ok(whole.length > 4 * PAGE, `enough items for several pages (${whole.length})`);
      const pages = Math.ceil(whole.length / PAGE);

      // the page requests made when each message reaches the next node (read in its input handler, synchronously)
      sim.resetRequests();
      const seen: Array<{ msg: Msg; requests: number }> = [];
      helper.getNode('out').on('input', (msg: Msg) => seen.push({ msg, requests: sim.countRequests(c.path) }));
      inject('split', { payload: c.query, topic: 'keep' });
      for (let i = 0; i < whole.length; i++) assert.ok((await results.next()).out, `message ${i} is an output`);

      assert.deepEqual(
        seen.map((s) => s.msg.payload),
        whole,
        'the same items in the same order',
      );
      const id = (seen[0].msg.parts as Rec).id;
      seen.forEach(({ msg, requests }, i) => {
        const { count, ...rest } = msg.parts as Rec;
        assert.deepEqual(rest, { id, index: i, type: 'array', len: 1 }, `parts of message ${i}`);
        // the last one carries the exact count; before it, the server's total, and never less than index + 1
        if (i === whole.length - 1) assert.equal(count, whole.length, 'the last message carries the count');
        else assert.ok(typeof count === 'number' && count >= i + 1, `parts.count of message ${i}: ${String(count)}`);
        assert.equal(msg.topic, 'keep');
        // item i is on page ⌊i / PAGE⌋; it is held back until the next item arrives (so that the last one carries the
        // exact count), which may be on the page after: never more pages asked for than that
        const page = Math.floor(i / PAGE);
        assert.ok(
          requests <= Math.min(pages, page + 2),
          `message ${i} (page ${page}) went out after ${requests} page requests`,
        );
      });
      assert.equal(sim.countRequests(c.path), pages, 'every page asked for once');
    });
  }
});
