/** tb-alarm-query: find alarms (POST /api/alarmsQuery/find) or count them (POST /api/alarmsQuery/count). */
import type { Node, NodeAPI } from 'node-red';
import { findOperation, restNode, RestNodeDef } from '../../families/query-node';
import { status } from '../../node-red/status';
import type { AlarmCountQuery, AlarmDataQuery } from '../../protocol/types';
import { prepareAlarmCountQuery, prepareAlarmDataQuery } from '../../protocol/validate';

interface AlarmQueryDef extends RestNodeDef {
  operation?: string;
}

export default function (RED: NodeAPI): void {
  function TbAlarmQuery(this: Node, config: AlarmQueryDef) {
    RED.nodes.createNode(this, config);
    if (config.operation === 'count') {
      restNode<AlarmCountQuery>(
        RED,
        this,
        config,
        prepareAlarmCountQuery,
        async (q, msg, { client, send, activity, call, output }) => {
          const n = await client.countAlarms(q, call);
          output(msg, n);
          send(msg);
          activity.end(status(RED, 'green', 'dot', 'count', { count: n }));
        },
      );
    } else {
      restNode<AlarmDataQuery>(
        RED,
        this,
        config,
        prepareAlarmDataQuery,
        findOperation<AlarmDataQuery>(RED, config, 'alarm'),
      );
    }
  }
  RED.nodes.registerType('tb-alarm-query', TbAlarmQuery);
}
