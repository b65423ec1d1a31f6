/** tb-entity-query: find entities (POST /api/entitiesQuery/find) or list their keys. Wiring only. */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { findOperation, Operation, restNode } from '../../families/query-node';
import { nodeSettings } from '../../node-red/settings';
import { status } from '../../node-red/status';
import type { EntityDataQuery } from '../../protocol/types';
import { prepareEntityDataQuery, prepareKeysOptions } from '../../protocol/validate';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY_QUERY } from './settings';

export default function (RED: NodeAPI): void {
  function TbEntityQuery(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const settings = nodeSettings(this, TB_ENTITY_QUERY, MIGRATIONS, config, { RED, label });
    const v = settings.values;
    let operation: Operation<EntityDataQuery>;
    if (v.operation === 'keys') {
      let options: ReturnType<typeof prepareKeysOptions> | undefined;
      let problem: Error | undefined;
      try {
        options = prepareKeysOptions(
          { timeseries: v.keysTimeseries, attributes: v.keysAttributes, scopes: v.keysScopes },
          'keys options',
        );
      } catch (err) {
        problem = err as Error;
      }
      operation = async (q, msg, { client, send, activity, call, output }) => {
        if (problem || !options) throw problem;
        const keys = await client.findKeys(q, options, call);
        output(msg, keys);
        send(msg);
        let n = keys.timeseries.length;
        for (const scope in keys.attributes) n += (keys.attributes as Record<string, string[]>)[scope].length;
        activity.end(
          n === 0
            ? status(RED, 'green', 'dot', 'noKeys')
            : n === 1
              ? status(RED, 'green', 'dot', 'oneKey')
              : status(RED, 'green', 'dot', 'keys', { count: n }),
        );
      };
    } else {
      operation = findOperation<EntityDataQuery>(RED, v, 'entity');
    }
    restNode(RED, this, settings, prepareEntityDataQuery, operation);
  }
  RED.nodes.registerType('tb-entity-query', TbEntityQuery);
}
