/** tb-alarm-query: find alarms (POST /api/alarmsQuery/find) or count them (POST /api/alarmsQuery/count). */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { findOperation, restNode } from '../../families/query-node';
import { nodeSettings } from '../../node-red/settings';
import { status } from '../../node-red/status';
import type { AlarmCountQuery, AlarmDataQuery } from '../../protocol/types';
import { prepareAlarmCountQuery, prepareAlarmDataQuery } from '../../protocol/validate';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ALARM_QUERY } from './settings';

export default function (RED: NodeAPI): void {
  function TbAlarmQuery(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const settings = nodeSettings(this, TB_ALARM_QUERY, MIGRATIONS, config, { RED, label });
    // The count's msg.topic (a chart's series), when set: empty leaves msg.topic as it came.
    const topic = String(settings.values.topic ?? '').trim();
    if (settings.values.operation === 'count') {
      restNode<AlarmCountQuery>(
        RED,
        this,
        settings,
        prepareAlarmCountQuery,
        async (q, msg, { client, send, activity, call, output }) => {
          const n = await client.countAlarms(q, call);
          output(msg, n);
          if (topic) msg.topic = topic;
          send(msg);
          activity.end(status(RED, 'green', 'dot', 'count', { count: n }));
        },
      );
    } else {
      restNode<AlarmDataQuery>(
        RED,
        this,
        settings,
        prepareAlarmDataQuery,
        findOperation<AlarmDataQuery>(RED, settings.values, 'alarm'),
      );
    }
  }
  RED.nodes.registerType('tb-alarm-query', TbAlarmQuery);
}
