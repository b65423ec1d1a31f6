/** tb-entity-count: count entities (POST /api/entitiesQuery/count). Wiring only. */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { restNode } from '../../families/query-node';
import { nodeSettings } from '../../node-red/settings';
import { status } from '../../node-red/status';
import type { EntityCountQuery } from '../../protocol/types';
import { prepareEntityCountQuery } from '../../protocol/validate';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY_COUNT } from './settings';

export default function (RED: NodeAPI): void {
  function TbEntityCount(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const settings = nodeSettings(this, TB_ENTITY_COUNT, MIGRATIONS, config, { RED, label });
    // The count's msg.topic (a chart's series), when set: empty leaves msg.topic as it came.
    const topic = String(settings.values.topic ?? '').trim();
    restNode<EntityCountQuery>(
      RED,
      this,
      settings,
      prepareEntityCountQuery,
      async (q, msg, { client, send, activity, call, output }) => {
        const n = await client.countEntities(q, call);
        output(msg, n);
        if (topic) msg.topic = topic;
        send(msg);
        activity.end(status(RED, 'green', 'dot', 'count', { count: n }));
      },
    );
  }
  RED.nodes.registerType('tb-entity-count', TbEntityCount);
}
