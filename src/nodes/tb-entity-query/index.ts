/** tb-entity-query: find entities (POST /api/entitiesQuery/find) or list their keys. Wiring only. */
import type { Node, NodeAPI } from 'node-red';
import { findOperation, Operation, restNode, RestNodeDef } from '../../families/query-node';
import { status } from '../../node-red/status';
import type { EntityDataQuery } from '../../protocol/types';
import { prepareEntityDataQuery, prepareKeysOptions } from '../../protocol/validate';
import { flag } from '../../settings/read';

interface EntityQueryDef extends RestNodeDef {
  operation?: string;
  keysTimeseries?: boolean | string;
  keysAttributes?: boolean | string;
  keysScopes?: string;
}

export default function (RED: NodeAPI): void {
  function TbEntityQuery(this: Node, config: EntityQueryDef) {
    RED.nodes.createNode(this, config);
    let operation: Operation<EntityDataQuery>;
    if (config.operation === 'keys') {
      let options: ReturnType<typeof prepareKeysOptions> | undefined;
      let problem: Error | undefined;
      try {
        options = prepareKeysOptions(
          {
            timeseries: flag(config.keysTimeseries ?? true),
            attributes: flag(config.keysAttributes ?? true),
            scopes: config.keysScopes ?? '',
          },
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
      operation = findOperation<EntityDataQuery>(RED, config, 'entity');
    }
    restNode(RED, this, config, prepareEntityDataQuery, operation);
  }
  RED.nodes.registerType('tb-entity-query', TbEntityQuery);
}
