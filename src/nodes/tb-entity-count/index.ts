/** tb-entity-count: count entities (POST /api/entitiesQuery/count). Wiring only. */
import type { Node, NodeAPI } from 'node-red';
import { restNode, RestNodeDef } from '../../families/query-node';
import { status } from '../../node-red/status';
import type { EntityCountQuery } from '../../protocol/types';
import { prepareEntityCountQuery } from '../../protocol/validate';

export default function (RED: NodeAPI): void {
  function TbEntityCount(this: Node, config: RestNodeDef) {
    RED.nodes.createNode(this, config);
    restNode<EntityCountQuery>(
      RED,
      this,
      config,
      prepareEntityCountQuery,
      async (q, msg, { client, send, activity, call, output }) => {
        const n = await client.countEntities(q, call);
        output(msg, n);
        send(msg);
        activity.end(status(RED, 'green', 'dot', 'count', { count: n }));
      },
    );
  }
  RED.nodes.registerType('tb-entity-count', TbEntityCount);
}
