/**
 * Errors as the debug sidebar shows them, in the real runtime: the log event of a message's error no Catch node takes
 * carries the error's text (the fix first), not the Error object the sidebar would draw as `{ name, message, code,
 * stack }`, and names an unnamed node by its label; a Catch node still gets the Error's message, code and stack, with
 * the label in msg.error.source.name; and the flow as saved keeps no name.
 */
import assert from 'node:assert/strict';
import type { SinonSpy } from 'sinon';
import { BASE_TIME, HOUR } from '../../sim';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbWaitUntil from '../../src/nodes/tb-wait-until/index';
import {
  assertCode,
  Collector,
  connectionNode,
  flow,
  helper,
  inject,
  TENANT,
  useRuntime,
  type Rec,
} from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbAttributes, tbRpc, tbWaitUntil];
const NS = 'node-red-contrib-thingsboard-query';
const FIX = "Set the query node's Output to msg.entity, or send the entity in msg.entity";

/** Node-RED's log events (the helper spies on the runtime's log). */
const events = (): Rec[] => (helper.log() as unknown as SinonSpy).args.map((a) => a[0] as Rec);
const errorsOf = (id: string): Rec[] => events().filter((e) => e.id === id && e.level === 20);

describe('errors as the debug sidebar shows them (runtime + simulator)', function () {
  const sim = useRuntime({ now: () => BASE_TIME + HOUR });
  const tab = (...nodes: Rec[]) => [
    { id: 't', type: 'tab', label: 'test' },
    connectionNode(sim.url),
    ...nodes.map((n) => ({ z: 't', x: 100, y: 100, wires: [], connection: 'c1', ...n })),
  ];

  it('no Catch node: the log carries the text, fix first, and the label of an unnamed node', async () => {
    await helper.load(
      NODES,
      tab(
        { id: 'save', type: 'tb-attributes', valuesFrom: 'rows', values: [{ key: 'mode', type: 'str', value: 'eco' }] },
        { id: 'named', type: 'tb-attributes', name: 'my save' },
        { id: 'cmd', type: 'tb-rpc', methodType: 'str', method: 'reboot' },
        { id: 'w', type: 'tb-wait-until', key: 'temperature', operator: 'gte', value: '21', valueType: 'num' },
      ) as never,
      { c1: TENANT },
    );
    for (const id of ['save', 'named', 'cmd', 'w']) inject(id, { payload: 1767225600000 });
    await waitFor(() => ['save', 'named', 'cmd', 'w'].every((id) => errorsOf(id).length === 1));
    const [save] = errorsOf('save');
    // A text, which the sidebar shows as one line (an Error it draws as an object whose texts it cuts at 30).
    assert.equal(save.msg, FIX);
    assert.ok(FIX.length <= 80, 'whole on one line of the sidebar, which cuts a text at 80 characters');
    assert.equal(save.type, 'tb-attributes');
    // The label the editor draws, from the same catalog key (the test runtime's translation is the key itself).
    assert.equal(save.name, `${NS}/tb-attributes:tb-attributes.defaultLabel.save`);
    assert.equal(errorsOf('named')[0].name, 'my save', 'a name is kept');
    assert.deepEqual(
      [errorsOf('cmd')[0].name, errorsOf('cmd')[0].msg],
      [`${NS}/tb-rpc:tb-rpc.defaultLabel.method`, FIX],
    );
    assert.equal(errorsOf('w')[0].msg, FIX);
    assert.equal(errorsOf('w')[0].name, `${NS}/tb-wait-until:tb-wait-until.sentence.value`);
    // Only the running node is named: the flow as deployed (what the editor saved) has no name.
    const deployed = (helper as unknown as { _redNodes: { getFlows(): { flows: Rec[] } } })._redNodes.getFlows().flows;
    assert.equal(deployed.find((n) => n.id === 'save')?.name, undefined);
    assert.equal(
      (helper.getNode('save') as unknown as Rec).name,
      `${NS}/tb-attributes:tb-attributes.defaultLabel.save`,
    );
  });

  it('a Catch node gets the Error as before (message, code, stack), the label as its source; nothing is logged', async () => {
    await helper.load(NODES, flow(connectionNode(sim.url), { id: 'save', type: 'tb-attributes', connection: 'c1' }), {
      c1: TENANT,
    });
    const caught = new Collector('caught');
    inject('save', { payload: 1767225600000 });
    const m = await caught.until(() => true, 8000, true);
    const error = m.error as Rec;
    assert.equal(error.message, `TbInputError: ${FIX}`);
    assertCode(error, 'TB_INVALID_INPUT');
    assert.match(String(error.stack), /^TbInputError: Set the query node's Output/);
    assert.deepEqual(error.source, {
      id: 'save',
      type: 'tb-attributes',
      name: `${NS}/tb-attributes:tb-attributes.defaultLabel.save`,
      count: 1,
    });
    assert.deepEqual(errorsOf('save'), [], 'taken by the Catch node: not logged');
  });
});
